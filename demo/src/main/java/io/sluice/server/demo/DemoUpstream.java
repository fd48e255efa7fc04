package io.sluice.server.demo;

import io.sluice.server.front.PublicConnector;
import java.net.URI;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** The demo site on a free loopback port, in a small server of its own: the upstream the demo's front ends protect. */
public final class DemoUpstream implements AutoCloseable {
    private final Server server;
    private final DemoSite pages;
    private final URI uri;

    private DemoUpstream(Server server, DemoSite pages, URI uri) {
        this.server = server;
        this.pages = pages;
        this.uri = uri;
    }

    /** @param maxThreads the site's threads: more for a cluster's front ends than for one */
    public static DemoUpstream start(int maxThreads) throws Exception {
        Server server = new Server(new QueuedThreadPool(maxThreads, 2, 60_000));
        // No Server header, as the front end sends none: what a visitor sees names neither.
        ServerConnector connector = new ServerConnector(server,
                new HttpConnectionFactory(PublicConnector.anonymousHttp()));
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        DemoSite pages = new DemoSite();
        server.setHandler(pages);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        return new DemoUpstream(server, pages, URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/"));
    }

    /** Where the front ends forward to. */
    public URI uri() {
        return uri;
    }

    /** The site's pages, which the story turns slow for a while. */
    public DemoSite pages() {
        return pages;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the demo site did not stop cleanly: " + e.getMessage(), e);
        }
    }
}
