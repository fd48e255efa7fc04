package io.sluice.server.front;

import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable.InvocationType;

/**
 * Jetty's reverse proxy to one upstream, with an HTTP client tuned for a proxy's job and the header
 * rules of {@link HopByHop} and {@link ForwardedHeaders} in both directions.
 *
 * <p>What it changes from the stock {@link ProxyHandler.Reverse}, and why:
 * <ul>
 *   <li>Request headers: the client's forwarding claims are dropped and replaced by what the engine
 *       resolved ({@link ForwardedHeaders}); fields named in the client's {@code Connection} are dropped.</li>
 *   <li>Response headers: fields named in the upstream's {@code Connection} are dropped too (the stock
 *       proxy only drops the fixed hop-by-hop set), and the upstream's {@code Date} and {@code Server}
 *       replace the front end's instead of being sent beside them.</li>
 *   <li>A request body without a {@code Content-Type} reaches the upstream without one (the stock proxy's
 *       client adds {@code application/octet-stream}).</li>
 *   <li>With {@code agents.trap.injectLinks}, an HTML page gets a hidden link to the trap ({@link TrapLink}).</li>
 *   <li>A request that is safe to repeat (an idempotent method with no body) whose upstream connection
 *       failed before any response began is sent once more on another connection: that is an upstream
 *       closing an idle pooled connection just as the request went out. Anything else gets the 502.</li>
 * </ul>
 */
public final class UpstreamProxy {
    private static final String RETRIED = UpstreamProxy.class.getName() + ".retried";
    /** Upstream connections at most; nginx's {@code keepalive} plays this part. */
    private static final int MAX_CONNECTIONS = 256;
    /** Upstream connections opened at start. */
    private static final int WARM_CONNECTIONS = 32;

    private UpstreamProxy() {
    }

    /**
     * @param upstream        the site, e.g. {@code http://127.0.0.1:3000}
     * @param upstreamTimeout how long an upstream may take before the client gets a 504
     */
    public static ProxyHandler.Reverse to(URI upstream, Duration upstreamTimeout) {
        return to(upstream, upstreamTimeout, WARM_CONNECTIONS, new UpstreamErrors());
    }

    /** @param errors where the 502s and 504s sent for a failed upstream are counted */
    public static ProxyHandler.Reverse to(URI upstream, Duration upstreamTimeout, UpstreamErrors errors) {
        return to(upstream, upstreamTimeout, WARM_CONNECTIONS, errors);
    }

    /** @param warmConnections upstream connections to open at start (tests that script each connection: 0) */
    public static ProxyHandler.Reverse to(URI upstream, Duration upstreamTimeout, int warmConnections) {
        return to(upstream, upstreamTimeout, warmConnections, new UpstreamErrors());
    }

    private static ProxyHandler.Reverse to(URI upstream, Duration upstreamTimeout, int warmConnections,
                                           UpstreamErrors errors) {
        return new Reverse(upstream, upstreamTimeout.toMillis(), warmConnections, errors);
    }

    private static final class Reverse extends ProxyHandler.Reverse {
        private final URI upstream;
        private final long timeoutMillis;
        private final int warmConnections;
        private final UpstreamErrors errors;
        private final ForwardedHeaders forwarded = new ForwardedHeaders("sluice");

        Reverse(URI upstream, long timeoutMillis, int warmConnections, UpstreamErrors errors) {
            super(rewriter(upstream));
            this.errors = errors;
            this.warmConnections = warmConnections;
            this.upstream = upstream;
            this.timeoutMillis = timeoutMillis;
            // The upstream's responses are handled on the server's own threads: no hand-off to a second
            // pool per request, and one place that bounds the threads.
            setUseServerThreadPool(true);
            setViaHost("sluice");
        }

        @Override
        protected HttpClient newHttpClient() {
            ClientConnector connector = new ClientConnector();
            // One selector for the upstream side: on a small machine more only adds threads to switch between.
            connector.setSelectors(1);
            HttpClientTransportOverHTTP transport = new HttpClientTransportOverHTTP(connector);
            // The response listeners only copy bytes to the client's response and demand more when that write
            // completes; nothing in them blocks, so the upstream's bytes are handled on the thread that read them.
            transport.setInvocationType(InvocationType.NON_BLOCKING);
            HttpClient client = new HttpClient(transport);
            Server server = getServer();
            if (server != null) {
                // One buffer pool and one scheduler for both sides (the executor is shared by the base class).
                client.setByteBufferPool(server.getByteBufferPool());
                client.setScheduler(server.getScheduler());
            }
            // Without this the upstream sees Jetty's own User-Agent as well as the client's.
            client.setUserAgentField(null);
            client.setFollowRedirects(false);
            // A body the client sent without a Content-Type reaches the upstream without one.
            client.setDefaultRequestContentType(null);
            client.setMaxConnectionsPerDestination(MAX_CONNECTIONS);
            client.setIdleTimeout(30_000);
            client.setConnectTimeout(5_000);
            return client;
        }

