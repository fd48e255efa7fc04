package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Route;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.CostSummary;
import io.sluice.engine.telemetry.Snapshot;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What each admitted request cost the upstream, as the front end reports it to the engine on both paths: the
 * upstream's time (to its first byte and whole), the request's body in and the response's body out.
 */
@ParameterizedClass
@EnumSource(FrontPath.class)
class RequestCostTest {
    @Parameter
    FrontPath path;

    private static final String CURL = "curl/8.5.0";
    private static final int PAGE_BYTES = 1_000;
    private static final long SEARCH_MILLIS = 300;

    private final List<Server> servers = new ArrayList<>();
    private HttpClient client;
    private FrontUnderTest front;

    @BeforeEach
    void startClient() throws Exception {
        client = new HttpClient();
        client.setUserAgentField(null);
        client.start();
    }

    @AfterEach
    void stop() throws Exception {
        client.stop();
        if (front != null) {
            front.close();
        }
        for (Server server : servers) {
            server.stop();
        }
    }

    @Test
    void aSlowRouteShowsItsShareAndBytesAreCountedBothWays() throws Exception {
        List<Route> routes = new ArrayList<>();
        routes.add(new Route(Route.Match.PREFIX, "/search", null, List.of(), List.of(), List.of(), 1, null, null));
        routes.addAll(Route.DEFAULTS);
        front = FrontUnderTest.start(path, site(), FrontUnderTest.ADMIT_ALL.withRoutes(routes));
        URI base = URI.create("http://127.0.0.1:" + front.port() + "/");

        for (int i = 0; i < 4; i++) {
            assertThat(send(base, HttpMethod.GET, "/page/" + i, 0).getContentAsString()).hasSize(PAGE_BYTES);
        }
        assertThat(send(base, HttpMethod.POST, "/search", 2_000).getContentAsString()).isEqualTo("read 2000");

        Snapshot snapshot = settled(5);
        Cost bots = snapshot.costTotals().get(RequestClass.BOT);
        assertThat(bots.requests()).isEqualTo(5);
        assertThat(bots.weight()).isEqualTo(5);
        assertThat(bots.bytesIn()).isEqualTo(2_000);
        assertThat(bots.bytesOut()).isEqualTo(4 * PAGE_BYTES + "read 2000".length());
        assertThat(bots.upstreamMicros()).isGreaterThanOrEqualTo(SEARCH_MILLIS * 1_000);
        assertThat(bots.firstByteMicros()).isGreaterThanOrEqualTo(SEARCH_MILLIS * 1_000)
                .isLessThanOrEqualTo(bots.upstreamMicros());
        CostSummary summary = snapshot.costSummary();
        assertThat(summary.byRoute().key()).isEqualTo("/search");
        assertThat(summary.byRoute().share()).isGreaterThan(0.5);
        assertThat(summary.byNetwork().key()).isEqualTo("127.0.0.0/24");
        assertThat(snapshot.networks()).singleElement().satisfies(network -> {
            assertThat(network.cost().bytesIn()).isEqualTo(2_000);
            assertThat(network.upstreamShare()).isEqualTo(1.0);
        });
        assertThat(snapshot.costliestClients()).singleElement()
                .satisfies(row -> assertThat(row.cost().bytesOut()).isEqualTo(bots.bytesOut()));
    }

    private ContentResponse send(URI base, HttpMethod method, String target, int bodyBytes) throws Exception {
        var request = client.newRequest(base.resolve(target)).method(method)
                .headers(h -> h.put(HttpHeader.USER_AGENT, CURL)).timeout(10, TimeUnit.SECONDS);
        if (bodyBytes > 0) {
            request.body(new BytesRequestContent("application/octet-stream", new byte[bodyBytes]));
        }
        ContentResponse response = request.send();
        assertThat(response.getStatus()).isEqualTo(200);
        return response;
    }

    /** The snapshot once {@code requests} were completed (a response reaches the client just before). */
    private Snapshot settled(int requests) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            Snapshot snapshot = front.engine().snapshot();
            Cost bots = snapshot.costTotals().get(RequestClass.BOT);
            if (bots != null && bots.requests() >= requests || System.nanoTime() > deadline) {
                return snapshot;
            }
            Thread.sleep(5);
        }
    }

    /** Pages of {@link #PAGE_BYTES} at once; a search reads its body and answers after {@link #SEARCH_MILLIS}. */
    private URI site() throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                if (!request.getHttpURI().getPath().startsWith("/search")) {
                    response.write(true, ByteBuffer.wrap("p".repeat(PAGE_BYTES).getBytes()), callback);
                    return true;
                }
                long read = Content.Source.asByteBuffer(request).remaining();
                request.getComponents().getScheduler().schedule(() -> Content.Sink.write(response, true,
                        "read " + read, callback), SEARCH_MILLIS, TimeUnit.MILLISECONDS);
                return true;
            }
        });
        server.start();
        servers.add(server);
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }
}
