package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.Reason;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.server.front.wire.RawClient;
import io.sluice.server.front.wire.RawMessage;
import io.sluice.server.front.wire.RawUpstream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which requests the lean path takes and which it hands to Jetty's proxy path: the correctness suites prove that
 * both paths answer alike, this proves the common case really is served on the lean path (the server's handlers
 * never see it), that the rest is handed over, and that the engine is asked once per request either way.
 */
class LeanPathTest {
    private static final String HOST = "Host: site.example\r\n";

    private final AtomicInteger handled = new AtomicInteger();
    private RawUpstream upstream;
    private Server server;
    private LeanConnector connector;
    private ThrottleEngine engine;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    @Test
    void theCommonCaseNeverReachesTheServersHandlersAndReusesOneUpstreamConnection() throws Exception {
        start(FrontUnderTest.ADMIT_ALL);
        try (RawClient client = new RawClient(connector.getLocalPort())) {
            for (int i = 0; i < 5; i++) {
                assertThat(client.send("GET /" + i + " HTTP/1.1\r\n" + HOST + "\r\n").response().bodyText())
                        .isEqualTo("GET /" + i + " 0");
            }
            assertThat(client.send("POST /form HTTP/1.1\r\n" + HOST + "Content-Length: 5\r\n\r\nhello").response()
                    .bodyText()).isEqualTo("POST /form 5");
        }

        assertThat(handled).as("requests that went through Jetty's handlers").hasValue(0);
        assertThat(upstream.connectionsAccepted()).as("upstream connections opened").isEqualTo(1);
    }

    @Test
    void whatIsNotTheCommonCaseIsHandedOverAndTheConnectionStaysOnTheProxyPath() throws Exception {
        start(FrontUnderTest.ADMIT_ALL);
        try (RawClient client = new RawClient(connector.getLocalPort())) {
            assertThat(client.send("GET /lean HTTP/1.1\r\n" + HOST + "\r\n").response().status()).isEqualTo(200);
            assertThat(handled).hasValue(0);

            assertThat(client.send("POST /chunked HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n0\r\n\r\n").response().bodyText()).isEqualTo("POST /chunked 3");
            assertThat(client.send("GET /after HTTP/1.1\r\n" + HOST + "\r\n").response().bodyText())
                    .isEqualTo("GET /after 0");
        }

        assertThat(handled).as("the chunked request, then the next one on the same connection").hasValue(2);
    }

    @Test
    void theEngineIsAskedOncePerRequestWhenTheLeanPathHandsARefusalOver() throws Exception {
        start(FrontUnderTest.ADMIT_ALL.withHitStack(new Policy.HitStack(15, 3)));
        try (RawClient client = new RawClient(connector.getLocalPort())) {
            for (int i = 0; i < 3; i++) {
                assertThat(client.send("GET / HTTP/1.1\r\n" + HOST + "\r\n").response().status()).isEqualTo(200);
            }
            assertThat(client.send("GET / HTTP/1.1\r\n" + HOST + "\r\n").response().status()).isEqualTo(503);
        }

        long decisions = 0;
        for (ClassCounts counts : engine.snapshot().totals().values()) {
            decisions += counts.admitted() + counts.delayed();
            decisions += counts.refused().values().stream().mapToLong(Long::longValue).sum();
        }
        assertThat(decisions).as("decisions the engine made").isEqualTo(4);
        assertThat(handled).as("only the refusal went through Jetty's handlers").hasValue(1);
    }

    @Test
    void aDecisionPendingOnTheClustersStoreIsForwardedOnTheLeanPathWhenTheStoreAnswers() throws Exception {
        try (AnsweringLater store = new AnsweringLater(3)) {
            start(FrontUnderTest.ADMIT_ALL, store);
            servedThreeThenRefused(store);
        }
    }

    @Test
    void connectionsWhoseRequestsTheStoreRefusedLaterServeTheirNextRequestsOnJettysPath() throws Exception {
        try (AnsweringLater store = new AnsweringLater(0)) {
            start(FrontUnderTest.ADMIT_ALL, store);
            // The socket stays registered for reading while the store answers, and Jetty's connection, which takes
            // the refusal over, registers it again when it needs the next request: two registrations would close
            // the connection, unless the next request's bytes happen to come first (so ten connections, not one).
            for (int connection = 0; connection < 10; connection++) {
                try (RawClient client = new RawClient(connector.getLocalPort())) {
                    for (int i = 0; i < 3; i++) {
                        RawMessage refused = client.send("GET /" + i + " HTTP/1.1\r\n" + HOST + "\r\n").response();
                        assertThat(refused).as("request %d of connection %d", i, connection).isNotNull();
                        assertThat(refused.status()).isEqualTo(503);
                    }
                }
            }
            assertThat(store.asked).as("every request asked once").hasValue(30);
        }
    }

