package io.sluice.benchmarks.governor;

import io.sluice.crawl.Feedback;
import io.sluice.crawl.Permit;
import io.sluice.crawl.PermitClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Eight (or any number of) crawler workers as a new user writes them, against a {@link LimitedSite}
 * and a real Sluice permit API over HTTP: each thread asks {@code POST /api/v1/permits}, sleeps the
 * {@code waitMillis} it is told when refused (it polls; nothing holds its call), fetches when
 * granted, and reports the status, {@code Retry-After} and latency with {@code POST /api/v1/feedback}.
 */
public final class PaceTrial {

    /**
     * One trial.
     *
     * @param name              names the output files and the printed rows
     * @param workers           worker threads
     * @param length            how long the workers crawl
     * @param capacity          requests per sliding second the site serves; it answers 429 above
     * @param latencyMinMillis  the site's latency is drawn evenly from min to max
     * @param latencyMaxMillis  (0 and 0: as fast as the loopback answers)
     * @param retryAfterSeconds {@code Retry-After} on the site's 429s, or null for none
     */
    public record Settings(String name, int workers, Duration length, double capacity, long latencyMinMillis,
            long latencyMaxMillis, Long retryAfterSeconds) {
    }

    /** One answered request: when it was granted (seconds from the start), its status and latency. */
    public record Fetch(double seconds, int status, long latencyMillis) {
    }

    /** What the workers saw. */
    public record Result(Settings settings, String domain, List<Fetch> fetches) {
        public Result {
            fetches = List.copyOf(fetches);
        }

        /** Served (non-429) requests per second granted in {@code [from, to)} seconds. */
        public double servedRate(double from, double to) {
            return fetches.stream().filter(f -> f.seconds() >= from && f.seconds() < to && f.status() != 429).count()
                    / (to - from);
        }

        /** The share of 429 answers among the requests granted in {@code [from, to)}. */
        public double share429(double from, double to) {
            long all = fetches.stream().filter(f -> f.seconds() >= from && f.seconds() < to).count();
            long limited = fetches.stream().filter(f -> f.seconds() >= from && f.seconds() < to && f.status() == 429)
                    .count();
            return all == 0 ? 0 : limited / (double) all;
        }

        /** {time s, requests/s, 429 share} per {@code width}-second window, as ConvergencePlot draws them. */
        public List<double[]> windows(double width) {
            List<double[]> rows = new ArrayList<>();
            double end = settings.length().toMillis() / 1000.0;
            for (double t = 0; t + width <= end + 1e-9; t += width) {
                double from = t;
                long all = fetches.stream().filter(f -> f.seconds() >= from && f.seconds() < from + width).count();
                rows.add(new double[] {t, all / width, share429(t, t + width)});
            }
            return rows;
        }
    }

    private PaceTrial() {
    }

    /**
     * Starts the site, runs the workers for the trial's length against the permit API at
     * {@code admin}, and stops the site.
     */
    public static Result run(Settings settings, URI admin, String workerToken) throws Exception {
        try (LimitedSite site = LimitedSite.start(settings.capacity(), settings.latencyMinMillis(),
                settings.latencyMaxMillis(), settings.retryAfterSeconds())) {
            PermitClient permits = PermitClient.connect(admin, workerToken);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            List<Fetch> fetches = Collections.synchronizedList(new ArrayList<>());
            long start = System.nanoTime();
            long end = start + settings.length().toNanos();
            WorkerThreads.run(settings.workers(), settings.name(),
                    worker -> crawl(worker, site, permits, http, start, end, fetches));
            List<Fetch> sorted = new ArrayList<>(fetches);
            sorted.sort((a, b) -> Double.compare(a.seconds(), b.seconds()));
            return new Result(settings, site.domain(), sorted);
        }
    }

    private static void crawl(int worker, LimitedSite site, PermitClient permits, HttpClient http, long start,
            long end, List<Fetch> fetches) throws IOException, InterruptedException {
        String domain = site.domain();
        int page = 0;
        while (System.nanoTime() < end) {
            Permit permit = permits.tryAcquire(domain);
            if (!permit.granted()) {
                if (permit.givenUp()) {
                    throw new IllegalStateException(domain + " was given up");
                }
                long untilEnd = (end - System.nanoTime()) / 1_000_000 + 1;
                Thread.sleep(Math.max(1, Math.min(permit.waitMillis(), untilEnd)));
                continue;
            }
            URI pageUri = site.uri().resolve("/w" + worker + "/p" + page++);
            long sent = System.nanoTime();
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(pageUri).timeout(Duration.ofSeconds(30))
                    .GET().build(), HttpResponse.BodyHandlers.discarding());
            long latency = (System.nanoTime() - sent) / 1_000_000;
            fetches.add(new Fetch((sent - start) / 1e9, response.statusCode(), latency));
            Long retryAfter = response.headers().firstValue("Retry-After").map(Long::valueOf).orElse(null);
            permits.report(new Feedback(domain, response.statusCode(), retryAfter, latency, null));
        }
    }
}
