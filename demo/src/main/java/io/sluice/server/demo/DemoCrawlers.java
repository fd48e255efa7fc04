package io.sluice.server.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A demo crawler fleet for the crawl governor: workers that ask the real permit API over HTTP and
 * report what simulated sites answered, so the console's Domains view has something to show: a
 * healthy site, one that answers 429 above its capacity, one with {@code Retry-After}, one with a
 * robots.txt {@code Crawl-delay}, a flaky one and one that is down (and will be given up).
 */
public final class DemoCrawlers implements AutoCloseable {
    private static final ObjectMapper JSON = PolicyJson.mapper();
    /** Workers per simulated domain. */
    private static final int WORKERS = 2;
    /** A worker told to wait longer than this turns to its other work first (here: just waits less). */
    private static final long MAX_WAIT_MILLIS = 5_000;

    /** A simulated site: what it answers a request now. */
    private static final class Site {
        final String domain;
        final double capacity;
        final Integer retryAfter;
        final Double crawlDelay;
        final double errorShare;
        final long latencyMillis;
        final Deque<Long> served = new ArrayDeque<>();

        Site(String domain, double capacity, Integer retryAfter, Double crawlDelay, double errorShare,
                long latencyMillis) {
            this.domain = domain;
            this.capacity = capacity;
            this.retryAfter = retryAfter;
            this.crawlDelay = crawlDelay;
            this.errorShare = errorShare;
            this.latencyMillis = latencyMillis;
        }

        synchronized Map<String, Object> answer(long nowMillis) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            Map<String, Object> feedback = new LinkedHashMap<>();
            feedback.put("domain", domain);
            feedback.put("latencyMillis", latencyMillis + random.nextLong(latencyMillis / 2 + 1));
            if (crawlDelay != null) {
                feedback.put("crawlDelaySeconds", crawlDelay);
            }
            while (!served.isEmpty() && served.peekFirst() <= nowMillis - 1_000) {
                served.removeFirst();
            }
            if (served.size() >= capacity) {
                feedback.put("status", 429);
                if (retryAfter != null) {
                    feedback.put("retryAfterSeconds", retryAfter);
                }
                return feedback;
            }
            served.addLast(nowMillis);
            // A flaky site sheds load with 503; a site that is down answers 500 to everything.
            feedback.put("status", random.nextDouble() < errorShare ? (errorShare >= 1 ? 500 : 503) : 200);
            return feedback;
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "sluice-demo-crawlers");
        thread.setDaemon(true);
        return thread;
    });
    private final URI admin;
    private final String token;
    private volatile boolean closed;

    private DemoCrawlers(URI admin, String token) {
        this.admin = admin;
        this.token = token;
    }

    /** Starts the fleet against the permit API at {@code admin} with the workers' token. */
    public static DemoCrawlers start(URI admin, String workerToken) {
        DemoCrawlers fleet = new DemoCrawlers(admin, workerToken);
        List<Site> sites = List.of(
                new Site("news.example", Double.MAX_VALUE, null, null, 0, 80),
                new Site("shop.example", 3, null, null, 0, 150),
                new Site("api.example", 4, 20, null, 0, 60),
                new Site("blog.example", Double.MAX_VALUE, null, 5.0, 0, 200),
                new Site("flaky.example", Double.MAX_VALUE, null, null, 0.25, 120),
                new Site("down.example", Double.MAX_VALUE, null, null, 1.0, 30));
        for (Site site : sites) {
            for (int i = 0; i < WORKERS; i++) {
                fleet.scheduler.schedule(() -> fleet.ask(site), i * 150L, TimeUnit.MILLISECONDS);
            }
        }
        return fleet;
    }

    private void ask(Site site) {
        if (closed) {
            return;
        }
        post("permits", Map.of("domain", site.domain)).thenAccept(answer -> {
            if (answer.path("granted").asBoolean()) {
                Map<String, Object> feedback = site.answer(System.currentTimeMillis());
                long latency = ((Number) feedback.get("latencyMillis")).longValue();
                scheduler.schedule(() -> post("feedback", feedback).whenComplete((r, e) -> next(site, 0)),
                        latency, TimeUnit.MILLISECONDS);
            } else if ("GIVEN_UP".equals(answer.path("reason").asText())) {
                next(site, 30_000); // an operator may revive it from the console
            } else {
                next(site, Math.min(MAX_WAIT_MILLIS, answer.path("waitMillis").asLong(1_000)));
            }
        }).exceptionally(failure -> {
            next(site, 2_000);
            return null;
        });
    }

    private void next(Site site, long delayMillis) {
        if (!closed) {
            scheduler.schedule(() -> ask(site), Math.max(1, delayMillis), TimeUnit.MILLISECONDS);
        }
    }

    private CompletableFuture<JsonNode> post(String path, Map<String, Object> body) {
        try {
            HttpRequest request = HttpRequest.newBuilder(admin.resolve("/api/v1/" + path))
                    .timeout(Duration.ofSeconds(5))
                    .header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
            return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(response -> {
                try {
                    return response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
    }
}
