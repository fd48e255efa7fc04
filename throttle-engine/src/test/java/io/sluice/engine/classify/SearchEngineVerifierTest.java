package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.ManualClock;
import io.sluice.engine.ManualExecutor;
import io.sluice.engine.classify.SearchEngineVerifier.Status;
import io.sluice.engine.net.IpAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
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
    void aLookupThatNeverAnswersCountsAsFailedAfterItsTimeout() throws InterruptedException {
        // the executor holds the task and never runs it, as a hung resolver would
        SearchEngineVerifier timed = new SearchEngineVerifier(fakeDns, executor, clock, Duration.ofHours(1),
                Duration.ofMinutes(5), 1000, Duration.ofMillis(50));
        assertThat(timed.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.PENDING);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (timed.status("Googlebot", GOOGLE_DOMAINS, GOOGLE) == Status.PENDING && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(timed.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.FAILED);
    }

    @Test
    void aLookupTheExecutorRefusesIsNotVerified() {
        SearchEngineVerifier full = new SearchEngineVerifier(fakeDns, task -> {
            throw new RejectedExecutionException("queue full");
        }, clock, Duration.ofHours(1), Duration.ofMinutes(5), 1000, Duration.ofSeconds(5));
        assertThat(full.status("Googlebot", GOOGLE_DOMAINS, GOOGLE)).isEqualTo(Status.FAILED);
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
        assertThat(verifier.status("Googlebot", GOOGLE_DOMAINS, IpAddress.parse("192.0.2.66")))
                .isEqualTo(Status.FAILED);
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
