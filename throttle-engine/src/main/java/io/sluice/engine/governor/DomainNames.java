package io.sluice.engine.governor;

import java.util.Locale;
import java.util.regex.Pattern;

/** The one place that says what a domain is and how it is spelt. */
public final class DomainNames {
    private static final Pattern HOST = Pattern.compile(
            "(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*");
    private static final Pattern PORT = Pattern.compile(":(\\d{1,5})$");

    private DomainNames() {
    }

    /**
     * The domain in its one spelling: lower case, no trailing dot, optional {@code :port} kept
     * (two ports of one host are often two servers).
     *
     * @throws IllegalArgumentException with a message for the caller when it is not a host name
     */
    public static String normalise(String domain) {
        if (domain == null || domain.isBlank()) {
            throw new IllegalArgumentException("domain is required");
        }
        String text = domain.trim().toLowerCase(Locale.ROOT);
        String port = "";
        var portMatch = PORT.matcher(text);
        if (portMatch.find()) {
            int number = Integer.parseInt(portMatch.group(1));
            if (number < 1 || number > 65_535) {
                throw new IllegalArgumentException("port out of range in domain '" + domain + "'");
            }
            port = ":" + number;
            text = text.substring(0, portMatch.start());
        }
        if (text.endsWith(".")) {
            text = text.substring(0, text.length() - 1);
        }
        if (!HOST.matcher(text).matches()) {
            throw new IllegalArgumentException("not a host name: '" + domain + "' (give e.g. example.com, "
                    + "without scheme or path)");
        }
        return text + port;
    }
}
