package io.sluice.benchmarks.governor;

import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.server.SluiceServer;
import io.sluice.server.change.PolicyChanges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The crawl governor at fleet scale (issue #31, docs/BENCHMARKS.md "Crawl governor: a fleet"): 40 polling
 * workers sharing a frontier of 20 real local sites of 1 to 10 requests per second (67 in all, 429 above each
 * one's capacity, latency 20-200 ms), each worker asking one permit call for any of the 20, through one
 * Sluice. Prints, for the second half of the run, the four figures against their goals, each site's share,
 * and draws the smallest site's rate over time ({@link ConvergencePlot}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.governor.FleetRun \
 *      [--seconds 90] [--workers 40] [--hold 2000] [--decrease-factor 0.8] [--out docs/governor] \
 *      [--admin http://127.0.0.1:9090/ --token-file ~/.sluice/state/worker-token]
 * </pre>
 * Without {@code --admin} it starts its own Sluice on free ports with a fresh state directory, with the
 * default policy but for {@code --decrease-factor} (the AIMD cut, which sets the sawtooth's mean).
 */
public final class FleetRun {
    /** The 20 sites, 1 to 10 requests per second, 67 in all. */
    public static final List<Double> CAPACITIES = List.of(1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0,
            3.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0, 6.0, 10.0);
    /** The goals. */
    public static final double MIN_FLEET_SHARE = 0.90;
    public static final double MIN_WORST_SITE_SHARE = 0.70;
    public static final double MAX_SHARE_429 = 0.05;
    public static final double MAX_CALLS_PER_GRANT = 2;

    private FleetRun() {
    }

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.parse(args, "seconds", "workers", "hold", "decrease-factor", "out");
        double decreaseFactor = options.number("decrease-factor", GovernorPolicy.DEFAULTS.decreaseFactor());
        FleetTrial.Settings settings = new FleetTrial.Settings(options.integer("workers", 40),
                Duration.ofSeconds(options.integer("seconds", 90)), CAPACITIES, 20, 200,
                options.integer("hold", 2_000));
        Path out = options.path("out", Path.of("docs", "governor"));
        options.withPermitApi("sluice-fleet-", (admin, token, sluice) -> {
            if (sluice != null) {
                // as an operator would: the run's policy is audited like any other change
                sluice.policyChanges().edit(new PolicyChanges.Author("fleet-run", null),
                        p -> p.withGovernor(p.governor().withDecreaseFactor(decreaseFactor)));
            }
            report(FleetTrial.run(settings, admin, token), sluice, out);
            return null;
        });
    }

    private static void report(FleetTrial.Result result, SluiceServer sluice, Path out) {
        FleetTrial.Settings settings = result.settings();
        double end = settings.length().toMillis() / 1000.0;
        double half = end / 2;
        System.out.printf(Locale.ROOT, "%n%d workers, %d sites (%.0f req/s in all), latency %d-%d ms, hold %d ms, "
                + "%.0f s; figures for %.0f-%.0f s%n", settings.workers(), result.domains().size(), settings.capacity(),
                settings.latencyMinMillis(), settings.latencyMaxMillis(), settings.holdMillis(), end, half, end);
        System.out.println("  site              capacity  served/s  share   429   learned rate  backoff level");
        for (int site = 0; site < result.domains().size(); site++) {
            String domain = result.domains().get(site);
            String learned = sluice == null ? "" : sluice.governor().domain(domain).map(view -> String.format(
                    Locale.ROOT, "%12.2f  %13d", view.rate(), view.backoffLevel())).orElse("");
            System.out.printf(Locale.ROOT, "  %-16s  %8.0f  %8.2f  %4.0f%%  %4.1f%%  %s%n", domain,
                    settings.capacities().get(site), result.served(site, half, end),
                    100 * result.siteShare(site, half, end), 100 * result.share429(site, half, end), learned);
        }
        int worst = result.worstSite(half, end);
        double fleet = result.fleetShare(half, end);
        double worstShare = result.siteShare(worst, half, end);
        double share429 = result.share429(-1, half, end);
        double calls = result.callsPerGrant();
        System.out.printf(Locale.ROOT, "fleet capacity used      %5.1f%%  (goal >= %.0f%%) %s%n", 100 * fleet,
                100 * MIN_FLEET_SHARE, verdict(fleet >= MIN_FLEET_SHARE));
        System.out.printf(Locale.ROOT, "worst site's share       %5.1f%%  (goal >= %.0f%%) %s  (%s, %.0f req/s)%n",
                100 * worstShare, 100 * MIN_WORST_SITE_SHARE, verdict(worstShare >= MIN_WORST_SITE_SHARE),
                result.domains().get(worst), settings.capacities().get(worst));
        System.out.printf(Locale.ROOT, "429 share                %5.1f%%  (goal <= %.0f%%) %s%n", 100 * share429,
                100 * MAX_SHARE_429, verdict(share429 <= MAX_SHARE_429));
        System.out.printf(Locale.ROOT, "permit calls per fetch   %6.2f  (goal <= %.0f) %s  (%d calls, %d grants, "
                + "%d calls or fetches lost to a closed connection)%n", calls, MAX_CALLS_PER_GRANT,
                verdict(calls <= MAX_CALLS_PER_GRANT), result.permitCalls(), result.grants(),
                result.droppedConnections());
        int smallest = 0;
        double cap = settings.capacities().get(smallest);
        List<double[]> rows = result.windows(smallest, 5).stream().map(r -> new double[] {r[0], r[1], r[2], cap})
                .toList();
        ConvergencePlot.write(out, "fleet-small-site", new ConvergencePlot.Run(String.format(Locale.ROOT,
                "A %.0f req/s site in a fleet of %d sites (%.0f req/s) crawled by %d workers", cap,
                result.domains().size(), settings.capacity(), settings.workers()), 2, rows));
        System.out.println("CSV and SVG of the smallest site in " + out.toAbsolutePath());
    }

    private static String verdict(boolean ok) {
        return ok ? "PASS" : "FAIL";
    }
}
