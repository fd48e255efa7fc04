package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.ManualClock;
import io.sluice.engine.classify.CrawlerVerifier.Verdict;
import io.sluice.engine.net.IpAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The attack of issue 48 on crawler verification: fake claims of a DNS-verified crawler, or a resolver that stops
 * answering for a while, must not make the real crawler a bot for an hour. The lookups run on an executor shaped
 * like the server's (two lookup threads, 1,000 queued, the rest refused) whose tasks run only when the test says
 * DNS answers; time is the injected clock.
 */
class VerificationPoisoningTest {

    /** The crawler-list name Yandex's crawlers share; Yandex publishes host names, no ranges. */
    private static final String YANDEX = "yandex.com/bots";
    /** The real crawler, on loopback, which the test resolver maps to a Yandex name and back. */
    private static final IpAddress REAL = IpAddress.parse("127.0.0.7");
    private static final String REAL_NAME = "spider-127-0-0-7.spider.yandex.com.";

    private final ManualClock clock = ManualClock.at("2026-12-01T10:00:00Z");
    private final ServerShapedExecutor lookups = new ServerShapedExecutor(2, 1_000);
    /** While false, DNS does not answer: every lookup fails as a timed-out query would. */
    private final AtomicBoolean dnsAnswers = new AtomicBoolean(true);
    private final AtomicInteger reverseLookups = new AtomicInteger();
    private final SearchEngineVerifier.Resolver dns = new SearchEngineVerifier.Resolver() {
        @Override
        public List<String> reverse(IpAddress address) throws Exception {
            reverseLookups.incrementAndGet();
            if (!dnsAnswers.get()) {
                throw new java.net.SocketTimeoutException("DNS query timed out");
            }
            return address.equals(REAL) ? List.of(REAL_NAME) : List.of();
        }

        @Override
        public List<IpAddress> forward(String hostName) throws Exception {
            if (!dnsAnswers.get()) {
                throw new java.net.SocketTimeoutException("DNS query timed out");
            }
            return hostName.equals("spider-127-0-0-7.spider.yandex.com") ? List.of(REAL) : List.of();
        }
    };
    private final SearchEngineVerifier reverseDns = new SearchEngineVerifier(dns, lookups, clock, Duration.ofDays(1),
            Duration.ofHours(1), 100_000, Duration.ofSeconds(5));
    private final CrawlerVerifier verifier = new CrawlerVerifier(CrawlerRanges.bundled(), reverseDns);

    @Test
    void twoThousandFakeClaimsFromOneSlash64DoNotMakeTheRealCrawlerABot() {
        // DNS does not answer: the lookups queue up, as on a server whose resolver hangs
        for (int i = 0; i < 2_000; i++) {
            IpAddress fake = IpAddress.parse("2001:db8:bad:1:0:0:" + Integer.toHexString(i / 256) + ":"
                    + Integer.toHexString(i % 256));
            assertThat(verifier.verify(YANDEX, fake, null)).isNotEqualTo(Verdict.VERIFIED);
        }
        // the real crawler arrives meanwhile: not known yet, so treated as a claim (a bot) for now
        assertThat(verifier.verify(YANDEX, REAL, null)).isEqualTo(Verdict.PENDING);

        // DNS answers: the queued lookups run, the real crawler's among them
        lookups.runAll();
        clock.advance(Duration.ofSeconds(1));
        assertThat(verifier.verify(YANDEX, REAL, null)).isEqualTo(Verdict.VERIFIED);
        // one /64 held only its share of the queue
        assertThat(lookups.refused()).isZero();
        assertThat(reverseLookups.get()).isLessThan(10);
    }

    @Test
    void aResolverThatStopsAnsweringForAFewMinutesIsNotRememberedAsAFailureForAnHour() {
        dnsAnswers.set(false);
        assertThat(verifier.verify(YANDEX, REAL, null)).isEqualTo(Verdict.PENDING);
        lookups.runAll(); // the query times out
        assertThat(verifier.verify(YANDEX, REAL, null)).isEqualTo(Verdict.PENDING);
        lookups.runAll();
        clock.advance(Duration.ofMinutes(3));
        dnsAnswers.set(true); // DNS is back
        assertThat(verifier.verify(YANDEX, REAL, null)).isNotEqualTo(Verdict.NOT_VERIFIED);
        lookups.runAll();
        assertThat(verifier.verify(YANDEX, REAL, null)).isEqualTo(Verdict.VERIFIED);
    }

    /**
     * The server's lookup pool as a test sees it: {@code threads} tasks being run plus {@code queue} waiting are
     * accepted, a further one is refused as {@code ThreadPoolExecutor}'s abort policy refuses it. Nothing runs until
     * {@link #runAll()} (while DNS does not answer, the pool's threads are stuck and its queue only grows).
     */
    static final class ServerShapedExecutor implements Executor {
        private final int capacity;
        private final Queue<Runnable> tasks = new ArrayDeque<>();
        private int refused;

        ServerShapedExecutor(int threads, int queue) {
            this.capacity = threads + queue;
        }

        @Override
        public synchronized void execute(Runnable command) {
            if (tasks.size() >= capacity) {
                refused++;
                throw new RejectedExecutionException("DNS lookup queue full");
            }
            tasks.add(command);
        }

        synchronized int refused() {
            return refused;
        }

        synchronized int queued() {
            return tasks.size();
        }

        void runAll() {
            Runnable next;
            while ((next = poll()) != null) {
                next.run();
            }
        }

        private synchronized Runnable poll() {
            return tasks.poll();
        }
    }
}
