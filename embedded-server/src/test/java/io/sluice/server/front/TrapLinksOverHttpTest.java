package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Agents;
import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.testkit.Servers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.zip.GZIPOutputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agents.trap.injectLinks} through a real front end (the default lean path, which hands such pages to the
 * proxy path) to an upstream on loopback: an HTML page gets the hidden link once, before {@code </body}, with its
 * {@code Content-Length} still exact; a compressed page, another type and every page while the option is off pass
 * through byte for byte.
 */
class TrapLinksOverHttpTest {
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "test");
    private static final String LINK = "<a href=\"/.sluice-trap/\" rel=\"nofollow\" hidden aria-hidden=\"true\""
            + " tabindex=\"-1\"></a>";
    private static final String FIREFOX =
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0";
    private static final byte[] GZIPPED = gzip("<html><body>compressed</body></html>");

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private SluiceServer server;

    @BeforeEach
    void start() throws Exception {
        URI upstream = upstream();
        server = servers.add(SluiceServer.start(new ServerConfig(new HostPort("127.0.0.1", 0), upstream,
                new HostPort("127.0.0.1", 0), state, null, false, false, null, Duration.ofSeconds(10), null)));
    }

    @Test
    void anHtmlPageGetsTheLinkOnceBeforeItsBodyEndWithAnExactLength() throws Exception {
        injectLinks(true);

        HttpResponse<byte[]> page = get("/page.html");
        String body = new String(page.body(), StandardCharsets.UTF_8);
        assertThat(body).isEqualTo("<html><body><p>hi</p>" + LINK + "</body></html>");
        assertThat(page.headers().firstValueAsLong("Content-Length")).hasValue(page.body().length);
        assertThat(page.headers().firstValue("ETag")).hasValue("W/\"v1\"");

        assertThat(new String(get("/fragment.html").body(), StandardCharsets.UTF_8))
                .as("no </body>: at the end").isEqualTo("<p>a fragment</p>" + LINK);
        assertThat(get("/page.gz.html").body()).as("a compressed page is never decoded").isEqualTo(GZIPPED);
        assertThat(new String(get("/data.json").body(), StandardCharsets.UTF_8)).isEqualTo("{\"body\":\"</body>\"}");
        assertThat(get("/.sluice-trap/").statusCode()).as("following the link is the trap").isEqualTo(403);
    }

    @Test
    void withTheOptionOffEveryPagePassesUntouched() throws Exception {
        injectLinks(false);

        HttpResponse<byte[]> page = get("/page.html");
        assertThat(new String(page.body(), StandardCharsets.UTF_8)).isEqualTo("<html><body><p>hi</p></body></html>");
        assertThat(page.headers().firstValue("ETag")).hasValue("\"v1\"");
    }

    private void injectLinks(boolean on) {
        server.policyChanges().edit(OPERATOR, p -> p.withAgents(p.agents().withTrap(
                new Agents.Trap("/.sluice-trap/", null, null, on))));
    }

    private HttpResponse<byte[]> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(server.frontUri().resolve(path)).timeout(Duration.ofSeconds(10))
                .header("User-Agent", FIREFOX).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The site: its pages written in two parts, the second starting inside {@code </body>}. */
    private URI upstream() throws Exception {
        Server site = new Server();
        ServerConnector connector = new ServerConnector(site, 1, 1);
        connector.setHost("127.0.0.1");
        site.addConnector(connector);
        site.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String path = request.getHttpURI().getPath();
                switch (path) {
                    case "/page.html" -> {
                        response.getHeaders().put(HttpHeader.ETAG, "\"v1\"");
                        twoParts(response, "text/html; charset=utf-8", "<html><body><p>hi</p></bo", "dy></html>",
                                callback);
                    }
                    case "/fragment.html" -> twoParts(response, "text/html", "<p>a frag", "ment</p>", callback);
                    case "/data.json" -> twoParts(response, "application/json", "{\"body\":\"</bo", "dy>\"}",
                            callback);
                    case "/page.gz.html" -> {
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html");
                        response.getHeaders().put(HttpHeader.CONTENT_ENCODING, "gzip");
                        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, GZIPPED.length);
                        response.write(true, ByteBuffer.wrap(GZIPPED), callback);
                    }
                    default -> {
                        response.setStatus(404);
                        callback.succeeded();
                    }
                }
                return true;
            }
        });
        site.start();
        servers.add(site::stop);
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }

    private static void twoParts(Response response, String type, String first, String second, Callback callback) {
        byte[] one = first.getBytes(StandardCharsets.UTF_8);
        byte[] two = second.getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, one.length + two.length);
        response.write(false, ByteBuffer.wrap(one), Callback.from(
                () -> response.write(true, ByteBuffer.wrap(two), callback), callback::failed));
    }

    private static byte[] gzip(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }
}
