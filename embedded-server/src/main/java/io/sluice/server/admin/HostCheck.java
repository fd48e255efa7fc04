package io.sluice.server.admin;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Refuses a call whose {@code Host} is a name the admin listener is not known by. A web page a browser on
 * the operator's workstation opens could otherwise point its own domain name at 127.0.0.1 (DNS rebinding)
 * and talk to the admin API as a same-origin site; its requests carry that domain as {@code Host}. An
 * address (IPv4, or IPv6 in brackets) is always accepted: a page cannot make a browser send one as Host
 * from a name of its own.
 */
final class HostCheck extends Handler.Wrapper {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private final Set<String> names;

    /** @param names the host names the listener answers to ({@code localhost} is always one) */
    HostCheck(Set<String> names, Handler next) {
        super(next);
        this.names = names.stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors
                .toUnmodifiableSet());
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String host = request.getHttpURI().getHost();
        if (host == null || !known(host)) {
            return ApiMessages.error(response, callback, 421, "this admin listener does not answer to the host name '"
                    + host + "'; add it with --admin-hostname if it is yours");
        }
        return super.handle(request, response, callback);
    }

    private boolean known(String host) {
        String name = host.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return IPV4.matcher(name).matches() || name.startsWith("[") || name.indexOf(':') >= 0
                || "localhost".equals(name) || names.contains(name);
    }
}
