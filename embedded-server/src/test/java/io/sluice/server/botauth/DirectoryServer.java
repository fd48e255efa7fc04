package io.sluice.server.botauth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * A key directory server on 127.0.0.1 for tests: the well-known path serves {@code directory}; {@code /big} a body
 * larger than any limit, {@code /slow} never answers (until closed), {@code /missing} 404, {@code /moved} a redirect.
 */
final class DirectoryServer {

    private final Server server = new Server();
    private final ServerConnector connector = new ServerConnector(server);
    private final List<Callback> held = new CopyOnWriteArrayList<>();
    final AtomicInteger requests = new AtomicInteger();
    volatile String directory;

    DirectoryServer(String directory) throws Exception {
        this.directory = directory;
        connector.setHost("127.0.0.1");
        // Sluice's fetcher keeps its connection here open between fetches, and the server under test is stopped after
        // this one: at a stop, a quiet connection is closed after 100 ms, well within the grace (it was a second
        // each, and the stop failed when the idle timeout lost that race on a loaded machine)
        connector.setShutdownIdleTimeout(100);
        server.setStopTimeout(5_000);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                requests.incrementAndGet();
                String path = request.getHttpURI().getPath();
                switch (path) {
                    case "/slow" -> held.add(callback);
                    case "/big" -> {
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                        response.write(true, ByteBuffer.wrap(new byte[200_000]), callback);
                    }
                    case "/moved" -> {
                        response.setStatus(302);
                        response.getHeaders().put(HttpHeader.LOCATION, AgentUrl.WELL_KNOWN);
                        callback.succeeded();
                    }
                    case AgentUrl.WELL_KNOWN -> {
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, HttpDirectoryFetcher.MEDIA_TYPE);
                        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "public, max-age=3600");
                        response.write(true, ByteBuffer.wrap(DirectoryServer.this.directory
                                .getBytes(StandardCharsets.UTF_8)), callback);
                    }
                    default -> {
                        response.setStatus(404);
                        callback.succeeded();
                    }
                }
                return true;
            }
        });
        server.start();
    }

    /** {@code http://127.0.0.1:PORT} and {@code path}. */
    String url(String path) {
        return "http://127.0.0.1:" + connector.getLocalPort() + path;
    }

    String authority() {
        return "127.0.0.1:" + connector.getLocalPort();
    }

    void close() throws Exception {
        held.forEach(Callback::succeeded);
        server.stop();
    }
}
