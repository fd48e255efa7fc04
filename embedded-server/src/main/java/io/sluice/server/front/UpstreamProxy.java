package io.sluice.server.front;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;

/** Jetty's reverse proxy to one upstream, with an HTTP client tuned for a proxy's job. */
public final class UpstreamProxy {
    private UpstreamProxy() {
    }

    /**
     * @param upstream        the site, e.g. {@code http://127.0.0.1:3000}
     * @param upstreamTimeout how long an upstream may take before the client gets a 504
     */
    public static ProxyHandler.Reverse to(URI upstream, Duration upstreamTimeout) {
        String scheme = upstream.getScheme();
        String host = upstream.getHost();
        int port = upstream.getPort();
        String basePath = upstream.getRawPath() == null || "/".equals(upstream.getRawPath())
                ? "" : stripTrailingSlash(upstream.getRawPath());
        // The function form: no regex run per request (the (regex, replacement) constructor does one).
        long timeoutMillis = upstreamTimeout.toMillis();
        ProxyHandler.Reverse proxy = new ProxyHandler.Reverse(request -> HttpURI.build(request.getHttpURI())
                .scheme(scheme).host(host).port(port).path(basePath + request.getHttpURI().getPath())) {
            @Override
            protected HttpClient newHttpClient() {
                HttpClient client = new HttpClient();
                // Without this the upstream sees Jetty's own User-Agent as well as the client's.
                client.setUserAgentField(null);
                client.setFollowRedirects(false);
                client.setMaxConnectionsPerDestination(256);
                client.setIdleTimeout(30_000);
                client.setConnectTimeout(5_000);
                return client;
            }

            @Override
            protected org.eclipse.jetty.client.Request newProxyToServerRequest(Request clientToProxy, HttpURI target) {
                // A slow upstream ends in a 504 for the client instead of a hung connection.
                return super.newProxyToServerRequest(clientToProxy, target)
                        .timeout(timeoutMillis, TimeUnit.MILLISECONDS);
            }
        };
        // The upstream's responses are handled on the server's own threads: no hand-off to a second
        // pool per request, and one place that bounds the threads.
        proxy.setUseServerThreadPool(true);
        proxy.setViaHost("sluice");
        return proxy;
    }

    private static String stripTrailingSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
