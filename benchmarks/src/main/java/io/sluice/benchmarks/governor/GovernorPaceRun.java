package io.sluice.benchmarks.governor;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The crawl governor against real sites, as the "done when" states it: eight polling workers,
 * a local site that serves 5 requests per second and answers 429 above, for a minute; once as fast as
 * the loopback answers, once with the site's latency jittered between 20 and 200 ms. Both run at once
 * (two sites, so two domains) against one Sluice. Prints the rate over time and the 429 share, the
 * second half's figures against the bounds, and writes CSV and SVG ({@link ConvergencePlot}) per scenario.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.governor.GovernorPaceRun \
 *      [--seconds 60] [--workers 8] [--capacity 5] [--out docs/governor] \
 *      [--admin http://127.0.0.1:9090/ --token-file ~/.sluice/state/worker-token]
 * </pre>
 * Without {@code --admin} it starts its own Sluice on free ports with a fresh state directory.
 */
public final class GovernorPaceRun {
    /** The bounds for the second half of the run. */
    public static final double MIN_SERVED = 3.5;
    public static final double MAX_SERVED = 6.5;
    public static final double MAX_SHARE_429 = 0.10;

    private GovernorPaceRun() {
    }

    /** The two scenarios of the issue. */
    public static List<PaceTrial.Settings> scenarios(Duration length, int workers, double capacity) {
        return List.of(
                new PaceTrial.Settings("pace-" + fmt(capacity), workers, length, capacity, 0, 0, null),
                new PaceTrial.Settings("pace-" + fmt(capacity) + "-jittered", workers, length, capacity, 20, 200,
                        null));
    }

    /** Runs every trial at once against the permit API at {@code admin}. */
    public static List<PaceTrial.Result> runAll(List<PaceTrial.Settings> trials, URI admin, String token)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(trials.size());
        try {
            List<Future<PaceTrial.Result>> running = new ArrayList<>();
            for (PaceTrial.Settings trial : trials) {
                running.add(pool.submit(() -> PaceTrial.run(trial, admin, token)));
            }
            List<PaceTrial.Result> results = new ArrayList<>();
            for (Future<PaceTrial.Result> result : running) {
                results.add(result.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.parse(args, "seconds", "workers", "capacity", "out");
        int seconds = options.integer("seconds", 60);
        Path out = options.path("out", Path.of("docs", "governor"));
        List<PaceTrial.Settings> trials = scenarios(Duration.ofSeconds(seconds), options.integer("workers", 8),
                options.number("capacity", 5));
        List<PaceTrial.Result> results = options.withPermitApi("sluice-pace-",
                (admin, token, sluice) -> runAll(trials, admin, token));
        double half = seconds / 2.0;
        for (PaceTrial.Result result : results) {
            PaceTrial.Settings trial = result.settings();
            System.out.printf("%n%s: %s, latency %d-%d ms%n", trial.name(), result.domain(), trial.latencyMinMillis(),
                    trial.latencyMaxMillis());
            System.out.println("      s  req/s  served/s  429 share");
            for (double[] row : result.windows(5)) {
                System.out.printf(Locale.ROOT, "  %5.0f  %5.2f  %8.2f  %8.1f%%%n", row[0], row[1],
                        result.servedRate(row[0], row[0] + 5), 100 * row[2]);
            }
            double served = result.servedRate(half, seconds);
            double share = result.share429(half, seconds);
            boolean ok = served >= MIN_SERVED && served <= MAX_SERVED && share <= MAX_SHARE_429;
            System.out.printf(Locale.ROOT, "second half (%.0f-%d s): %.2f served/s, %.1f%% 429 -> %s "
                    + "(bounds %.1f-%.1f served/s, at most %.0f%% 429)%n", half, seconds, served, 100 * share,
                    ok ? "PASS" : "FAIL", MIN_SERVED, MAX_SERVED, 100 * MAX_SHARE_429);
            double cap = trial.capacity();
            List<double[]> rows = result.windows(5).stream().map(r -> new double[] {r[0], r[1], r[2], cap}).toList();
            ConvergencePlot.write(out, trial.name(), new ConvergencePlot.Run(String.format(Locale.ROOT,
                    "%d polling workers, a real site serving %s req/s (429 above), latency %d-%d ms",
                    trial.workers(), fmt(cap), trial.latencyMinMillis(), trial.latencyMaxMillis()),
                    Math.max(8, Math.ceil(cap * 1.6)), rows));
        }
        System.out.println("\nCSV and SVG in " + out.toAbsolutePath());
    }

    private static String fmt(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
