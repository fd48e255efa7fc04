package io.sluice.server.ranges;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerRanges;
import io.sluice.engine.telemetry.CrawlerVerification;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a running server's crawler ranges fresh: the bundled copy with the operator's last good copy over it
 * ({@link OperatorRanges}). One daemon thread, every {@link #PERIOD_SECONDS}: reads the state directory's copy again
 * when it changed (a {@code sluice-server crawler-ranges update} was run), and reads the configured source when it is
 * due (every {@code refresh}; after a failure, again within the hour). A source that fails, or a copy that is
 * refused, keeps the last good copy; the snapshot's {@code crawlerVerification.ranges} says so, with each source's
 * age ({@code sluice_crawler_ranges_age_seconds} on /metrics).
 */
public final class CrawlerRangesFollower implements AutoCloseable {

    /** How often the state file is looked at and the source's turn checked. */
    public static final int PERIOD_SECONDS = 30;
    /** A failed or refused read is tried again this soon (or at the refresh, if sooner). */
    static final Duration RETRY = Duration.ofHours(1);
    private static final System.Logger LOG = System.getLogger(CrawlerRangesFollower.class.getName());

    private final ThrottleEngine engine;
    private final Path stateDir;
    private final CrawlerRangesOptions options;
    private final InstantSource clock;
    private ScheduledExecutorService timer;
    /** The state file's modification time when last read; null before. */
    private FileTime seen;
    private CrawlerRanges good;
    /** When the copy in use was read good (its date when it carries none). */
    private Instant goodReadAt;
    private Instant checkedAt;
    private String problem;
    private Instant nextRead;

    CrawlerRangesFollower(ThrottleEngine engine, Path stateDir, CrawlerRangesOptions options, InstantSource clock) {
        this.engine = engine;
        this.stateDir = stateDir;
        this.options = options == null ? CrawlerRangesOptions.NONE : options;
        this.clock = clock;
        this.nextRead = clock.instant();
    }

    /**
     * Uses the state directory's copy at once (a restart keeps the last good one without asking its source), then
     * follows it and reads the source on a thread of its own, the first time at once.
     */
    public static CrawlerRangesFollower start(ThrottleEngine engine, Path stateDir, CrawlerRangesOptions options,
                                              InstantSource clock) {
        CrawlerRangesFollower follower = new CrawlerRangesFollower(engine, stateDir, options, clock);
        follower.followStateFile();
        follower.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-crawler-ranges");
            thread.setDaemon(true);
            return thread;
        });
        follower.timer.scheduleWithFixedDelay(follower::tick, 0, PERIOD_SECONDS, TimeUnit.SECONDS);
        return follower;
    }

    /** One turn of the timer: the state file if it changed, then the source if it is due. */
    public synchronized void tick() {
        try {
            followStateFile();
            if (options.source() != null && !clock.instant().isBefore(nextRead)) {
                readSource();
            }
        } catch (RuntimeException e) { // the timer must live on: the next turn tries again
            LOG.log(System.Logger.Level.ERROR, "crawler ranges not refreshed: " + e);
        }
    }

    private void readSource() {
        Instant now = clock.instant();
        OperatorRanges.Outcome outcome = OperatorRanges.update(stateDir, options.source(), false, null);
        checkedAt = now;
        if (outcome.used()) {
            good = outcome.copy();
            goodReadAt = now;
            problem = null;
            seen = modified();
            nextRead = now.plus(options.refresh());
            LOG.log(System.Logger.Level.INFO, "crawler ranges read from " + options.source() + ": "
                    + outcome.message());
        } else {
            problem = outcome.message();
            nextRead = now.plus(options.refresh().compareTo(RETRY) < 0 ? options.refresh() : RETRY);
            LOG.log(System.Logger.Level.WARNING, "crawler ranges from " + options.source() + " " + problem);
        }
        apply();
    }

    /** Reads the state directory's copy when it changed since it was last read. */
    private synchronized void followStateFile() {
        FileTime modified = modified();
        if (modified == null || modified.equals(seen)) {
            return;
        }
        seen = modified;
        try {
            CrawlerRanges copy = OperatorRanges.lastGood(stateDir);
            if (copy != null) {
                good = copy;
                goodReadAt = modified.toInstant();
                problem = null;
                LOG.log(System.Logger.Level.INFO, "crawler ranges read from " + stateDir.resolve(OperatorRanges.FILE)
                        + ": " + copy.prefixCount() + " blocks");
            }
        } catch (IOException | IllegalArgumentException e) {
            problem = "the state directory's copy could not be used: " + e.getMessage()
                    + "; the last good copy is kept";
            LOG.log(System.Logger.Level.WARNING, "crawler ranges: " + problem);
        }
        apply();
    }

    private void apply() {
        CrawlerRanges bundled = CrawlerRanges.bundled();
        List<CrawlerVerification.RangesSource> sources = new ArrayList<>();
        sources.add(new CrawlerVerification.RangesSource("bundled", CrawlerRanges.RESOURCE, bundled.asOf(), -1, null,
                bundled.prefixCount(), null));
        if (options.source() != null || good != null || problem != null) {
            String location = options.source() != null ? options.source().text()
                    : stateDir.resolve(OperatorRanges.FILE).toString();
            Instant asOf = good == null ? null : good.asOf() != null ? good.asOf() : goodReadAt;
            sources.add(new CrawlerVerification.RangesSource("operator", location, asOf, -1, checkedAt,
                    good == null ? 0 : good.prefixCount(), problem));
        }
        engine.useCrawlerRanges(good == null ? bundled : bundled.overlay(good), sources);
    }

    private FileTime modified() {
        try {
            return Files.getLastModifiedTime(stateDir.resolve(OperatorRanges.FILE));
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
