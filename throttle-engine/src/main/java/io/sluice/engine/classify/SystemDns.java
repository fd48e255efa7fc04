package io.sluice.engine.classify;

import io.sluice.engine.net.IpAddress;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

/**
 * The system's DNS servers (those of {@code /etc/resolv.conf}), asked through the JDK's DNS naming provider rather
 * than {@code InetAddress}: {@code InetAddress.getHostName()} answers a timed-out PTR query exactly as it answers a
 * missing one (with the address itself), and a verifier that cannot tell them apart remembers a slow resolver as a
 * failure. Here "no such name" and "no such record" are empty answers; anything else (timeout, refusal, server
 * failure) is an exception, which {@link SearchEngineVerifier} treats as no answer yet.
 *
 * <p>Each query waits {@link #TIMEOUT_MILLIS}, doubling over {@link #RETRIES} tries per server (about 7 s in all for
 * one server), so a lookup thread is never held long by a network whose DNS does not answer.
 */
final class SystemDns implements SearchEngineVerifier.Resolver {

    static final int TIMEOUT_MILLIS = 1_000;
    static final int RETRIES = 3;

    @Override
    public List<String> reverse(IpAddress address) throws NamingException {
        List<String> names = new ArrayList<>();
        for (String name : query(arpaName(address), "PTR")) {
            names.add(name);
        }
        return names;
    }

    @Override
    public List<IpAddress> forward(String hostName) throws NamingException {
        List<IpAddress> out = new ArrayList<>();
        for (String type : new String[] {"A", "AAAA"}) {
            for (String value : query(hostName, type)) {
                IpAddress address = IpAddress.tryParse(value);
                if (address != null) {
                    out.add(address);
                }
            }
        }
        return out;
    }

    private static List<String> query(String name, String type) throws NamingException {
        Hashtable<String, String> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.dns.DnsContextFactory");
        env.put(Context.PROVIDER_URL, "dns:"); // no server named: the platform's
        env.put("com.sun.jndi.dns.timeout.initial", Integer.toString(TIMEOUT_MILLIS));
        env.put("com.sun.jndi.dns.timeout.retries", Integer.toString(RETRIES));
        DirContext context = new InitialDirContext(env);
        try {
            Attributes attributes = context.getAttributes(name.endsWith(".") ? name : name + ".",
                    new String[] {type});
            Attribute records = attributes.get(type);
            List<String> values = new ArrayList<>();
            if (records != null) {
                NamingEnumeration<?> all = records.getAll();
                while (all.hasMore()) {
                    values.add(String.valueOf(all.next()));
                }
            }
            return values;
        } catch (NameNotFoundException noSuchName) {
            return List.of(); // NXDOMAIN: an answer
        } finally {
            context.close();
        }
    }

    /** {@code 1.2.0.192.in-addr.arpa} for 192.0.2.1; the reversed nibbles under {@code ip6.arpa} for IPv6. */
    static String arpaName(IpAddress address) {
        byte[] bytes = address.toBytes();
        StringBuilder name = new StringBuilder(80);
        if (address.isIpv4()) {
            for (int i = bytes.length - 1; i >= 0; i--) {
                name.append(bytes[i] & 0xFF).append('.');
            }
            return name.append("in-addr.arpa").toString();
        }
        for (int i = bytes.length - 1; i >= 0; i--) {
            name.append(Character.forDigit(bytes[i] & 0x0F, 16)).append('.')
                    .append(Character.forDigit((bytes[i] >> 4) & 0x0F, 16)).append('.');
        }
        return name.append("ip6.arpa").toString();
    }
}
