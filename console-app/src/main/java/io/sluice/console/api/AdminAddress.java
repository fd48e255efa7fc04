package io.sluice.console.api;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Where the console may send a token: {@code https://} to any host, {@code http://} only to this machine (an
 * address in 127.0.0.0/8, {@code ::1}, or {@code localhost}), since over plain HTTP the token crosses the network
 * in clear text. Checked before any connection is made. A host name is never looked up here: only the literal
 * loopback addresses and the name {@code localhost} count (a name whose DNS answer says 127.0.0.1 is not
 * trusted to stay on this machine).
 */
public final class AdminAddress {
    private AdminAddress() {
    }

    /**
     * Reads and checks an admin URL as typed.
     *
     * @throws IllegalArgumentException saying what is wrong: not a URL, not http(s), no host, or http to another
     *                                  machine
     */
    public static URI parse(String text) {
        try {
            return check(new URI(text == null ? "" : text.strip()));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + e.getMessage());
        }
    }

    /**
     * Checks an admin URL; returns it with the path {@code /} when it had none.
     *
     * @throws IllegalArgumentException as {@link #parse}
     */
    public static URI check(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http") || uri.getHost() == null) {
            throw new IllegalArgumentException("the admin URL is https://HOST:PORT/ (http:// only on loopback), "
                    + "was '" + uri + "'");
        }
        if (scheme.equals("http") && !isLoopback(uri.getHost())) {
            throw new IllegalArgumentException("refused: http://" + uri.getHost() + " would send the token in clear "
                    + "text over the network; http:// is for loopback only (127.0.0.1, ::1, localhost). Use https:// "
                    + "(start the server with --admin-tls)");
        }
        return uri.getPath() == null || uri.getPath().isEmpty() ? uri.resolve("/") : uri;
    }

    /** True for a literal address in 127.0.0.0/8 or {@code ::1} (brackets allowed), and for {@code localhost}. */
    public static boolean isLoopback(String host) {
        if (host == null) {
            return false;
        }
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (bare.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (bare.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            String[] octets = bare.split("\\.");
            for (String octet : octets) {
                if (Integer.parseInt(octet) > 255) {
                    return false;
                }
            }
            return Integer.parseInt(octets[0]) == 127;
        }
        if (!bare.contains(":")) {
            return false;
        }
        try {
            // In brackets an IPv6 literal is parsed, never looked up (an invalid one is an error, not a DNS query).
            return InetAddress.getByName("[" + bare + "]").isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** {@code host:port} of {@code uri} (the default port when none is written): the key a pin is kept under. */
    public static String server(URI uri) {
        int port = uri.getPort() >= 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        return uri.getHost() + ":" + port;
    }
}