        @Override
        protected void doStart() throws Exception {
            super.doStart();
            // Connections to the upstream opened before the first visitor: no connect on the first requests'
            // path. An upstream that is down at start is not an error here; requests will say so with a 502.
            if (warmConnections > 0) {
                getHttpClient().resolveDestination(getHttpClient().newRequest(upstream)).getConnectionPool()
                        .preCreateConnections(warmConnections);
            }
        }

        /** The proxy never blocks a thread: the upstream request is sent and answered asynchronously. */
        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }

        @Override
        protected org.eclipse.jetty.client.Request newProxyToServerRequest(Request clientToProxy, HttpURI target) {
            // A slow upstream ends in a 504 for the client instead of a hung connection.
            return super.newProxyToServerRequest(clientToProxy, target).timeout(timeoutMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        protected void copyRequestHeaders(Request clientToProxy, org.eclipse.jetty.client.Request proxyToServer) {
            HttpFields client = clientToProxy.getHeaders();
            HopByHop hopByHop = HopByHop.of(client);
            String policyHeader = (String) clientToProxy.getAttribute(ForwardedHeaders.POLICY_HEADER);
            proxyToServer.headers(upstream -> {
                for (HttpField field : client) {
                    if (!hopByHop.strips(field) && !ForwardedHeaders.isClientClaim(field, policyHeader)) {
                        upstream.add(field);
                    }
                }
            });
        }

        @Override
        protected void addProxyHeaders(Request clientToProxy, org.eclipse.jetty.client.Request proxyToServer) {
            String resolved = (String) clientToProxy.getAttribute(ForwardedHeaders.CLIENT_ADDRESS);
            HttpVersion version = HttpVersion.fromString(clientToProxy.getConnectionMetaData().getProtocol());
            String policyHeader = (String) clientToProxy.getAttribute(ForwardedHeaders.POLICY_HEADER);
            proxyToServer.headers(upstream -> forwarded.add(clientToProxy.getHeaders(), upstream,
                    Request.getRemoteAddr(clientToProxy), resolved, clientToProxy.isSecure(), version, policyHeader));
        }

        @Override
        protected org.eclipse.jetty.client.Response.CompleteListener newServerToProxyResponseListener(
                Request clientToProxy, org.eclipse.jetty.client.Request proxyToServer, Response proxyToClient,
                Callback proxyToClientCallback) {
            return new ResponseListener(clientToProxy, proxyToServer, proxyToClient, proxyToClientCallback);
        }

        @Override
        protected void onServerToProxyResponseFailure(Request clientToProxy,
                org.eclipse.jetty.client.Request proxyToServer, org.eclipse.jetty.client.Response serverToProxy,
                Response proxyToClient, Callback proxyToClientCallback, Throwable failure) {
            if (safeToRepeat(clientToProxy, proxyToServer, serverToProxy, proxyToClient, failure)) {
                org.eclipse.jetty.client.Request again = newProxyToServerRequest(clientToProxy,
                        HttpURI.from(proxyToServer.getURI()));
                proxyToServer.getAttributes().forEach(again::attribute);
                again.attribute(RETRIED, Boolean.TRUE);
                again.headers(headers -> headers.add(proxyToServer.getHeaders()));
                sendProxyToServerRequest(clientToProxy, again, proxyToClient, proxyToClientCallback);
                return;
            }
            HttpException clientsFault = httpExceptionIn(failure);
            if (clientsFault != null && !proxyToClient.isCommitted()) {
                // The client's own body was malformed (bad chunk framing): its 400, not the upstream's 502.
                Response.writeError(clientToProxy, proxyToClient, proxyToClientCallback, clientsFault.getCode(),
                        clientsFault.getReason());
                return;
            }
            if (!proxyToClient.isCommitted()) {
                // Jetty answers 504 for a timeout, else 502.
                errors.count(UpstreamErrors.reasonOf(failure));
            }
            super.onServerToProxyResponseFailure(clientToProxy, proxyToServer, serverToProxy, proxyToClient,
                    proxyToClientCallback, failure);
        }

        private static boolean safeToRepeat(Request clientToProxy, org.eclipse.jetty.client.Request proxyToServer,
                                            org.eclipse.jetty.client.Response serverToProxy, Response proxyToClient,
                                            Throwable failure) {
            return !proxyToServer.getAttributes().containsKey(RETRIED)
                    && !(failure instanceof TimeoutException)
                    && (serverToProxy == null || serverToProxy.getStatus() == 0)
                    && !proxyToClient.isCommitted()
                    && idempotent(clientToProxy.getMethod())
                    && clientToProxy.getLength() <= 0
                    && !clientToProxy.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
        }

        /** The HTTP error (a malformed request body, found by Jetty's parser) behind {@code failure}, or null. */
        private static HttpException httpExceptionIn(Throwable failure) {
            for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
                if (cause instanceof HttpException http) {
                    return http;
                }
            }
            return null;
        }

        private static boolean idempotent(String method) {
            HttpMethod known = HttpMethod.fromString(method);
            return known != null && known.isIdempotent();
        }

        /** The stock listener, but with the response header rules of the class comment. */
        private final class ResponseListener extends ProxyResponseListener {
            private final Response proxyToClient;

            private final Request clientToProxy;
            /** The trap link to put into this response's body; null when this response gets none. */
            private TrapLink trapLink;

            ResponseListener(Request clientToProxy, org.eclipse.jetty.client.Request proxyToServer,
                             Response proxyToClient, Callback proxyToClientCallback) {
                super(clientToProxy, proxyToServer, proxyToClient, proxyToClientCallback);
                this.proxyToClient = proxyToClient;
                this.clientToProxy = clientToProxy;
            }

            /** The upstream's first byte: when its request's cost began to come back (see ThrottleHandler). */
            @Override
            public void onBegin(org.eclipse.jetty.client.Response serverToProxy) {
                if (clientToProxy.getAttribute(ThrottleHandler.UPSTREAM_FIRST_BYTE) == null) {
                    clientToProxy.setAttribute(ThrottleHandler.UPSTREAM_FIRST_BYTE, System.nanoTime());
                }
                super.onBegin(serverToProxy);
            }

            @Override
            public void onHeaders(org.eclipse.jetty.client.Response serverToProxy) {
                HttpFields upstream = serverToProxy.getHeaders();
                HopByHop hopByHop = HopByHop.of(upstream);
                HttpFields.Mutable client = proxyToClient.getHeaders();
                for (HttpField field : upstream) {
                    if (hopByHop.strips(field)) {
                        continue;
                    }
                    HttpHeader header = field.getHeader();
                    if (header == HttpHeader.DATE || header == HttpHeader.SERVER) {
                        client.put(field);
                    } else {
                        client.add(field);
                    }
                }
                if (clientToProxy.getAttribute(TrapLink.ATTRIBUTE) instanceof byte[] link
                        && TrapLink.wanted(clientToProxy.getMethod(), serverToProxy.getStatus(), upstream)) {
                    trapLink = new TrapLink(link);
                    trapLink.adjust(client);
                }
            }

            @Override
            public void onContent(org.eclipse.jetty.client.Response serverToProxy, Content.Chunk chunk,
                                  Runnable demander) {
                TrapLink link = trapLink;
                if (link == null || link.placed()) {
                    super.onContent(serverToProxy, chunk, demander);
                    return;
                }
                // A copy with the link put in (or a few bytes held back): the chunk is the caller's to release.
                ByteBuffer changed = link.next(chunk.getByteBuffer());
                proxyToClient.write(false, changed, Callback.from(demander, serverToProxy::abort));
            }

            @Override
            public void onSuccess(org.eclipse.jetty.client.Response serverToProxy) {
                TrapLink link = trapLink;
                if (link == null) {
                    super.onSuccess(serverToProxy);
                    return;
                }
                trapLink = null;
                proxyToClient.write(true, link.last(), this);
            }
        }
    }

    private static Function<Request, HttpURI> rewriter(URI upstream) {
        String scheme = upstream.getScheme();
        String host = upstream.getHost();
        int port = upstream.getPort();
        String basePath = upstream.getRawPath() == null || "/".equals(upstream.getRawPath())
                ? "" : stripTrailingSlash(upstream.getRawPath());
        // The function form: no regex run per request (the (regex, replacement) constructor does one).
        if (basePath.isEmpty()) {
            return request -> HttpURI.build(request.getHttpURI()).scheme(scheme).host(host).port(port);
        }
        return request -> HttpURI.build(request.getHttpURI())
                .scheme(scheme).host(host).port(port).path(basePath + request.getHttpURI().getPath());
    }

    private static String stripTrailingSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
