package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.ManualClock;
import io.sluice.engine.ManualExecutor;
import io.sluice.engine.classify.SearchEngineVerifier.Status;
import io.sluice.engine.net.IpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SearchEngineVerifierTest {

    private static final IpAddress GOOGLE = IpAddress.parse("66.249.66.1");
    private static final List<String> GOOGLE_DOMAINS = List.of("googlebot.com", "google.com");
    private static final IpAddress SPOOFER = IpAddress.parse("203.0.113.9");

    private final Map<IpAddress, List<String>> ptr = new HashMap<>();
    private final Map<String, List<IpAddress>> a = new HashMap<>();
    private final AtomicInteger lookups = new AtomicInteger();
    private final SearchEngineVerifier.Resolver fakeDns = new SearchEngineVerifier.Resolver() {
        @Override
        public List<String> reverse(IpAddress address) {
            lookups.incrementAndGet();
            if (address.equals(IpAddress.parse("192.0.2.66"))) {
                throw new IllegalStateException("SERVFAIL");
            }
            return ptr.getOrDefault(address, List.of());
        }

        @Override
        public List<IpAddress> forward(String hostName) {
            return a.getOrDefault(hostName, List.of());
        }
    };
    private final ManualExecutor executor = new ManualExecutor();
    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final SearchEngineVerifier verifier = new SearchEngineVerifier(fakeDns, executor, clock,
            Duration.ofHours(1), Duration.ofMinutes(5), 1000);

    @Test
    void forwardConfirmedReverseDnsVerifiesWithoutBlocking() {
        ptr.put(GOOGLE, List.of("crawl-66-249-66-1.googlebot.com."));
        a.put("crawl-66-249-66-1.googlebot.com", List.of(GOOGLE));
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        executor.runAll();
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.VERIFIED);
        assertThat(lookups).hasValue(1); // concurrent misses shared one lookup
    }

    @Test
    void aLookupThatWaitedInTheQueuePastItsTimeoutIsDroppedAndAskedAgainAfterTheBackoff() {
        ptr.put(GOOGLE, List.of("crawl-66-249-66-1.googlebot.com"));
        a.put("crawl-66-249-66-1.googlebot.com", List.of(GOOGLE));
        SearchEngineVerifier timed = new SearchEngineVerifier(fakeDns, executor, clock, Duration.ofHours(1),
                Duration.ofMinutes(5), 1000, Duration.ofSeconds(5));
        assertThat(timed.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        clock.advance(Duration.ofSeconds(6)); // the pool was busy: the lookup comes up too late
        executor.runAll();
        assertThat(lookups).hasValue(0);
        // not a failure: not known yet, and not asked again before the backoff
        assertThat(timed.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        executor.runAll();
        assertThat(lookups).hasValue(0);
        clock.advance(SearchEngineVerifier.FIRST_RETRY);
        assertThat(timed.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        executor.runAll();
        assertThat(timed.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.VERIFIED);
        assertThat(timed.stats().unanswered()).isEqualTo(1);
        assertThat(timed.stats().verified()).isEqualTo(1);
    }

    @Test
    void aLookupTheExecutorRefusesIsNotKnownYetNeverAFailure() {
        AtomicInteger offered = new AtomicInteger();
        SearchEngineVerifier full = new SearchEngineVerifier(fakeDns, task -> {
            offered.incrementAndGet();
            throw new RejectedExecutionException("queue full");
        }, clock, Duration.ofHours(1), Duration.ofMinutes(5), 1000, Duration.ofSeconds(5));
        assertThat(full.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        assertThat(full.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        assertThat(offered).hasValue(1); // the backoff holds the second request's lookup
        assertThat(full.stats().refused()).isEqualTo(1);
        assertThat(full.stats().inFlight()).isZero();
    }

    @Test
    void theBackoffDoublesFromTenSecondsToTwoMinutes() {
        assertThat(SearchEngineVerifier.backoffNanos(0)).isEqualTo(Duration.ofSeconds(10).toNanos());
        assertThat(SearchEngineVerifier.backoffNanos(1)).isEqualTo(Duration.ofSeconds(20).toNanos());
        assertThat(SearchEngineVerifier.backoffNanos(3)).isEqualTo(Duration.ofSeconds(80).toNanos());
        assertThat(SearchEngineVerifier.backoffNanos(4)).isEqualTo(Duration.ofMinutes(2).toNanos());
        assertThat(SearchEngineVerifier.backoffNanos(70)).isEqualTo(Duration.ofMinutes(2).toNanos());
    }

    @Test
    void oneNetworkHoldsAtMostItsQuotaOfLookupsAndOthersStillGetTheirs() {
        SearchEngineVerifier bounded = new SearchEngineVerifier(fakeDns, executor, clock, Duration.ofHours(1),
                Duration.ofMinutes(5), 1000, Duration.ofSeconds(5), new SearchEngineVerifier.Bounds(2, 5));
        for (int i = 1; i <= 200; i++) {
            bounded.status("Googlebot", GOOGLE_DOMAINS, IpAddress.parse("203.0.113." + i));
        }
        assertThat(bounded.stats().inFlight()).isEqualTo(2); // one /24: two lookups, the rest deferred
        assertThat(bounded.stats().deferred()).isEqualTo(198);
        // another network, another crawler: their own quotas
        bounded.status("Googlebot", GOOGLE_DOMAINS, GOOGLE);
        bounded.status("bingbot", List.of("search.msn.com"), IpAddress.parse("2001:db8:1:2::9"));
        bounded.status("bingbot", List.of("search.msn.com"), IpAddress.parse("2001:db8:1:2::a"));
        bounded.status("bingbot", List.of("search.msn.com"), IpAddress.parse("2001:db8:1:2::b"));
        assertThat(bounded.stats().inFlight()).isEqualTo(5);
        // Googlebot's quota of 5: claims from five more networks get only two more lookups
        for (int i = 1; i <= 5; i++) {
            bounded.status("Googlebot", GOOGLE_DOMAINS, IpAddress.parse("198.51." + i + ".1"));
        }
        assertThat(bounded.stats().inFlight()).isEqualTo(7);
        executor.runAll();
        assertThat(bounded.stats().inFlight()).isZero();
        // the quotas are free again once the lookups end: a deferred claim is asked at its next request
        bounded.status("Googlebot", GOOGLE_DOMAINS, IpAddress.parse("203.0.113.200"));
        assertThat(bounded.stats().inFlight()).isEqualTo(1);
    }

    @Test
    void manyThreadsClaimingAtOnceLeaveNoQuotaHeldOnceTheLookupsEnd() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(4, 4, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(100), new ThreadPoolExecutor.AbortPolicy());
        try {
            SearchEngineVerifier shared = new SearchEngineVerifier(fakeDns, pool, clock,
                    Duration.ofHours(1), Duration.ofMinutes(5), 100_000, Duration.ofSeconds(5),
                    new SearchEngineVerifier.Bounds(2, 50));
            ExecutorService claimants = Executors.newFixedThreadPool(8);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                done.add(claimants.submit(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        // 40 networks, each address claimed by two threads
                        IpAddress address = IpAddress.parse("198.51." + (i % 40) + "." + (thread / 2 * 50 + i % 50));
                        shared.status(i % 2 == 0 ? "Googlebot" : "bingbot", GOOGLE_DOMAINS, address);
                    }
                }));
            }
            for (Future<?> claims : done) {
                claims.get(60, TimeUnit.SECONDS);
            }
            claimants.shutdown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (shared.stats().inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // waiting for the pool to drain, not for a time
            }
            assertThat(shared.stats().inFlight()).isZero();
            SearchEngineVerifier.Stats stats = shared.stats();
            assertThat(stats.lookups()).isEqualTo(stats.failed() + stats.unanswered());
            // every quota was given back: a fresh claim from each network starts its lookup at once
            shared.status("Googlebot", GOOGLE_DOMAINS, IpAddress.parse("198.51.0.250"));
            assertThat(shared.stats().lookups()).isEqualTo(stats.lookups() + 1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void reverseNamesForTheSystemResolver() {
        assertThat(SystemDns.arpaName(IpAddress.parse("192.0.2.1"))).isEqualTo("1.2.0.192.in-addr.arpa");
        assertThat(SystemDns.arpaName(IpAddress.parse("2001:db8::567:89ab")))
                .isEqualTo("b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa");
    }

    @Test
    void spoofedClaimsFail() {
        // PTR claims Google but the name does not resolve back to the address
        ptr.put(SPOOFER, List.of("crawl-1.googlebot.com"));
        a.put("crawl-1.googlebot.com", List.of(GOOGLE));
        // PTR in a look-alike domain
        IpAddress lookalike = IpAddress.parse("203.0.113.10");
        ptr.put(lookalike, List.of("googlebot.com.evil.example", "evilgooglebot.com"));
        a.put("googlebot.com.evil.example", List.of(lookalike));
        a.put("evilgooglebot.com", List.of(lookalike));
        verifier.status("Googlebot", GOOGLE_DOMAINS, SPOOFER);
        verifier.status("Googlebot", GOOGLE_DOMAINS, lookalike);
        verifier.status("Googlebot", GOOGLE_DOMAINS, IpAddress.parse("192.0.2.66")); // resolver error
        executor.runAll();
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, SPOOFER)).isEqualTo(Status.FAILED);
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, lookalike)).isEqualTo(Status.FAILED);
        // a resolver error is no answer: not known yet, never a remembered failure
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, IpAddress.parse("192.0.2.66")))
                .isEqualTo(Status.PENDING);
        // a Google address claiming to be bingbot is not bingbot
        ptr.put(GOOGLE, List.of("crawl-66-249-66-1.googlebot.com"));
        a.put("crawl-66-249-66-1.googlebot.com", List.of(GOOGLE));
        verifier.status("bingbot", List.of("search.msn.com"), GOOGLE);
        executor.runAll();
        assertThat(verifier.status("bingbot", List.of("search.msn.com"), GOOGLE)).isEqualTo(Status.FAILED);
        assertThat(verifier.status("SomeSeoBot", List.of(), GOOGLE)).isEqualTo(Status.FAILED);
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, null)).isEqualTo(Status.FAILED);
    }

    @Test
    void answersExpireOnTheInjectedClock() {
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        executor.runAll();
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.FAILED);
        // DNS is fixed; the failure is remembered for 5 minutes, then checked again
        ptr.put(GOOGLE, List.of("crawl-66-249-66-1.googlebot.com"));
        a.put("crawl-66-249-66-1.googlebot.com", List.of(GOOGLE));
        clock.advance(Duration.ofSeconds(299));
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.FAILED);
        clock.advance(Duration.ofSeconds(2));
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        executor.runAll();
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.VERIFIED);
        assertThat(lookups).hasValue(2);
    }

    @Test
    void domainsMatchAtDotBoundaries() {
        assertThat(SearchEngineVerifier.inDomains("a.googlebot.com", List.of("googlebot.com"))).isTrue();
        assertThat(SearchEngineVerifier.inDomains("googlebot.com", List.of("googlebot.com"))).isFalse();
        assertThat(SearchEngineVerifier.inDomains("agooglebot.com", List.of("googlebot.com"))).isFalse();
        assertThatThrownBy(() -> new SearchEngineVerifier(fakeDns, executor, clock, Duration.ofHours(1),
                Duration.ofMinutes(-1), 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCloudCustomersReverseDnsUnderGooglesDomainsDoesNotMakeAGooglebot() {
        // a Google Cloud VM's PTR is under googleusercontent.com and confirms forward: the bundled domains for
        // Googlebot leave that domain out, so renting a VM buys nothing
        IpAddress vm = IpAddress.parse("198.51.100.7");
        ptr.put(vm, List.of("7.100.51.198.bc.googleusercontent.com."));
        a.put("7.100.51.198.bc.googleusercontent.com", List.of(vm));
        List<String> domains = CrawlerRanges.bundled().of("Googlebot").reverseDns();
        verifier.status("Googlebot", domains, vm);
        executor.runAll();
        assertThat(verifier.status("Googlebot", domains, vm)).isEqualTo(Status.FAILED);
        assertThat(domains).containsExactly("googlebot.com", "google.com");
    }
}
