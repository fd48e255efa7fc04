package io.sluice.server.front;

/**
 * The forwarding paths the correctness suite runs against. Today's path is Jetty's {@code ProxyHandler};
 * the lean path of issue #17 (HTTP/1.1 on Jetty's I/O layer, one selector thread per request) joins it here,
 * so that every case in the suite holds on both.
 */
enum FrontPath {
    /** {@link UpstreamProxy}: Jetty's reverse proxy with Sluice's header rules. */
    PROXY_HANDLER,
    /** {@link LeanConnector}: the lean path for the common case, the proxy handler for the rest. */
    LEAN
}
