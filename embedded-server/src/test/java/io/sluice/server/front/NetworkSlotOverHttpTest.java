package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.NetworkInFlight;
import io.sluice.server.testkit.Await;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A network's in-flight slot (issue 46's per-network concurrency limit) through the front end's handler, in memory:
 * a request whose upstream fails, or whose client hangs up while the upstream works, gives its network's slot back.
 * The network may have one browser claim without a pass in flight, so a leaked slot shows as the next page from that
 * network being challenged instead of served.
 */
class NetworkSlotOverHttpTest {

    private static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";
    private static final String NETWORK = "192.0.2.0/24";

    private final InstantSource clock = InstantSource.fixed(Instant.parse("2026-12-01T10:00:00Z"));
    /** The upstream's requests it holds until the test lets them go: each with its response and callback. */
    private final BlockingQueue<Held> held = new LinkedBlockingQueue<>();
    private Server server;
    private LocalConnector connector;
    private ThrottleEngine engine;

    private record Held(Request request, Response response, Callback callback) {
    }

    @BeforeEach
    void start() throws Exception {
        // adaptive, and never under pressure: what asks is the network's limit of one
        BrowserCheck d = BrowserCheck.DEFAULTS;
        Policy policy = Policy.defaults().withTrustedProxies(List.of("0.0.0.0/0", "::/0"))
                .withBrowserCheck(new BrowserCheck(BrowserCheck.Mode.ADAPTIVE, d.difficulty(), d.passTtlSeconds(),
                        d.noScript(), d.noScriptWaitSeconds(), 100_000, d.pressureHoldSeconds(), d.perPass(),
                        d.networks().withMaxConcurrent(1, 1), d.exemptPaths(), d.alwaysChallenge()));
        engine = new ThrottleEngine(EngineConfig.defaults(), clock, policy, CrawlerListClassifier.bundled());
        server = new Server();
        connector = new LocalConnector(server);
        server.addConnector(connector);
        server.setHandler(new ThrottleHandler(engine, clock, null, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String path = request.getHttpURI().getPath();
                if (path.startsWith("/throws")) {
                    throw new IllegalStateException("the upstream handler broke");
                }
                if (path.startsWith("/fails")) {
                    callback.failed(new java.io.IOException("the upstream hung up"));
                    return true;
                }
                if (path.startsWith("/held")) {
                    held.add(new Held(request, response, callback));
                    return true;
                }
                response.setStatus(200);
                Content.Sink.write(response, true, "the page", callback);
                return true;
            }
        }));
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private static String raw(String target, String from) {
        return "GET " + target + " HTTP/1.1\r\nHost: site\r\nUser-Agent: " + CHROME + "\r\nX-Forwarded-For: " + from
                + "\r\nAccept: text/html\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-Dest: document\r\n\r\n";
    }

    private HttpTester.Response get(String target, String from) throws Exception {
        return HttpTester.parseResponse(connector.getResponse(raw(target, from)));
    }

    private int inFlight() {
        return engine.snapshot().browserCheck().busiestNetworks().stream().filter(r -> r.network().equals(NETWORK))
                .mapToInt(NetworkInFlight::withoutPass).sum();
    }

    @Test
    void aRequestWhoseUpstreamFailsGivesItsNetworksSlotBack() throws Exception {
        for (String broken : List.of("/throws/1", "/fails/1", "/throws/2", "/fails/2")) {
            assertThat(get(broken, "192.0.2.10").getStatus()).as(broken).isEqualTo(500);
            // the admission completes as the failed response is done, which the client may see a moment before
            Await.await(() -> inFlight() == 0, "the network's slot given back after " + broken);
        }
        assertThat(get("/articles/1", "192.0.2.11").getStatus()).isEqualTo(200);
        assertThat(engine.snapshot().browserCheck().overNetworkConcurrency()).isZero();
    }

    @Test
    void aClientThatHangsUpWhileTheUpstreamWorksGivesItsNetworksSlotBack() throws Exception {
        LocalConnector.LocalEndPoint client = connector.executeRequest(raw("/held/1", "192.0.2.10"));
        Held upstream = held.poll(30, TimeUnit.SECONDS);
        assertThat(upstream).as("the upstream has the request").isNotNull();
        // while it runs, the network's one slot is taken: its next page is asked to prove a browser
        HttpTester.Response busy = get("/articles/1", "192.0.2.11");
        assertThat(busy.getStatus()).isEqualTo(403);
        assertThat(engine.snapshot().browserCheck().overNetworkConcurrency()).isEqualTo(1);
        assertThat(inFlight()).isEqualTo(1);

        client.close();
        // the upstream answers a connection that is gone: the write fails, the admission completes
        upstream.response().setStatus(200);
        Content.Sink.write(upstream.response(), true, "too late", upstream.callback());
        Await.await(() -> inFlight() == 0, "the network's slot given back");
        assertThat(get("/articles/2", "192.0.2.12").getStatus()).isEqualTo(200);
    }

    @Test
    void aClientThatHangsUpBeforeItsAnswerIsWrittenWhoseUpstreamThenFailsGivesItBackOnce() throws Exception {
        LocalConnector.LocalEndPoint client = connector.executeRequest(raw("/held/2", "192.0.2.10"));
        Held upstream = held.poll(30, TimeUnit.SECONDS);
        assertThat(upstream).isNotNull();
        client.close();
        upstream.callback().failed(new java.io.IOException("the upstream hung up too"));
        upstream.callback().failed(new java.io.IOException("and said so twice"));
        Await.await(() -> inFlight() == 0, "the network's slot given back");
        // one slot, given back once: the network holds one request again, not two
        LocalConnector.LocalEndPoint again = connector.executeRequest(raw("/held/3", "192.0.2.13"));
        Held next = held.poll(30, TimeUnit.SECONDS);
        assertThat(next).isNotNull();
        assertThat(get("/articles/3", "192.0.2.14").getStatus()).isEqualTo(403);
        next.response().setStatus(200);
        Content.Sink.write(next.response(), true, "done", next.callback());
        assertThat(HttpTester.parseResponse(again.waitForResponse(false, 30, TimeUnit.SECONDS)).getStatus())
                .isEqualTo(200);
        Await.await(() -> inFlight() == 0, "the network's slot given back");
    }
}
