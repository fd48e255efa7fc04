package io.sluice.benchmarks.governor;

import io.sluice.crawl.Feedback;
import io.sluice.crawl.Permit;
import io.sluice.crawl.PermitClient;
import io.sluice.crawl.PermitServiceException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A crawler fleet as issue #31 runs it: worker threads sharing a frontier of real local sites of different
 * capacities ({@link LimitedSite}: 429 above each one's capacity), each worker asking the permit API for any
 * of its frontier ({@code POST /api/v1/permits} with {@code domains} and {@code holdMillis}), fetching the
 * domain it is granted, and reporting the answer. It counts its permit calls, so the figures say how much
 * the workers spin as well as how well the sites are served.
 */
public final class FleetTrial {

    /**
     * One fleet run.
     *
     * @param workers          worker threads
     * @param length           how long they crawl
     * @param capacities       each site's requests per sliding second (it answers 429 above)
     * @param latencyMinMillis the sites' latency is drawn evenly from min to max
     * @param latencyMaxMillis
     * @param holdMillis       how long the server may hold a permit call while no domain is ready
     */
    public record Settings(int workers, Duration length, List<Double> capacities, long latencyMinMillis,
            long latencyMaxMillis, long holdMillis) {
        public Settings {
            capacities = List.copyOf(capacities);
        }

        public double capacity() {
            return capacities.stream().mapToDouble(Double::doubleValue).sum();
        }
    }

    /** One answered request: when it was granted (seconds from the start), to which site, its status. */
    public record Fetch(double seconds, int site, int status) {
    }

    /** What the fleet saw. */
    public record Result(Settings settings, List<String> domains, List<Fetch> fetches, long permitCalls,
            long grants, long droppedConnections) {
        public Result {
            domains = List.copyOf(domains);
            fetches = List.copyOf(fetches);
        }

        /** Site {@code site}'s served (non-429) requests per second granted in {@code [from, to)}. */
        public double served(int site, double from, double to) {
            return fetches.stream().filter(f -> f.site() == site && in(f, from, to) && f.status() != 429).count()
                    / (to - from);
        }

        /** Served requests per second over the fleet's capacity, in {@code [from, to)}. */
        public double fleetShare(double from, double to) {
            double served = 0;
            for (int site = 0; site < domains.size(); site++) {
                served += served(site, from, to);
            }
            return served / settings.capacity();
        }

        /** The site served least, for its capacity, in {@code [from, to)}. */
        public int worstSite(double from, double to) {
            int worst = 0;
            for (int site = 1; site < domains.size(); site++) {
                if (siteShare(site, from, to) < siteShare(worst, from, to)) {
                    worst = site;
                }
            }
            return worst;
        }

        public double siteShare(int site, double from, double to) {
            return served(site, from, to) / settings.capacities().get(site);
        }

        /** The share of 429 answers among the requests granted in {@code [from, to)}, one site or all (-1). */
        public double share429(int site, double from, double to) {
            long all = fetches.stream().filter(f -> (site < 0 || f.site() == site) && in(f, from, to)).count();
            long limited = fetches.stream().filter(f -> (site < 0 || f.site() == site) && in(f, from, to)
                    && f.status() == 429).count();
            return all == 0 ? 0 : limited / (double) all;
        }

        /** Permit calls per granted fetch, over the whole run. */
        public double callsPerGrant() {
            return grants == 0 ? Double.POSITIVE_INFINITY : permitCalls / (double) grants;
        }

        /** {time s, requests/s, 429 share} per {@code width}-second window for one site, as ConvergencePlot draws. */
        public List<double[]> windows(int site, double width) {
            List<double[]> rows = new ArrayList<>();
            double end = settings.length().toMillis() / 1000.0;
            for (double t = 0; t + width <= end + 1e-9; t += width) {
                double from = t;
                long all = fetches.stream().filter(f -> f.site() == site && in(f, from, from + width)).count();
                rows.add(new double[] {t, all / width, share429(site, t, t + width)});
            }
            return rows;
        }

        private static boolean in(Fetch fetch, double from, double to) {
            return fetch.seconds() >= from && fetch.seconds() < to;
        }
    }

    private FleetTrial() {
    }

    /** Starts the sites, runs the workers for the trial's length against the permit API at {@code admin}. */
    public static Result run(Settings settings, URI admin, String workerToken) throws Exception {
        List<LimitedSite> sites = new ArrayList<>();
        try {
            for (double capacity : settings.capacities()) {
                sites.add(LimitedSite.start(capacity, settings.latencyMinMillis(), settings.latencyMaxMillis(), null));
            }
            List<String> domains = sites.stream().map(LimitedSite::domain).toList();
            Map<String, Integer> index = new HashMap<>();
            for (int i = 0; i < domains.size(); i++) {
                index.put(domains.get(i), i);
            }
            PermitClient permits = PermitClient.connect(admin, workerToken)
                    .with(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(), Thread::sleep,
                            settings.holdMillis());
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            List<Fetch> fetches = Collections.synchronizedList(new ArrayList<>());
            AtomicLong calls = new AtomicLong();
            AtomicLong grants = new AtomicLong();
            AtomicLong dropped = new AtomicLong();
            long start = System.nanoTime();
            long end = start + settings.length().toNanos();
            WorkerThreads.run(settings.workers(), "fleet", worker -> new Crawl(worker, sites, domains, index, permits,
                    http, start, end).run(fetches, calls, grants, dropped));
            List<Fetch> sorted = new ArrayList<>(fetches);
            sorted.sort((a, b) -> Double.compare(a.seconds(), b.seconds()));
            return new Result(settings, domains, sorted, calls.get(), grants.get(), dropped.get());
        } finally {
            sites.forEach(LimitedSite::close);
        }
    }

    /** One worker: its frontier is every site; it asks for any, fetches the one granted, reports. */
    private record Crawl(int worker, List<LimitedSite> sites, List<String> frontier, Map<String, Integer> index,
            PermitClient permits, HttpClient http, long start, long end) {

        void run(List<Fetch> fetches, AtomicLong calls, AtomicLong grants, AtomicLong dropped)
                throws InterruptedException {
            int page = 0;
            while (System.nanoTime() < end) {
                try {
                    page = step(page, fetches, calls, grants);
                } catch (IOException | PermitServiceException e) {
                    // A pooled connection the server closed as it was reused (a broken pipe): the worker
                    // counts it and goes on, as a crawler would; a bad token or answer still ends the run.
                    if (e instanceof PermitServiceException refused && refused.status() > 0) {
                        throw refused;
                    }
                    dropped.incrementAndGet();
                }
            }
        }

        private int step(int page, List<Fetch> fetches, AtomicLong calls, AtomicLong grants)
                throws IOException, InterruptedException {
            Permit permit = permits.askAny(frontier);
            calls.incrementAndGet();
            if (!permit.granted()) {
                if (permit.givenUp()) {
                    throw new IllegalStateException("every domain was given up, the last " + permit.domain());
                }
                long untilEnd = (end - System.nanoTime()) / 1_000_000 + 1;
                Thread.sleep(Math.max(1, Math.min(permit.waitMillis(), untilEnd)));
                return page;
            }
            grants.incrementAndGet();
            int site = index.get(permit.domain());
            URI pageUri = sites.get(site).uri().resolve("/w" + worker + "/p" + page);
            long sent = System.nanoTime();
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(pageUri)
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.discarding());
            long latency = (System.nanoTime() - sent) / 1_000_000;
            fetches.add(new Fetch((sent - start) / 1e9, site, response.statusCode()));
            permits.report(new Feedback(permit.domain(), response.statusCode(), null, latency, null));
            return page + 1;
        }
    }
}
