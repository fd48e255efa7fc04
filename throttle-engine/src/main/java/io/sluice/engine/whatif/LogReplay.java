package io.sluice.engine.whatif;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.UserAgentClassifier;
import io.sluice.engine.policy.Policy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Replays access logs through a candidate policy ({@code sluice-server replay}): every request is fed to a
 * {@link WhatIfRun} at its logged time, and compared with what the log says Sluice decided, or with a
 * second policy replayed the same way ({@code --against}).
 *
 * <p>What the log cannot say is approximated, and the report's notes say so: NCSA times are whole seconds,
 * so the requests of one second are spread evenly over it; how long a request ran is not logged, so each
 * admitted one is taken to be in flight {@link Options#assumedMillis()}; both policies start with no history
 * at the log's first line. No DNS lookups are made: search-engine claims are taken at their word.
 */
public final class LogReplay {
    private final Policy candidate;
    private final Policy against;
    private final UserAgentClassifier classifier;
    private final Options options;

    /**
     * @param assumedMillis how long an admitted request is taken to be in flight
     * @param maxClients    the most clients counted one by one (the rest only in the totals)
     * @param limit         the most differing clients listed
     * @param config        sizing of each policy's engine
     */
    public record Options(long assumedMillis, int maxClients, int limit, EngineConfig config) {
        public static final long DEFAULT_ASSUMED_MILLIS = 100;

        public Options {
            if (assumedMillis < 0) {
                throw new IllegalArgumentException("the assumed request time must not be negative");
            }
            if (maxClients < 1 || limit < 0) {
                throw new IllegalArgumentException("maxClients must be positive and limit not negative");
            }
            Objects.requireNonNull(config, "config");
        }

        public static Options defaults() {
            return new Options(DEFAULT_ASSUMED_MILLIS, 1_000_000, 50, EngineConfig.defaults());
        }

        public Options withAssumedMillis(long millis) {
            return new Options(millis, maxClients, limit, config);
        }

        public Options withLimit(int newLimit) {
            return new Options(assumedMillis, maxClients, newLimit, config);
        }
    }

    /** Told how far a replay has got, every {@value #PROGRESS_EVERY} lines and at the end of each file. */
    public interface Progress {
        Progress NONE = (file, lines, bytesRead, bytesTotal) -> { };

        /**
         * @param lines      lines read so far, all files
         * @param bytesRead  bytes read of this file (compressed bytes for gzip)
         * @param bytesTotal this file's size
         */
        void update(Path file, long lines, long bytesRead, long bytesTotal);
    }

    static final int PROGRESS_EVERY = 1 << 16;

    /**
     * @param candidate the policy to try
     * @param against   the policy to compare it with, or null to compare with the decisions the log records
     *                  (Sluice's {@code sluice=...}; a line without one, as in nginx's and Apache's logs, counts
     *                  as {@code ADMIT}: it was served)
     */
    public LogReplay(Policy candidate, Policy against, UserAgentClassifier classifier, Options options) {
        this.candidate = Objects.requireNonNull(candidate, "candidate");
        this.against = against;
        this.classifier = Objects.requireNonNull(classifier, "classifier");
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * Replays {@code logs} in the order given (oldest first, as rotated logs are named in reverse: pass
     * {@code access.log.2.gz access.log.1 access.log}).
     *
     * @throws IOException when a log cannot be read
     */
    public WhatIfReport run(List<Path> logs, Progress progress) throws IOException {
        Tally tally = new Tally(options.maxClients());
        List<String> notes = new ArrayList<>();
        Policy tried = withoutDns(candidate, "candidate", notes);
        Policy baseline = against == null ? null : withoutDns(against, "--against", notes);
        Feed feed = new Feed(tried, baseline, tally);
        long lines = 0;
        long skipped = 0;
        String firstSkipped = null;
        for (Path log : logs) {
            long size = Files.size(log);
            try (AccessLogReader reader = new AccessLogReader(log)) {
                LogEntry entry;
                long fileLines = 0;
                while ((entry = reader.next()) != null) {
                    feed.add(entry);
                    if (++fileLines % PROGRESS_EVERY == 0) {
                        progress.update(log, lines + reader.lines(), reader.bytesRead(), size);
                    }
                }
                feed.flushSecond();
                lines += reader.lines();
                skipped += reader.skipped();
                if (firstSkipped == null && reader.skipped() > 0) {
                    firstSkipped = log + ":" + reader.firstSkippedLine();
                }
                progress.update(log, lines, reader.bytesRead(), size);
            }
        }
        feed.finish();
        notes.add(0, "Log times are whole seconds: the requests of one second are spread evenly over it.");
        notes.add(1, "How long a request ran is not in the log: each admitted request is taken to be in flight "
                + options.assumedMillis() + " ms (concurrency and load are approximate).");
        notes.add(2, "Each policy starts with no history at the first line; a class is the candidate's "
                + "classification of the request.");
        if (skipped > 0) {
            notes.add(skipped + " of " + lines + " lines were not requests in NCSA combined format and were skipped "
                    + "(first: " + firstSkipped + ").");
        }
        if (tally.requests() == 0) {
            notes.add("No requests were found in the logs.");
        }
        String baselineName = against == null
                ? "the decisions the log records (sluice=...; a line without one counts as ADMIT)"
                : "the --against policy, replayed the same way";
        Instant from = tally.requests() == 0 ? null : Instant.ofEpochMilli(tally.firstMillis());
        Instant to = tally.requests() == 0 ? null : Instant.ofEpochMilli(tally.lastMillis());
        return tally.report("replay", baselineName, from, to, options.limit(), 0, skipped, notes);
    }

    /**
     * A replay makes no DNS lookups: crawler claims are still verified by the published ranges and the policy's own
     * (as live), but one from a crawler that publishes only host names counts as unverified; the report says so.
     */
    private static Policy withoutDns(Policy policy, String which, List<String> notes) {
        if (policy.crawlers().verifySearchEngines()) {
            notes.add("The " + which + " policy verifies crawlers; a replay makes no DNS lookups, so only published "
                    + "and policy address ranges verify a claim (a crawler that publishes only host names, such as "
                    + "Yandex or Baidu, counts as a bot).");
        }
        return policy;
    }

    /** Groups the lines of one logged second, spreads them over it and feeds them to the run. */
    private final class Feed {
        private final Policy tried;
        private final Policy baseline;
        private final Tally tally;
        private final List<LogEntry> second = new ArrayList<>();
        private WhatIfRun run;

        Feed(Policy tried, Policy baseline, Tally tally) {
            this.tried = tried;
            this.baseline = baseline;
            this.tally = tally;
        }

        void add(LogEntry entry) {
            if (!second.isEmpty() && second.get(0).epochSecond() != entry.epochSecond()) {
                flushSecond();
            }
            second.add(entry);
        }

        void flushSecond() {
            int n = second.size();
            if (n == 0) {
                return;
            }
            long base = second.get(0).epochSecond() * 1000;
            if (run == null) {
                run = new WhatIfRun(base, tried, baseline, options.config(), classifier, null,
                        options.assumedMillis(), millis -> tally);
            }
            for (int i = 0; i < n; i++) {
                LogEntry entry = second.get(i);
                Outcome logged = baseline != null ? null : entry.logged() == null ? Outcome.ADMIT : entry.logged();
                run.arrive(new Observation(base + i * 1000L / n, new Request(entry.ip(), entry.userAgent(), null,
                        entry.method(), entry.path(), entry.query(), null), logged, false));
            }
            second.clear();
        }

        void finish() {
            if (run != null) {
                run.finish();
            }
        }
    }
}
