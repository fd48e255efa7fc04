package io.sluice.server;

import picocli.CommandLine;

/** A listen address given as {@code HOST:PORT} ({@code [::1]:8080} for IPv6). */
public record HostPort(String host, int port) {

    public HostPort {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0-65535, not " + port);
        }
    }

    public static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port of '" + text + "' is not a number");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** Lets picocli report a bad address as a one-line usage error. */
    public static final class Converter implements CommandLine.ITypeConverter<HostPort> {
        @Override
        public HostPort convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
