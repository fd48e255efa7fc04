package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.server.front.wire.Opened;
import io.sluice.server.front.wire.RawClient;
import io.sluice.server.front.wire.RawUpstream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The public listener under connection attacks, through real sockets on loopback: each 127.0.0.x address is a
 * distinct client. The deadlines are real time on real sockets, made short here (300 ms) and asserted with margins
 * a busy machine passes: a connection is never cut before its deadline, and always within seconds of it.
 */
@ParameterizedClass
@EnumSource(FrontPath.class)
class ConnectionGuardTest {
    @Parameter
    FrontPath path;

    private static final String HOST = "Host: site.example\r\n";
    private static final String GET = "GET /page HTTP/1.1\r\n" + HOST + "\r\n";
    private static final Duration HEAD_TIMEOUT = Duration.ofMillis(300);
    private static final long SERVED_WITHIN_MILLIS = 3_000;
    private static final long CUT_WITHIN_MILLIS = 10_000;

    @AutoClose
    private final Opened open = new Opened();
    private final ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopTrickling() {
        trickle.shutdownNow();
    }

    @Test
    void aSlowlorisIsCutAtTheHeadDeadlineWhileABrowserFromAnotherAddressIsServed() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(64, HEAD_TIMEOUT, 500);
        FrontUnderTest front = front(guard, FrontUnderTest.ADMIT_ALL, 0);
        long opened = System.nanoTime();
        List<RawClient> loris = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            RawClient attacker = client("127.0.0.2", front);
            attacker.send("GET / HTTP/1.1\r\n");
            trickleForever(attacker, "X-Slow: 1\r\n".getBytes(), 1, 50);
            loris.add(attacker);
        }

        for (int i = 0; i < 5; i++) {
            assertServedPromptly(client("127.0.0.3", front));
        }
        for (RawClient attacker : loris) {
            // Cut, and never served. Once in many runs on a busy machine (the proxy handler's path, a fresh-clone CI
            // run), the server sent something before it closed: asserted here is that it closed, and what it sent.
            String sent = attacker.sentUntilClosed();
            assertThat(sent).as("a head trickling in byte by byte is cut").isNotNull();
            assertThat(sent).as("what the server sent before it cut the head").doesNotContain(" 200 ");
        }
        long tookMillis = (System.nanoTime() - opened) / 1_000_000;
        assertThat(tookMillis).as("cut at the deadline, not before").isGreaterThanOrEqualTo(HEAD_TIMEOUT.toMillis())
                .isLessThan(CUT_WITHIN_MILLIS);
        assertThat(guard.shed().counts().headTimeouts()).isEqualTo(20);
    }

    @Test
    void aConnectionThatSendsNothingIsCutAtTheHeadDeadline() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(64, HEAD_TIMEOUT, 500);
        FrontUnderTest front = front(guard, FrontUnderTest.ADMIT_ALL, 0);
        long opened = System.nanoTime();
        RawClient silent = client("127.0.0.2", front);

        assertThat(silent.closedByServer()).isTrue();
        assertThat((System.nanoTime() - opened) / 1_000_000).isGreaterThanOrEqualTo(HEAD_TIMEOUT.toMillis())
                .isLessThan(CUT_WITHIN_MILLIS);
    }

    @Test
    void aKeptAliveConnectionIsNotCutBetweenRequests() throws Exception {
        FrontUnderTest front = front(new ConnectionGuard(64, HEAD_TIMEOUT, 500), FrontUnderTest.ADMIT_ALL, 0);
        RawClient browser = client("127.0.0.3", front);
        assertThat(browser.send(GET).response().status()).isEqualTo(200);

        assertThat(browser.quietFor((int) HEAD_TIMEOUT.toMillis() * 3))
                .as("between requests only the idle timeout applies").isTrue();
        assertThat(browser.send(GET).response().status()).isEqualTo(200);
    }

    @Test
    void aBodyTricklingBelowTheMinimumRateIsCut() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(64, HEAD_TIMEOUT, 1_000);
        FrontUnderTest front = front(guard, FrontUnderTest.ADMIT_ALL, 0);
        RawClient slow = client("127.0.0.2", front);
        long opened = System.nanoTime();
        slow.send("POST /form HTTP/1.1\r\n" + HOST + "Content-Length: 3000\r\n\r\n");
        // 100 bytes a second: a tenth of the minimum.
        trickleForever(slow, new byte[3000], 10, 100);

        assertThat(slow.closedByServer()).isTrue();
        assertThat((System.nanoTime() - opened) / 1_000_000).isGreaterThanOrEqualTo(HEAD_TIMEOUT.toMillis())
                .isLessThan(CUT_WITHIN_MILLIS);
        assertThat(guard.shed().counts().slowBodies()).isEqualTo(1);
    }

    @Test
    void aBodyThatArrivesAtOnceIsForwarded() throws Exception {
        FrontUnderTest front = front(new ConnectionGuard(64, HEAD_TIMEOUT, 1_000), FrontUnderTest.ADMIT_ALL, 0);
        RawClient client = client("127.0.0.2", front);

        client.send("POST /form HTTP/1.1\r\n" + HOST + "Content-Length: 3000\r\n\r\n" + "x".repeat(3000));
        assertThat(client.response().status()).isEqualTo(200);
    }

    @Test
    void the65thConnectionFromOneAddressIsRefusedAndOneFromAnotherIsNot() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(64, Duration.ofSeconds(60), 500);
        FrontUnderTest front = front(guard, FrontUnderTest.ADMIT_ALL, 0);
        List<RawClient> held = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            held.add(client("127.0.0.2", front));
        }

        assertThat(client("127.0.0.2", front).closedByServer()).as("the 65th is closed on arrival").isTrue();
        assertServedPromptly(client("127.0.0.3", front));
        assertThat(held.get(0).send(GET).response().status()).as("the 64 held are served").isEqualTo(200);
        assertThat(guard.shed().counts().overAddressCap()).isEqualTo(1);

        held.get(1).close();
        assertServedOnceThePlaceIsFree(front);
    }

    @Test
    void aTrustedProxyIsNotCapped() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(4, Duration.ofSeconds(60), 500);
        FrontUnderTest front = front(guard, FrontUnderTest.ADMIT_ALL.withTrustedProxies(List.of("127.0.0.4")), 0);
        for (int i = 0; i < 8; i++) {
            client("127.0.0.4", front);
        }

        assertServedPromptly(client("127.0.0.4", front));
        assertThat(guard.shed().counts().overAddressCap()).isZero();
    }

    @Test
    void oneAddressHoldingManySocketsDoesNotCrowdOthersOutOfTheListener() throws Exception {
        // 100 connections at once for the listener; one address opens 150 that send nothing.
        ConnectionGuard guard = new ConnectionGuard(64, Duration.ofSeconds(60), 500);
        FrontUnderTest front = front(guard, FrontUnderTest.ADMIT_ALL, 100);
        for (int i = 0; i < 150; i++) {
            client("127.0.0.2", front);
        }

        for (int i = 0; i < 5; i++) {
            assertServedPromptly(client("127.0.0.3", front));
        }
        assertThat(guard.shed().counts().overAddressCap()).isEqualTo(150 - 64);
    }

    @Test
    void limitsUpdatedOnALiveListenerApplyToTheNextConnectionAndLeaveOpenOnesAlone() throws Exception {
        ConnectionGuard guard = new ConnectionGuard(64, Duration.ofSeconds(60), 500);
        FrontUnderTest front = front(guard, FrontUnderTest.ADMIT_ALL, 0);
        RawClient first = client("127.0.0.5", front);
        RawClient second = client("127.0.0.5", front);
        assertServedPromptly(first);
        assertServedPromptly(second);

        // A reload lowers the cap below what the address holds: what is open stays, nothing new comes in.
        guard.update(1, Duration.ofSeconds(60), 500);
        RawClient third = client("127.0.0.5", front);
        assertThat(third.closedByServer()).as("a new connection past the lowered cap").isTrue();
        assertServedPromptly(first);
        assertThat(guard.shed().counts().overAddressCap()).isEqualTo(1);

        // And a shorter head deadline applies to a connection opened after it.
        guard.update(64, HEAD_TIMEOUT, 500);
        long opened = System.nanoTime();
        RawClient silent = client("127.0.0.6", front);
        assertThat(silent.closedByServer()).isTrue();
        assertThat((System.nanoTime() - opened) / 1_000_000).isLessThan(CUT_WITHIN_MILLIS);
    }

    /** The listener may not have seen a closed connection go yet: a new one from its address is tried until served. */
    private void assertServedOnceThePlaceIsFree(FrontUnderTest front) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CUT_WITHIN_MILLIS);
        while (true) {
            RawClient again = client("127.0.0.2", front);
            try {
                var response = again.send(GET).response();
                if (response != null && response.status() == 200) {
                    return;
                }
            } catch (IOException refused) {
                // Closed on arrival: the old one is not counted out yet.
            }
            assertThat(System.nanoTime()).as("a place freed is taken again").isLessThan(deadline);
        }
    }

    private static void assertServedPromptly(RawClient browser) throws IOException {
        long started = System.nanoTime();
        assertThat(browser.send(GET).response().status()).isEqualTo(200);
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(SERVED_WITHIN_MILLIS);
    }

    /** Writes {@code bytes}, {@code chunk} at a time every {@code everyMillis}, round and round until it fails. */
    private void trickleForever(RawClient client, byte[] bytes, int chunk, long everyMillis) {
        int[] at = {0};
        ScheduledFuture<?>[] task = new ScheduledFuture<?>[1];
        task[0] = trickle.scheduleAtFixedRate(() -> {
            try {
                client.output().write(bytes, at[0], chunk);
                client.output().flush();
                at[0] = (at[0] + chunk) % bytes.length;
            } catch (IOException | RuntimeException cut) {
                task[0].cancel(false);
            }
        }, everyMillis, everyMillis, TimeUnit.MILLISECONDS);
    }

    private RawClient client(String address, FrontUnderTest front) throws IOException {
        RawClient client = new RawClient(address, front.port());
        open.add(client);
        return client;
    }

    private FrontUnderTest front(ConnectionGuard guard, Policy policy, int maxConnections) throws Exception {
        RawUpstream upstream = RawUpstream.answering(request -> RawUpstream.ok("ok"));
        open.add(upstream);
        FrontUnderTest front = FrontUnderTest.start(path, upstream.uri(), policy, guard, maxConnections);
        open.add(front);
        return front;
    }
}
