package io.sluice.console.testkit;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;

/**
 * One client of a front end: its own loopback address and user agent, so the server (and its shadow policy)
 * tells it apart from the others. Real HTTP through the front end.
 */
public final class Visitor implements AutoCloseable {
    private final HttpClient http = new HttpClient();
    private final String userAgent;

    public Visitor(String address, String userAgent) throws Exception {
        this.userAgent = userAgent;
        http.setUserAgentField(null);
        http.setBindAddress(new InetSocketAddress(address, 0));
        http.start();
    }

    /** GETs {@code path} from the front end; the status. */
    public int get(URI front, String path) throws Exception {
        return http.newRequest(front.resolve(path)).headers(h -> h.put(HttpHeader.USER_AGENT, userAgent))
                .timeout(10, TimeUnit.SECONDS).send().getStatus();
    }

    @Override
    public void close() {
        try {
            http.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the client", e);
        }
    }
}
