package io.sluice.server.bench;

import java.net.URI;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The load harness's baseline: a stock Jetty {@link ProxyHandler.Reverse} with no throttling, so the
 * benchmark measures what Sluice adds on top of Jetty's own proxy. Not part of the product.
 * Usage: {@code java -cp sluice-demo.jar io.sluice.server.bench.PlainProxy PORT UPSTREAM_URL}.
 */
public final class PlainProxy {
    private PlainProxy() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        URI upstream = URI.create(args[1]);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(new ProxyHandler.Reverse(request -> HttpURI.build(request.getHttpURI())
                .scheme(upstream.getScheme()).host(upstream.getHost()).port(upstream.getPort())));
        server.start();
        server.join();
    }
}
