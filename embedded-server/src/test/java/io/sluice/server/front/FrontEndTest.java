package io.sluice.server.front;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every rule end to end: real HTTP over loopback, through the front end, to a real upstream. Every case runs on
 * every {@link FrontPath} (the cases with a site handler instead of an upstream have no lean path: they run the
 * same on both).
 */
@ParameterizedClass
@EnumSource(FrontPath.class)
class FrontEndTest {
    @Parameter
    FrontPath path;

    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    private static final String CURL = "curl/8.5.0";
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-22T12:00:00Z"));

    private final List<String> upstreamUserAgents = new CopyOnWriteArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private HttpClient client;
    private ThrottleEngine engine;
    private AccessLog accessLog;
    private long connectorIdleTimeoutMillis = 30_000;

    @BeforeEach
    void startClient() throws Exception {
        client = new HttpClient();
        client.setUserAgentField(null);
        client.start();
    }

    @AfterEach
    void stop() throws Exception {
        client.stop();
        for (Server server : servers) {
            server.stop();
        }
    }

    @Test
    void anAdmittedRequestReachesTheUpstreamWithTheClientsOwnUserAgent() throws Exception {
        URI front = frontFor(echoUpstream(), Policy.defaults());

        ContentResponse response = get(front, "/hello", FIREFOX, null);

        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getContentAsString()).isEqualTo("upstream saw /hello");
        assertThat(upstreamUserAgents).containsExactly(FIREFOX);
        awaitSettled();
    }

    @Test
    void theHitStackRefusesTheEleventhHitWithAnHtmlPageForBrowsers() throws Exception {
        URI front = frontFor(echoUpstream(), Policy.defaults());
        for (int i = 0; i < 10; i++) {
            assertThat(get(front, "/", FIREFOX, null).getStatus()).isEqualTo(200);
        }

        ContentResponse refused = get(front, "/", FIREFOX, "text/html");

        assertThat(refused.getStatus()).isEqualTo(503);
        assertThat(refused.getHeaders().get(HttpHeader.RETRY_AFTER)).isNotBlank();
        assertThat(refused.getHeaders().get(HttpHeader.CACHE_CONTROL)).isEqualTo("no-store");
        assertThat(refused.getMediaType()).isEqualTo("text/html");
        assertThat(refused.getContentAsString()).contains("Too many requests", "HIT_STACK");
        assertThat(upstreamUserAgents).hasSize(10);
    }

    @Test
    void aBotAskingForJsonGetsProblemJsonAndRateLimitHeaders() throws Exception {
        URI front = frontFor(echoUpstream(), Policy.defaults());

        ContentResponse admitted = get(front, "/", CURL, "application/json");
        assertThat(admitted.getHeaders().get("RateLimit-Policy")).isEqualTo("\"hits\";q=10;w=15");
        assertThat(admitted.getHeaders().get("RateLimit")).startsWith("\"hits\";r=9;");
        for (int i = 0; i < 9; i++) {
            get(front, "/", CURL, "application/json");
        }

        ContentResponse refused = get(front, "/", CURL, "application/json");

        assertThat(refused.getStatus()).isEqualTo(503);
        assertThat(refused.getMediaType()).isEqualTo("application/problem+json");
        assertThat(refused.getContentAsString()).contains("\"reason\":\"HIT_STACK\"", "\"status\":503");
        assertThat(refused.getHeaders().get("RateLimit")).startsWith("\"hits\";r=0;");
    }

    @Test
    void aCrawlerIsSpacedOutAndToldWhenToComeBack() throws Exception {
        // a verified Googlebot: loopback declared as its address (a copy of its user agent elsewhere is a bot)
        URI front = frontFor(echoUpstream(), Policy.defaults().withCrawlers(new Policy.Crawlers(30, 2, true,
                Map.of("Googlebot", List.of("127.0.0.1")))));
        String googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

        assertThat(get(front, "/", googlebot, null).getStatus()).isEqualTo(200);
        ContentResponse second = get(front, "/", googlebot, "application/json");

        assertThat(second.getStatus()).isEqualTo(503);
        assertThat(second.getHeaders().get(HttpHeader.RETRY_AFTER)).isEqualTo("30");
        assertThat(second.getContentAsString()).contains("\"reason\":\"CRAWLER_SPACING\"");
    }

    @Test
    void aClientWithTooManyRequestsInFlightIsRefused() throws Exception {
        URI slow = slowUpstream(500);
        URI front = frontFor(slow, Policy.defaults().withPerClient(new Policy.PerClient(1)));
        var first = new CompletableFuture<Integer>();
        client.newRequest(front.resolve("/")).headers(h -> h.put(HttpHeader.USER_AGENT, FIREFOX))
                .send(result -> first.complete(result.getResponse().getStatus()));
        await(() -> engine.snapshot().load().inFlight() > 0, "the first request in flight");

        ContentResponse second = get(front, "/", FIREFOX, "application/json");

        assertThat(second.getStatus()).isEqualTo(503);
        assertThat(second.getContentAsString()).contains("\"reason\":\"CLIENT_CONCURRENCY\"");
        assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo(200);
    }

    @Test
    void aBannedUserAgentIsRefusedWith403OnTheNextRequest() throws Exception {
        URI front = frontFor(echoUpstream(), Policy.defaults());
        assertThat(get(front, "/", CURL, null).getStatus()).isEqualTo(200);

        engine.updatePolicy(p -> p.withBans(List.of(new Ban("b1", BanType.AGENT, "curl", "test", "ops",
                CLOCK.instant(), null))));

        assertThat(get(front, "/", CURL, null).getStatus()).isEqualTo(403);
        assertThat(get(front, "/", FIREFOX, null).getStatus()).isEqualTo(200);
    }

    @Test
    void aForwardedForHeaderFromAnUntrustedPeerCannotDodgeABan() throws Exception {
        Policy banLoopback = Policy.defaults().withBans(List.of(new Ban("b1", BanType.IP, "127.0.0.0/8", "test",
                "ops", CLOCK.instant(), null)));
        URI front = frontFor(echoUpstream(), banLoopback);

        ContentResponse spoofed = client.newRequest(front.resolve("/"))
                .headers(h -> h.put(HttpHeader.USER_AGENT, FIREFOX).put(HttpHeader.X_FORWARDED_FOR, "203.0.113.9"))
                .timeout(5, TimeUnit.SECONDS).send();

        assertThat(spoofed.getStatus()).isEqualTo(403);
    }

    @Test
    void anUpstreamThatIsDownGivesA502AndFreesTheLoadSlot() throws Exception {
        URI front = frontFor(URI.create("http://127.0.0.1:" + unusedPort()), Policy.defaults());

        ContentResponse response = get(front, "/", CURL, null);

        assertThat(response.getStatus()).isEqualTo(502);
        awaitSettled();
    }

    @Test
    void aSlowUpstreamGivesA504AfterTheTimeoutAndFreesTheLoadSlot() throws Exception {
        // Answers long after the proxy's 300 ms timeout.
        URI slow = slowUpstream(3000);
        URI front = frontFor(slow, Policy.defaults(), Duration.ofMillis(300));

        ContentResponse response = get(front, "/", CURL, null);

        assertThat(response.getStatus()).isEqualTo(504);
        awaitSettled();
    }

    @Test
    void aSiteHandlerThatThrowsGivesA500AndFreesTheLoadSlot() throws Exception {
        URI front = frontBefore(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                throw new IllegalStateException("a broken site handler");
            }
        });

        assertThat(get(front, "/", FIREFOX, null).getStatus()).isEqualTo(500);
        awaitSettled();
    }

    @Test
    void aSiteHandlerThatThrowsAfterAnsweringKeepsItsAnswerAndIsCompletedOnce(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("access.log");
        accessLog = AccessLog.open(file.toString());
        URI front = frontBefore(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                try (Blocker.Callback written = Blocker.callback()) {
                    Content.Sink.write(response, true, "answered", written);
                    written.block();
                }
                callback.succeeded();
                throw new IllegalStateException("thrown after the answer was complete");
            }
        });

        ContentResponse response = get(front, "/", FIREFOX, null);

        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getContentAsString()).isEqualTo("answered");
        awaitSettled();
        await(() -> lineCount(file) >= 1, "the access log's line");
        accessLog.close();
        assertThat(Files.readAllLines(file)).singleElement().asString().endsWith("sluice=ADMIT");
    }

    @Test
    void waitingRequestsHoldNoThreadSoATinyPoolStillAnswersThemAll() throws Exception {
        URI slow = slowUpstream(400);
        Policy tight = Policy.defaults().withLoad(new Policy.Load(1, 50, 100))
                .withHitStack(new Policy.HitStack(15, 1000))
                .withPerClient(new Policy.PerClient(100));
        URI front = frontFor(slow, tight, Duration.ofSeconds(5), new QueuedThreadPool(8, 2));

        int requests = 30;
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            CompletableFuture<Integer> answer = new CompletableFuture<>();
            client.newRequest(front.resolve("/")).headers(h -> h.put(HttpHeader.USER_AGENT, CURL))
                    .timeout(10, TimeUnit.SECONDS)
                    .send(result -> answer.complete(result.getResponse() == null ? -1 : result.getResponse()
                            .getStatus()));
            answers.add(answer);
        }
        List<Integer> statuses = new ArrayList<>();
        for (var answer : answers) {
            statuses.add(answer.get(15, TimeUnit.SECONDS));
        }

        assertThat(statuses).hasSize(requests).allMatch(s -> s == 200 || s == 503);
        assertThat(statuses).contains(200, 503);
        awaitSettled();
        assertThat(engine.snapshot().load().waiting()).isZero();
    }

    @Test
    void theThrottleInFrontOfTheProxyNeverBlocksSoJettyNeedNotHandItToAnotherThread() throws Exception {
        engine = new ThrottleEngine(EngineConfig.defaults(), CLOCK, Policy.defaults(), CrawlerListClassifier.bundled());
        Handler proxied = new ThrottleHandler(engine, CLOCK, null,
                UpstreamProxy.to(echoUpstream(), Duration.ofSeconds(5)));
        Handler blockingSite = new ThrottleHandler(engine, CLOCK, null, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                return false;
            }
        });

        assertThat(proxied.getInvocationType()).isEqualTo(Invocable.InvocationType.NON_BLOCKING);
        assertThat(blockingSite.getInvocationType()).as("a site that may block is declared so")
                .isEqualTo(Invocable.InvocationType.BLOCKING);
    }

    /**
     * The client can see the response a moment before the server's completion callback runs (and frees
     * the slot): wait for that, bounded, instead of asserting on a race.
     */
    private void awaitSettled() {
        await(() -> engine.snapshot().load().inFlight() == 0, "no request in flight");
    }

    private ContentResponse get(URI base, String path, String userAgent, String accept) throws Exception {
        return client.newRequest(base.resolve(path))
                .headers(h -> {
                    h.put(HttpHeader.USER_AGENT, userAgent);
                    if (accept != null) {
                        h.put(HttpHeader.ACCEPT, accept);
                    }
                })
                .timeout(10, TimeUnit.SECONDS).send();
    }

    /** An upstream that answers after {@code millis}, without holding a thread meanwhile. */
    private URI slowUpstream(long millis) throws Exception {
        return upstream(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                request.getComponents().getScheduler().schedule(() -> Content.Sink.write(response, true, "ok",
                        callback), millis, TimeUnit.MILLISECONDS);
                return true;
            }
        });
    }

    private URI echoUpstream() throws Exception {
        return upstream(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                upstreamUserAgents.addAll(request.getHeaders().getValuesList(HttpHeader.USER_AGENT));
                Content.Sink.write(response, true, "upstream saw " + request.getHttpURI().getPath(), callback);
                return true;
            }
        });
    }

    private URI upstream(Handler handler) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(handler);
        server.start();
        servers.add(server);
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }

    @Test
    void aParkedRequestWhoseConnectionFailsGivesItsWaitingPlaceBack() throws Exception {
        // One request in flight fills the load limit; a bot's request is then parked for a minute, and its
        // connection fails under it (here: the connector's idle timeout, as for a client that went away).
        connectorIdleTimeoutMillis = 500;
        URI front = frontFor(slowUpstream(3_000), Policy.defaults().withLoad(new Policy.Load(1, 5, 60_000)));
        client.newRequest(front.resolve("/")).headers(h -> h.put(HttpHeader.USER_AGENT, FIREFOX))
                .timeout(10, TimeUnit.SECONDS).send(r -> { });
        await(() -> engine.snapshot().load().inFlight() == 1, "one request in flight");
        try (Socket bot = new Socket("127.0.0.1", front.getPort())) {
            bot.getOutputStream().write(("GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: " + CURL + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            bot.getOutputStream().flush();
            await(() -> engine.snapshot().load().waiting() == 1, "one request waiting");

            await(() -> engine.snapshot().load().waiting() == 0, "no request waiting");
        }
    }

    private static int lineCount(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).size() : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theAccessLogIsCombinedFormatWithTheBodyBytesAndTheDecision(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("access.log");
        accessLog = AccessLog.open(file.toString());
        URI front = frontFor(echoUpstream(), Policy.defaults().withHitStack(new Policy.HitStack(15, 1)));

        get(front, "/hello?x=1", FIREFOX, null);
        get(front, "/again", FIREFOX, null);
        // A line is written when its response is done, which the client may see a moment before.
        await(() -> lineCount(file) == 2, "the access log's two lines");
        accessLog.close();

        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).isEqualTo("127.0.0.1 - - [22/Nov/2026:12:00:00 +0000] \"GET /hello?x=1 HTTP/1.1\" "
                + "200 19 \"-\" \"" + FIREFOX + "\" sluice=ADMIT");
        assertThat(lines.get(1)).startsWith("127.0.0.1 - - [22/Nov/2026:12:00:00 +0000] \"GET /again HTTP/1.1\" 503 ")
                .endsWith("sluice=REFUSE:HIT_STACK");
    }

    private URI frontFor(URI upstream, Policy policy) throws Exception {
        return frontFor(upstream, policy, Duration.ofSeconds(5));
    }

    private URI frontFor(URI upstream, Policy policy, Duration timeout) throws Exception {
        return frontFor(upstream, policy, timeout, new QueuedThreadPool());
    }

    private URI frontFor(URI upstream, Policy policy, Duration timeout, QueuedThreadPool threads) throws Exception {
        return front(upstream, UpstreamProxy.to(upstream, timeout), policy, threads, timeout);
    }

    /** The throttle handler in front of {@code site} itself (no proxy), under the default policy. */
    private URI frontBefore(Handler site) throws Exception {
        return front(null, site, Policy.defaults(), new QueuedThreadPool(), null);
    }

    /** @param upstream where the lean path forwards, or null for a site handler in the same server */
    private URI front(URI upstream, Handler next, Policy policy, QueuedThreadPool threads, Duration timeout)
            throws Exception {
        engine = new ThrottleEngine(EngineConfig.defaults(), CLOCK, policy, CrawlerListClassifier.bundled());
        Server server = new Server(threads);
        ServerConnector connector = path == FrontPath.LEAN && upstream != null
                ? LeanConnector.create(server, PublicConnector.anonymousHttp(), new LeanForwarding(engine, CLOCK,
                        accessLog, upstream, timeout, Duration.ofSeconds(30)))
                : new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setIdleTimeout(connectorIdleTimeoutMillis);
        server.addConnector(connector);
        server.setHandler(new ThrottleHandler(engine, CLOCK, accessLog, next));
        server.start();
        servers.add(server);
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }

    private static int unusedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }
}
