package io.sluice.server;

import java.util.Locale;

/** How the public listener forwards: {@code --front-path}. */
public enum ForwardingPath {
    /**
     * The lean path for the common case (an HTTP/1.1 request without a body or with a small one, admitted at
     * once), on the selector threads; everything else goes on to the proxy path. See docs/architecture.md.
     */
    LEAN,
    /** Jetty's reverse proxy for every request. */
    PROXY;

    /** {@code lean} or {@code proxy}, as typed on the command line. */
    public static ForwardingPath parse(String text) {
        for (ForwardingPath path : values()) {
            if (path.name().equalsIgnoreCase(text == null ? "" : text.trim())) {
                return path;
            }
        }
        throw new IllegalArgumentException("--front-path must be lean or proxy, not '" + text + "'");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
