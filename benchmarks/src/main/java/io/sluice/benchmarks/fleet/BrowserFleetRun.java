package io.sluice.benchmarks.fleet;

import io.sluice.benchmarks.governor.RunOptions;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Issue 46's scraper-fleet benchmark: a site that renders about 80 pages a second ({@link PageSite}), a real Sluice
 * front end before it with the default policy (a fresh state directory), a person loading a page and its 14 assets
 * every 3 s throughout (a real headless Chromium by default, {@code --person java} for a Java client that behaves like
 * a browser with JavaScript), and in turn:
 *
 * <ol>
 *   <li>a quiet minute: the person alone (its loads are the baseline; the check must ask no one);</li>
 *   <li>{@code plain}: the fleet ({@link Fleet}: 1,000 addresses in 20 /24s with browser user agents, a page every
 *       2.5 s each once the last answer came, up to 400 pages/s) as a plain HTTP client;</li>
 *   <li>{@code shared}: the same fleet solving every proof-of-work natively, one pass per /24;</li>
 *   <li>{@code each}: the same, one pass per address.</li>
 * </ol>
 *
 * Each fleet is started a second before one of the person's loads (so that load is the first of the attack and meets
 * the check), runs for its seconds, is stopped, and the site is left to drain before the next. It prints, per phase,
 * the fleet's pages against the site's capacity (within 10 s of its start and over the phase), the person's loads
 * against the quiet minute's, the check's funnel from the engine's snapshot, and the goals met or missed.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.fleet.BrowserFleetRun \
 *      [--person chromium|java] [--warmup 15] [--quiet 60] [--attack 60] [--solving 45] [--fleets plain,shared,each] \
 *      [--networks 20] [--per-network 50] [--interval-ms 2500] [--workers 8] [--render-ms 100] [--sigma 0.8] \
 *      [--policy policy.json]
 * </pre>
 *
 * {@code --policy} starts Sluice on another policy than the default (the file's, as {@code --policy} of the server):
 * for what-if runs only, since issue 46's goals are the default policy's.
 */
public final class BrowserFleetRun {
    private static final List<String> OPTIONS = List.of("person", "warmup", "quiet", "attack", "solving", "fleets",
            "networks", "per-network", "interval-ms", "workers", "render-ms", "sigma", "every-ms", "load-timeout-ms",
            "drain", "seed", "policy");
    /** Issue 46's goals. */
    static final double FLEET_SHARE_GOAL = 0.05;
    static final double SOLVING_SHARE_GOAL = 0.10;
    static final long FIRST_PAGE_EXTRA_MILLIS = 1_500;
    static final double LATER_P99_FACTOR = 2.0;
    private static final int FIRST_WINDOW_SECONDS = 10;

    private BrowserFleetRun() {
    }

    /** One measured stretch of the run. */
    record Phase(String name, Fleet.Mode mode, long startNanos, long endNanos, int fromBucket, int toBucket,
                 Fleet.Counts fleet, BrowserCheckCounts before, BrowserCheckCounts after, String loadAverage,
                 List<Sample> timeline, long listenOverflows) {
        double seconds() {
            return (endNanos - startNanos) / 1e9;
        }
    }

    /**
     * The state at the end of one second of a phase: the site's pages in hand (rendering or queued), the front end's
     * requests in flight to it, pages challenged and fleet requests answered so far in the phase.
     */
    record Sample(int second, int pagesInHand, int inFlight, long challenged, long fleetRequests) {
    }

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.of(args, OPTIONS);
        Settings settings = new Settings(options);
        Path dir = Files.createTempDirectory("sluice-fleet-");
        System.out.printf("machine: %d cores, load average %s; Java %s; state and logs in %s%n",
                Runtime.getRuntime().availableProcessors(), loadAverage(), System.getProperty("java.version"), dir);
        try (PageSite site = PageSite.start(settings.workers, settings.renderMillis, settings.sigma, settings.seed);
             SluiceServer sluice = SluiceServer.start(new ServerConfig(new HostPort("127.0.0.1", 0), site.uri(),
                     new HostPort("127.0.0.1", 0), dir.resolve("state"), settings.policy, false, false, null,
                     ServerConfig.DEFAULT_UPSTREAM_TIMEOUT, null));
             Person person = "java".equals(settings.person) ? new JavaPerson(sluice.frontUri())
                     : ChromiumPerson.start(sluice.frontUri(), dir)) {
            BrowserCheck check = sluice.engine().policy().browserCheck();
            System.out.printf("site: %s, %d workers, render time log-normal mean %.0f ms sigma %.2f: %.0f pages/s%n",
                    site.uri(), settings.workers, settings.renderMillis, settings.sigma, site.capacity());
            System.out.printf("Sluice: %s, %s: browser check %s, difficulty %d bits, pressure at %d in "
                    + "flight, per pass %d in %d s, per /24 %d in %d s without a pass and %d in %d s on passes%n",
                    sluice.frontUri(), settings.policy == null ? "default policy" : "policy " + settings.policy,
                    check.mode(), check.difficulty(), check.pressureInFlight() > 0
                            ? check.pressureInFlight() : sluice.engine().policy().load().maxActive(),
                    check.perPass().maxHits(), check.perPass().windowSeconds(),
                    check.networks().withoutPass().maxHits(), check.networks().withoutPass().windowSeconds(),
                    check.networks().withPass().maxHits(), check.networks().withPass().windowSeconds());
            System.out.printf("person: %s, a page and its %d assets every %d ms%n", person.describe(),
                    PageSite.ASSETS, settings.everyMillis);
            InetSocketAddress front = new InetSocketAddress("127.0.0.1", sluice.frontUri().getPort());
            List<Phase> phases = new ArrayList<>();
            PersonLoop loop = new PersonLoop(person, settings.everyMillis, settings.loadTimeoutMillis);
            try {
                TimeUnit.SECONDS.sleep(settings.warmupSeconds);
                phases.add(measure("quiet", null, settings.quietSeconds, settings, site, sluice, loop, front));
                for (String name : settings.fleets) {
                    Fleet.Mode mode = switch (name) {
                        case "plain" -> Fleet.Mode.PLAIN;
                        case "shared" -> Fleet.Mode.SHARED_PASS;
                        case "each" -> Fleet.Mode.PASS_PER_ADDRESS;
                        default -> throw new IllegalArgumentException("--fleets: plain, shared or each, not " + name);
                    };
                    int seconds = mode == Fleet.Mode.PLAIN ? settings.attackSeconds : settings.solvingSeconds;
                    phases.add(measure(name, mode, seconds, settings, site, sluice, loop, front));
                    drain(site, settings.drainSeconds);
                }
            } finally {
                loop.close();
            }
            report(phases, site, loop, settings);
        }
        System.out.printf("load average at the end: %s%n", loadAverage());
    }

    private static Phase measure(String name, Fleet.Mode mode, int seconds, Settings settings, PageSite site,
                                 SluiceServer sluice, PersonLoop loop, InetSocketAddress front) throws Exception {
        Fleet fleet = null;
        if (mode != null) {
            long readying = System.nanoTime();
            fleet = Fleet.prepare(front, mode, settings.networks, settings.perNetwork, settings.intervalMillis,
                    (int) settings.loadTimeoutMillis + 30_000, settings.seed);
            System.out.printf("%s: %d fleet threads started in %d ms%n", name, settings.networks * settings.perNetwork,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - readying));
            // a second before one of the person's loads, so that load is the attack's first
            long at = loop.nextStart() - TimeUnit.SECONDS.toNanos(1);
            while (at - System.nanoTime() < TimeUnit.MILLISECONDS.toNanos(100)) {
                at += loop.everyNanos();
            }
            TimeUnit.NANOSECONDS.sleep(at - System.nanoTime());
        }
        BrowserCheckCounts before = sluice.engine().snapshot().browserCheck();
        long overflows = listenOverflows();
        long start = System.nanoTime();
        System.out.printf("%s: %ds from now (load average %s)%n", name, seconds, loadAverage());
        if (fleet != null) {
            fleet.go();
        }
        List<Sample> timeline = new ArrayList<>();
        long end;
        try {
            for (int second = 1; second <= seconds; second++) {
                TimeUnit.NANOSECONDS.sleep(start + TimeUnit.SECONDS.toNanos(second) - System.nanoTime());
                timeline.add(new Sample(second, site.pagesInHand(), sluice.engine().inFlight(),
                        sluice.engine().snapshot().browserCheck().challenged() - before.challenged(),
                        fleet == null ? 0 : fleet.counts().requests.sum()));
            }
        } finally {
            end = System.nanoTime();
            if (fleet != null) {
                fleet.close();
            }
        }
        BrowserCheckCounts after = sluice.engine().snapshot().browserCheck();
        return new Phase(name, mode, start, end, site.bucket(start), site.bucket(end),
                fleet == null ? null : fleet.counts(), before, after, loadAverage(), timeline,
                listenOverflows() - overflows);
    }

    /** Waits until the site has no page in hand (the stopped fleet's last requests), then 5 s more. */
    private static void drain(PageSite site, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (site.pagesInHand() > 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(200);
        }
        TimeUnit.SECONDS.sleep(5);
    }

    private static void report(List<Phase> phases, PageSite site, PersonLoop loop, Settings settings) {
        Phase quiet = phases.get(0);
        List<Person.Load> quietLoads = loop.startedBetween(quiet.startNanos(), quiet.endNanos());
        long quietP50 = percentile(quietLoads, 0.50);
        long quietP99 = percentile(quietLoads, 0.99);
        long quietChallenges = quiet.after().challenged() - quiet.before().challenged();
        System.out.printf("%n== quiet minute (%.0f s, load average %s)%n", quiet.seconds(), quiet.loadAverage());
        System.out.printf("person: %d loads, %d failed, p50 %d ms, p99 %d ms, max %d ms%s%n", quietLoads.size(),
                failed(quietLoads), quietP50, quietP99, percentile(quietLoads, 1.0), failures(quietLoads));
        System.out.printf("site: %d pages to the person, %d to anyone else%n", site.otherPages(quiet.fromBucket(),
                quiet.toBucket()), site.fleetPages(quiet.fromBucket(), quiet.toBucket()));
        System.out.printf("challenges issued: %d (goal 0: %s)%n", quietChallenges, verdict(quietChallenges == 0));
        System.out.printf("csv,phase,seconds,fleet_share_10s_pct,fleet_share_run_pct,served_share_run_pct,"
                + "site_pages_per_s,person_loads,person_failed,person_first_ms,person_p50_ms,person_p99_ms,challenged,"
                + "passes_earned,passes_dropped,fleet_pages,fleet_hashes,hashes_per_page,load_average%n");
        System.out.printf(Locale.ROOT, "csv,quiet,%.0f,,,,%.1f,%d,%d,,%d,%d,%d,%d,%d,,,,%s%n", quiet.seconds(),
                (site.fleetPages(quiet.fromBucket(), quiet.toBucket()) + site.otherPages(quiet.fromBucket(),
                        quiet.toBucket())) / quiet.seconds(), quietLoads.size(), failed(quietLoads), quietP50,
                quietP99, quietChallenges, quiet.after().passesEarned() - quiet.before().passesEarned(),
                quiet.after().passesDropped() - quiet.before().passesDropped(), quiet.loadAverage().replace(' ', '/'));
        for (Phase phase : phases.subList(1, phases.size())) {
            reportAttack(phase, site, loop, settings, quietP50, quietP99);
        }
    }

    private static void reportAttack(Phase phase, PageSite site, PersonLoop loop, Settings settings, long quietP50,
                                     long quietP99) {
        double capacity = site.capacity();
        int firstEnd = Math.min(phase.toBucket(), phase.fromBucket() + FIRST_WINDOW_SECONDS * 1000
                / PageSite.BUCKET_MILLIS);
        long fleetFirst = site.fleetPages(phase.fromBucket(), firstEnd);
        long fleetRun = site.fleetPages(phase.fromBucket(), phase.toBucket());
        long personRun = site.otherPages(phase.fromBucket(), phase.toBucket());
        double firstShare = fleetFirst / (capacity * FIRST_WINDOW_SECONDS);
        double runShare = fleetRun / (capacity * phase.seconds());
        double servedShare = fleetRun + personRun == 0 ? 0 : fleetRun / (double) (fleetRun + personRun);
        Fleet.Counts fleet = phase.fleet();
        BrowserCheckCounts before = phase.before();
        BrowserCheckCounts after = phase.after();
        System.out.printf("%n== %s: %s (%.0f s, load average at its end %s)%n", phase.name(), describe(phase.mode(),
                settings), phase.seconds(), phase.loadAverage());
        System.out.printf(Locale.ROOT, "site: %.1f pages/s served (%.1f to the fleet, %.2f to the person)%n",
                (fleetRun + personRun) / phase.seconds(), fleetRun / phase.seconds(), personRun / phase.seconds());
        System.out.printf(Locale.ROOT, "fleet's share of the site's capacity (%.0f pages/s): first %d s %.1f%% (%d "
                + "pages), whole phase %.1f%% (%d pages); of the pages served %.1f%%%n", capacity,
                FIRST_WINDOW_SECONDS, 100 * firstShare, fleetFirst, 100 * runShare, fleetRun, 100 * servedShare);
        long hashes = fleet.hashes.sum();
        System.out.printf(Locale.ROOT, "fleet: %d requests, %d pages, %d interstitials, %d other answers, %d errors; "
                + "statuses %s; %d challenges solved, %d answers refused, %d hashes (%s per page obtained)%n",
                fleet.requests.sum(), fleet.pages.sum(), fleet.interstitials.sum(), fleet.otherAnswers.sum(),
                fleet.errors.sum(), statuses(fleet), fleet.solved.sum(), fleet.answersRefused.sum(), hashes,
                fleetRun == 0 ? "-" : String.format(Locale.ROOT, "%.0f", hashes / (double) fleetRun));
        double[] answers = fleet.answerMillis(0.5, 0.99, 1.0);
        System.out.printf(Locale.ROOT, "fleet's answers took p50 %.0f ms, p99 %.0f ms, max %.0f ms%n", answers[0],
                answers[1], answers[2]);
        System.out.printf("check: %d challenged, %d passes earned, %d answers refused, %d served on a pass, %d passes "
                + "dropped; under pressure at the end: %s%n", after.challenged() - before.challenged(),
                after.passesEarned() - before.passesEarned(), after.answersRefused() - before.answersRefused(),
                after.servedOnPass() - before.servedOnPass(), after.passesDropped() - before.passesDropped(),
                after.underPressure());
        timeline(phase, site);
        System.out.printf("connections dropped by full accept queues on the machine during the phase: %d%n",
                phase.listenOverflows());
        List<Person.Load> loads = loop.startedBetween(phase.startNanos(), phase.endNanos());
        Person.Load first = loads.isEmpty() ? null : loads.get(0);
        List<Person.Load> later = loads.isEmpty() ? List.of() : loads.subList(1, loads.size());
        long laterP99 = percentile(later, 0.99);
        if (first != null && !first.note().isEmpty()) {
            System.out.printf("person's first load: %s%n", first.note());
        }
        System.out.printf("person: %d loads, %d failed%s; first %s ms (%s interstitial%s), later p50 %d ms, p99 %d ms, "
                + "max %d ms%n", loads.size(), failed(loads), failures(loads), first == null ? "-" : first.millis(),
                first == null ? "-" : first.interstitials(), first != null && first.interstitials() == 1 ? "" : "s",
                percentile(later, 0.5), laterP99, percentile(later, 1.0));
        if (phase.mode() == Fleet.Mode.PLAIN) {
            System.out.printf(Locale.ROOT, "goals: fleet share first %d s <= 5%%: %s; over the phase <= 5%%: %s; "
                    + "person failed loads 0: %s; first page <= quiet p50 + 1.5 s (%d ms): %s; later p99 <= 2x quiet "
                    + "p99 (%d ms): %s%n", FIRST_WINDOW_SECONDS, verdict(firstShare <= FLEET_SHARE_GOAL),
                    verdict(runShare <= FLEET_SHARE_GOAL), verdict(failed(loads) == 0),
                    quietP50 + FIRST_PAGE_EXTRA_MILLIS, verdict(first != null && first.ok()
                            && first.millis() <= quietP50 + FIRST_PAGE_EXTRA_MILLIS),
                    Math.round(LATER_P99_FACTOR * quietP99), verdict(laterP99 <= LATER_P99_FACTOR * quietP99));
        } else if (phase.mode() == Fleet.Mode.SHARED_PASS) {
            System.out.printf("goal: share over the phase <= 10%%: %s%n", verdict(runShare <= SOLVING_SHARE_GOAL));
        }
        System.out.printf(Locale.ROOT, "csv,%s,%.0f,%.1f,%.1f,%.1f,%.1f,%d,%d,%s,%d,%d,%d,%d,%d,%d,%d,%s,%s%n",
                phase.name(), phase.seconds(), 100 * firstShare, 100 * runShare, 100 * servedShare,
                (fleetRun + personRun) / phase.seconds(), loads.size(), failed(loads),
                first == null ? "" : Long.toString(first.millis()), percentile(later, 0.5), laterP99,
                after.challenged() - before.challenged(), after.passesEarned() - before.passesEarned(),
                after.passesDropped() - before.passesDropped(), fleetRun, hashes,
                fleetRun == 0 ? "" : String.format(Locale.ROOT, "%.0f", hashes / (double) fleetRun),
                phase.loadAverage().replace(' ', '/'));
    }

    /** Second by second for the first 12 s, then every 6 s: pages served that second, and the sample at its end. */
    private static void timeline(Phase phase, PageSite site) {
        StringBuilder rows = new StringBuilder("timeline (s: fleet pages arrived/served and person pages served that "
                + "second at the site, pages in its hands, in flight at the front end, challenged and fleet answers so "
                + "far):");
        int perSecond = 1000 / PageSite.BUCKET_MILLIS;
        for (Sample sample : phase.timeline()) {
            if (sample.second() > 12 && sample.second() % 6 != 0) {
                continue;
            }
            int to = phase.fromBucket() + sample.second() * perSecond;
            rows.append(String.format(" %d: %d/%d/%d %d %d %d %d;", sample.second(),
                    site.fleetArrivals(to - perSecond, to), site.fleetPages(to - perSecond, to),
                    site.otherPages(to - perSecond, to), sample.pagesInHand(), sample.inFlight(), sample.challenged(),
                    sample.fleetRequests()));
        }
        System.out.println(rows);
    }

    private static String describe(Fleet.Mode mode, Settings settings) {
        String fleet = String.format("%d addresses in %d /24s, a page every %d ms each once answered",
                settings.networks * settings.perNetwork, settings.networks, settings.intervalMillis);
        return switch (mode) {
            case PLAIN -> "the fleet as a plain HTTP client, " + fleet;
            case SHARED_PASS -> "the fleet solving every proof-of-work, one pass per /24, " + fleet;
            case PASS_PER_ADDRESS -> "the fleet solving every proof-of-work, a pass per address, " + fleet;
        };
    }

    private static String statuses(Fleet.Counts fleet) {
        Map<Integer, Long> sorted = new TreeMap<>();
        fleet.statuses.forEach((code, count) -> sorted.put(code, count.sum()));
        return sorted.toString();
    }

    /** Nearest-rank percentile of the loads' times ({@code 1.0}: the longest); 0 for none. */
    static long percentile(List<Person.Load> loads, double p) {
        if (loads.isEmpty()) {
            return 0;
        }
        long[] millis = loads.stream().mapToLong(Person.Load::millis).sorted().toArray();
        int rank = (int) Math.ceil(p * millis.length);
        return millis[Math.max(0, Math.min(millis.length, rank) - 1)];
    }

    private static long failed(List<Person.Load> loads) {
        return loads.stream().filter(load -> !load.ok()).count();
    }

    private static String failures(List<Person.Load> loads) {
        String notes = loads.stream().filter(load -> !load.ok()).map(Person.Load::note).distinct().limit(3)
                .collect(Collectors.joining(" | "));
        return notes.isEmpty() ? "" : " (" + notes + ")";
    }

    private static String verdict(boolean met) {
        return met ? "met" : "MISSED";
    }

    /**
     * Connections the kernel dropped because a listener's accept queue was full, on the whole machine (other
     * engineers' runs too): {@code TcpExt ListenOverflows} in {@code /proc/net/netstat}; -1 when unreadable.
     */
    static long listenOverflows() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/netstat"));
            for (int i = 0; i + 1 < lines.size(); i += 2) {
                List<String> names = List.of(lines.get(i).split(" "));
                int at = names.indexOf("ListenOverflows");
                if (names.get(0).equals("TcpExt:") && at > 0) {
                    return Long.parseLong(lines.get(i + 1).split(" ")[at]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: said as -1
        }
        return -1;
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "?";
        }
    }

    /** The run's settings, from the command line. */
    private static final class Settings {
        final String person;
        final int warmupSeconds;
        final int quietSeconds;
        final int attackSeconds;
        final int solvingSeconds;
        final List<String> fleets;
        final int networks;
        final int perNetwork;
        final long intervalMillis;
        final int workers;
        final double renderMillis;
        final double sigma;
        final long everyMillis;
        final long loadTimeoutMillis;
        final int drainSeconds;
        final long seed;
        final Path policy;

        Settings(RunOptions options) {
            person = options.text("person", "chromium");
            warmupSeconds = options.integer("warmup", 15);
            quietSeconds = options.integer("quiet", 60);
            attackSeconds = options.integer("attack", 60);
            solvingSeconds = options.integer("solving", 45);
            fleets = List.of(options.text("fleets", "plain,shared,each").split(","));
            networks = options.integer("networks", 20);
            perNetwork = options.integer("per-network", 50);
            intervalMillis = options.integer("interval-ms", 2_500);
            workers = options.integer("workers", 8);
            renderMillis = options.number("render-ms", 100);
            sigma = options.number("sigma", 0.8);
            everyMillis = options.integer("every-ms", 3_000);
            loadTimeoutMillis = options.integer("load-timeout-ms", 30_000);
            drainSeconds = options.integer("drain", 40);
            seed = options.integer("seed", 46);
            policy = options.path("policy", null);
        }
    }
}
