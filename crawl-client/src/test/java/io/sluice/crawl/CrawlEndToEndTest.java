package io.sluice.crawl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.demo.Demo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real workers (threads with {@link PoliteFetcher}) against a real Sluice server's permit API and
 * real sites over loopback. Wall-clock time is real here, so the rates are high and the bounds loose;
 * the governor's rules themselves are tested on simulated time in the engine.
 */
class CrawlEndToEndTest {
    /** The policy is changed as an operator changes it: through the server's PolicyChanges, audited. */
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "test");
    @TempDir
    Path state;

    private SluiceServer sluice;
    private final List<HttpServer> sites = new ArrayList<>();
    private final List<PoliteFetcher> fetchers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        sluice = Demo.start(ServerConfig.demo(state));
        // Fast enough that a test takes seconds: 10 requests per second per domain, no adaptation.
        GovernorPolicy fast = GovernorPolicy.DEFAULTS.withRates(10, 0.05, 10).withIncrease(0, 0)
                .withLatency(0, 50, 20, 10);
        sluice.policyChanges().edit(OPERATOR, p -> p.withGovernor(fast));
    }

    @AfterEach
    void stop() {
        fetchers.forEach(PoliteFetcher::close);
        sites.forEach(site -> site.stop(0));
        sluice.close();
    }

    /** A site on 127.0.0.1 whose n-th request (from 0) gets {@code status.applyAsInt(n)}. */
    private URI site(List<Long> arrivals, IntUnaryOperator status, String retryAfter) throws IOException {
        HttpServer site = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        AtomicInteger count = new AtomicInteger();
        site.createContext("/", (HttpExchange exchange) -> {
            arrivals.add(System.nanoTime());
            int code = status.applyAsInt(count.getAndIncrement());
            if (code == 429 && retryAfter != null) {
                exchange.getResponseHeaders().add("Retry-After", retryAfter);
            }
            byte[] body = ("page " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(code, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        site.start();
        sites.add(site);
        return URI.create("http://127.0.0.1:" + site.getAddress().getPort() + "/");
    }

    private PoliteFetcher worker() throws IOException {
        String token = Files.readString(state.resolve("worker-token")).trim();
        PermitClient permits = PermitClient.connect(sluice.adminUri(), token);
        SlidingWindowGovernor local = SlidingWindowGovernor.started(new SlidingWindowGovernor.Limits(100,
                Duration.ofSeconds(1), 4, 1_000, Duration.ofMillis(5)));
        ResponseCache cache = new ResponseCache(InstantSource.system(), Duration.ofMinutes(5), List.of(), 1_000);
        PoliteFetcher fetcher = new PoliteFetcher(permits, local, cache, HttpClient.newHttpClient(),
                InstantSource.system(), "SluiceTestBot/1.0");
        fetchers.add(fetcher);
        return fetcher;
    }

    @Test
    void fourWorkersTogetherStayAtTheDomainsRate() throws Exception {
        List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
        URI site = site(arrivals, n -> 200, null);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> runs = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            PoliteFetcher fetcher = worker();
            int worker = w;
            runs.add(pool.submit(() -> {
                for (int page = 0; page < 6; page++) {
                    fetcher.fetch(site.resolve("/w" + worker + "/p" + page));
                }
                return null;
            }));
        }
        for (Future<?> run : runs) {
            run.get();
        }
        pool.shutdown();

        List<Long> sorted = new ArrayList<>(arrivals);
        Collections.sort(sorted);
        assertThat(sorted).hasSize(24);
        double seconds = (sorted.get(23) - sorted.get(0)) / 1e9;
        assertThat(23 / seconds).as("requests per second at the site").isLessThanOrEqualTo(11.0);
        String domain = "127.0.0.1:" + site.getPort();
        assertThat(sluice.governor().domain(domain).orElseThrow().granted()).isEqualTo(24);
        assertThat(sluice.governor().domain(domain).orElseThrow().responses()).isEqualTo(24);
    }

    @Test
    void aWorkerWithAFrontierIsGrantedWhicheverDomainIsReadyInTurn() throws Exception {
        String token = Files.readString(state.resolve("worker-token")).trim();
        PermitClient permits = PermitClient.connect(sluice.adminUri(), token);
        List<String> frontier = List.of("one.example", "two.example");
        Map<String, Integer> grants = new TreeMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            grants.merge(permits.acquireAny(frontier), 1, Integer::sum);
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        assertThat(grants.keySet()).containsExactly("one.example", "two.example");
        assertThat(grants.values()).allSatisfy(count -> assertThat(count).isBetween(4, 6));
        assertThat(seconds).as("10 grants at 10 req/s per domain, two domains").isGreaterThanOrEqualTo(0.35);
        // Right after, neither domain is ready, but only for up to 100 ms of the machine's time: a CI run beside
        // another build once took longer than that to ask. Asked at once over and over, it must soon say no.
        Permit refused = permits.tryAcquireAny(frontier);
        for (int tries = 1; refused.granted() && tries < 20; tries++) {
            refused = permits.tryAcquireAny(frontier);
        }
        assertThat(refused.granted()).isFalse();
        assertThat(frontier).contains(refused.domain());
    }

    @Test
    void aRepeatedRequestIsServedFromTheCacheWithoutAPermit() throws Exception {
        List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
        URI page = site(arrivals, n -> 200, null).resolve("/item/1");
        PoliteFetcher fetcher = worker();

        PoliteFetcher.Result first = fetcher.fetch(page);
        PoliteFetcher.Result second = fetcher.fetch(page);

        assertThat(first.fromCache()).isFalse();
        assertThat(second.fromCache()).isTrue();
        assertThat(new String(second.response().body(), StandardCharsets.UTF_8)).isEqualTo("page /item/1");
        assertThat(arrivals).hasSize(1);
        assertThat(sluice.governor().domain("127.0.0.1:" + page.getPort()).orElseThrow().granted()).isEqualTo(1);
    }

    @Test
    void retryAfterFromTheSiteHoldsBackTheNextRequest() throws Exception {
        List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
        URI site = site(arrivals, n -> n == 0 ? 429 : 200, "2");
        PoliteFetcher fetcher = worker();

        assertThat(fetcher.fetch(site.resolve("/a")).status()).isEqualTo(429);
        assertThat(fetcher.fetch(site.resolve("/b")).status()).isEqualTo(200);

        assertThat((arrivals.get(1) - arrivals.get(0)) / 1e9).isGreaterThanOrEqualTo(1.95);
        assertThat(sluice.governor().domain("127.0.0.1:" + site.getPort()).orElseThrow().slowDowns()).isEqualTo(1);
    }

    @Test
    void aDomainThatOnlyErrsIsGivenUpAndTheWorkerIsTold() throws Exception {
        List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
        URI site = site(arrivals, n -> 500, null);
        PoliteFetcher fetcher = worker();

        for (int i = 0; i < 20; i++) {
            assertThat(fetcher.fetch(site.resolve("/p" + i)).status()).isEqualTo(500);
        }
        assertThatThrownBy(() -> fetcher.fetch(site.resolve("/p20"))).isInstanceOf(DomainGivenUpException.class);
        assertThat(arrivals).hasSize(20);
        assertThat(sluice.governor().snapshot().alerts()).hasSize(1);
    }

    @Test
    void acquireWaitsAsLongAsItIsToldBetweenCalls() throws Exception {
        List<Long> waits = Collections.synchronizedList(new ArrayList<>());
        PermitClient client = PermitClient.connect(sluice.adminUri(), sluice.adminToken())
                .with(HttpClient.newHttpClient(), millis -> {
                    waits.add(millis);
                    Thread.sleep(millis);
                }, 0);

        client.acquire("example.com");
        client.acquire("example.com");

        assertThat(waits).isNotEmpty().allSatisfy(wait -> assertThat(wait).isBetween(1L, 100L));
        assertThat(sluice.governor().domain("example.com").orElseThrow().granted()).isEqualTo(2);
    }

    @Test
    void aWrongTokenIsAClearError() {
        PermitClient client = PermitClient.connect(sluice.adminUri(), "not-the-token");
        assertThatThrownBy(() -> client.tryAcquire("example.com")).isInstanceOf(PermitServiceException.class)
                .hasMessageContaining("rejected the worker/admin token");
        PermitClient admin = PermitClient.connect(sluice.adminUri(), sluice.adminToken());
        assertThat(admin.tryAcquire("Example.com")).isEqualTo(new Permit("example.com", true, 0, null));
        // The next call comes within the domain's 100 ms interval unless this machine stalled between the two
        // calls: then it is granted, and the call after it is the one that must be paced.
        Permit next = admin.tryAcquire("example.com");
        for (int tries = 1; next.granted() && tries < 20; tries++) {
            next = admin.tryAcquire("example.com");
        }
        assertThat(next.granted()).isFalse();
        assertThat(next.reason()).isEqualTo("PACING");
        assertThat(next.waitMillis()).isBetween(1L, 100L);
    }
}