    @Test
    void aRequestPipelinedBehindOneWaitingForTheStoreIsServedAfterIt() throws Exception {
        try (AnsweringLater store = new AnsweringLater(2)) {
            start(FrontUnderTest.ADMIT_ALL, store);
            try (RawClient client = new RawClient(connector.getLocalPort())) {
                client.send("GET /first HTTP/1.1\r\n" + HOST + "\r\nGET /second HTTP/1.1\r\n" + HOST + "\r\n");
                assertThat(client.response().bodyText()).isEqualTo("GET /first 0");
                assertThat(client.response().bodyText()).isEqualTo("GET /second 0");
            }
            assertThat(handled).as("both on the lean path").hasValue(0);
        }
    }

    @Test
    void aClientThatLeavesWhileTheStoreDecidesHoldsNoSlot() throws Exception {
        try (AnsweringLater store = new AnsweringLater(1)) {
            start(FrontUnderTest.ADMIT_ALL, store);
            try (RawClient client = new RawClient(connector.getLocalPort())) {
                client.send("GET /gone HTTP/1.1\r\n" + HOST + "\r\n");
            }
            assertThat(store.releases.tryAcquire(10, TimeUnit.SECONDS)).as("the admitted slot given back").isTrue();
            assertThat(store.released).hasValue(1);
        }
    }

    private void servedThreeThenRefused(AnsweringLater store) throws Exception {
        try (RawClient client = new RawClient(connector.getLocalPort())) {
            for (int i = 0; i < 3; i++) {
                assertThat(client.send("GET /" + i + " HTTP/1.1\r\n" + HOST + "\r\n").response().bodyText())
                        .isEqualTo("GET /" + i + " 0");
            }
            assertThat(handled).as("admissions the store answered later, through Jetty's handlers").hasValue(0);

            assertThat(client.send("GET /fourth HTTP/1.1\r\n" + HOST + "\r\n").response().status())
                    .as("the store refuses the fourth").isEqualTo(503);
        }

        assertThat(store.asked).as("one question to the store per request").hasValue(4);
        assertThat(store.answeredLater).as("answers that came after the decision returned").hasValue(4);
        assertThat(store.released).as("slots given back by the three served requests").hasValue(3);
        assertThat(handled).as("only the refusal went through Jetty's handlers").hasValue(1);
        assertThat(upstream.connectionsAccepted()).isEqualTo(1);
    }

    /** A cluster's store that answers on a thread of its own a moment later, admitting the first {@code admits}. */
    private static final class AnsweringLater implements SharedClientStore<Integer>, AutoCloseable {
        private final ScheduledExecutorService answers = Executors.newSingleThreadScheduledExecutor();
        private final int admits;
        final AtomicInteger asked = new AtomicInteger();
        final AtomicInteger answeredLater = new AtomicInteger();
        final AtomicInteger released = new AtomicInteger();
        /** A permit per slot given back, for a test to wait on. */
        final Semaphore releases = new Semaphore(0);

        AnsweringLater(int admits) {
            this.admits = admits;
        }

        @Override
        public boolean available() {
            return true;
        }

        @Override
        public int nodes() {
            return 1;
        }

        @Override
        public CompletableFuture<Verdict<Integer>> admit(Ask ask) {
            int n = asked.incrementAndGet();
            CompletableFuture<Verdict<Integer>> verdict = new CompletableFuture<>();
            answers.schedule(() -> {
                answeredLater.incrementAndGet();
                verdict.complete(n <= admits ? new Verdict<>(null, 0, n, 15_000, n)
                        : new Verdict<>(Reason.HIT_STACK, 15_000, n, 15_000, null));
            }, 20, TimeUnit.MILLISECONDS);
            return verdict;
        }

        @Override
        public void release(Integer lease, boolean served) {
            released.incrementAndGet();
            releases.release();
        }

        @Override
        public void countExempt(Ask ask) {
            // keeps no hit stacks
        }

        @Override
        public void close() {
            answers.shutdownNow();
        }
    }

    private void start(Policy policy) throws Exception {
        start(policy, null);
    }

    private void start(Policy policy, SharedClientStore<?> shared) throws Exception {
        upstream = RawUpstream.answering(request -> RawUpstream.ok(request.method() + " " + request.target() + " "
                + request.body().length));
        engine = new ThrottleEngine(EngineConfig.defaults(), FrontUnderTest.CLOCK, policy,
                CrawlerListClassifier.bundled(), null, shared);
        server = new Server();
        connector = PublicConnector.createLean(server, "127.0.0.1", 0, new LeanForwarding(engine,
                FrontUnderTest.CLOCK, null, upstream.uri(), Duration.ofSeconds(10), Duration.ofSeconds(30)));
        server.addConnector(connector);
        Handler proxy = UpstreamProxy.to(upstream.uri(), Duration.ofSeconds(10), 0);
        server.setHandler(new Handler.Wrapper(new ThrottleHandler(engine, FrontUnderTest.CLOCK, null, proxy)) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                handled.incrementAndGet();
                return super.handle(request, response, callback);
            }
        });
        server.start();
    }
}
