package io.sluice.server.botauth;

import io.sluice.engine.net.CidrSet;
import io.sluice.engine.net.IpAddress;
import java.net.InetAddress;
import java.util.List;

/**
 * Which addresses a key directory may be fetched from (the draft's SSRF considerations): a client names the URL, so
 * without this a request could make the front end fetch from the site's own network. Public addresses are allowed;
 * loopback, private, link-local, shared (CGNAT), unique-local, multicast, unspecified and reserved ranges are refused
 * unless the operator lists them ({@code --signed-agents-allow}); an IPv4-mapped IPv6 address is judged as the IPv4
 * one (the JDK reads it so). Checked on the address the fetch connects to, after
 * resolution, so a name that resolves to a refused address (DNS rebinding included) is refused too.
 */
final class AddressPolicy {

    /** Special-purpose ranges that {@link InetAddress}'s predicates do not name. */
    private static final CidrSet RESERVED = CidrSet.parse(List.of("0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24",
            "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "fc00::/7",
            "2001:db8::/32", "64:ff9b::/96", "100::/64"));

    private final CidrSet allowed;

    /** @param allowed addresses or CIDRs allowed although not public (e.g. {@code 127.0.0.1/32} in a test) */
    AddressPolicy(List<String> allowed) {
        this.allowed = CidrSet.parse(allowed);
    }

    boolean allows(InetAddress address) {
        IpAddress ip = IpAddress.ofBytes(address.getAddress());
        if (allowed.contains(ip)) {
            return true;
        }
        return !(address.isLoopbackAddress() || address.isAnyLocalAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress() || RESERVED.contains(ip));
    }
}
