package io.sluice.server.replay;

import io.sluice.engine.UserAgentClassifier;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.whatif.LogReplay;
import io.sluice.engine.whatif.ReportText;
import io.sluice.engine.whatif.WhatIfReport;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.state.StateException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice-server replay}: what a candidate policy would have done to the traffic in access logs. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Replays access logs (NCSA combined: Sluice's, nginx's, Apache's; gzip too) through a "
                + "candidate policy and prints, per class and outcome, what it would have done next to what was "
                + "done, and the clients the two treat differently (browsers first).",
            "Exit codes: 0 done, 1 a log or policy file cannot be read, 2 bad command line or invalid policy."})
public final class ReplayCommand implements Callable<Integer> {

    @Option(names = "--policy", required = true, paramLabel = "FILE", description = "The candidate policy (JSON).")
    Path policy;

    @Option(names = "--against", paramLabel = "FILE", description = "Compare with this policy, replayed the same "
            + "way, instead of the decisions the log records (Sluice's sluice=...; a line without one, as in nginx's "
            + "and Apache's logs, counts as ADMIT).")
    Path against;

    @Option(names = "--json", description = "Print the report as JSON (the format of GET /api/v1/policy/shadow).")
    boolean json;

    @Option(names = "--request-millis", paramLabel = "MS", defaultValue = "100", description = "How long each "
            + "admitted request is taken to be in flight: logs do not say (default: ${DEFAULT-VALUE}).")
    long requestMillis;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "50",
            description = "The most differing clients listed (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--crawler-list", paramLabel = "FILE",
            description = "A newer crawler-user-agents JSON file to classify with instead of the bundled one.")
    Path crawlerList;

    @Parameters(arity = "1..*", paramLabel = "ACCESS_LOG", description = "Access logs, oldest first.")
    List<Path> logs;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (requestMillis < 0 || requestMillis > 3_600_000) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--request-millis must be 0-3600000");
        }
        if (clients < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--clients must not be negative");
        }
        Policy candidate;
        Policy baseline;
        try {
            candidate = StateDirectory.read(policy, "policy file");
            baseline = against == null ? null : StateDirectory.read(against, "policy file");
        } catch (StateException e) {
            err.println("sluice-server replay: " + e.getMessage());
            return e.getMessage().startsWith("cannot read") ? 1 : 2;
        }
        for (Path log : logs) {
            if (!Files.isReadable(log) || Files.isDirectory(log)) {
                err.println("sluice-server replay: cannot read access log " + log);
                return 1;
            }
        }
        UserAgentClassifier classifier;
        try {
            classifier = crawlerList == null ? CrawlerListClassifier.bundled()
                    : CrawlerListClassifier.fromFile(crawlerList);
        } catch (RuntimeException e) {
            err.println("sluice-server replay: cannot use crawler list " + crawlerList + ": " + e.getMessage());
            return 1;
        }
        LogReplay.Options options = LogReplay.Options.defaults().withAssumedMillis(requestMillis).withLimit(clients);
        ProgressLine progress = ProgressLine.onTerminal(err);
        WhatIfReport report;
        long started = System.nanoTime();
        try {
            report = new LogReplay(candidate, baseline, classifier, options).run(logs, progress);
        } catch (IOException e) {
            progress.clear();
            err.println("sluice-server replay: cannot read " + e.getMessage());
            return 1;
        }
        progress.done(System.nanoTime() - started);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(PolicyJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(report));
        } else {
            out.print(ReportText.render(report));
        }
        out.flush();
        return 0;
    }

    /** The progress line on standard error, shown only when it is a terminal (never in a pipe or a file). */
    static final class ProgressLine implements LogReplay.Progress {
        private static final long EVERY_NANOS = 200_000_000L;
        private final PrintWriter err;
        private final boolean shown;
        private long lastShown;
        private long lines;

        private ProgressLine(PrintWriter err, boolean shown) {
            this.err = err;
            this.shown = shown;
        }

        static ProgressLine onTerminal(PrintWriter err) {
            return new ProgressLine(err, Terminal.isStandardError());
        }

        @Override
        public void update(Path file, long linesSoFar, long bytesRead, long bytesTotal) {
            lines = linesSoFar;
            long now = System.nanoTime();
            if (!shown || now - lastShown < EVERY_NANOS) {
                return;
            }
            lastShown = now;
            long percent = bytesTotal <= 0 ? 100 : Math.min(100, bytesRead * 100 / bytesTotal);
            err.printf(Locale.ROOT, "\r\033[Kreplaying %s: %d%%, %,d lines", file.getFileName(), percent, linesSoFar);
            err.flush();
        }

        void clear() {
            if (shown) {
                err.print("\r\033[K");
                err.flush();
            }
        }

        void done(long elapsedNanos) {
            if (shown) {
                double seconds = elapsedNanos / 1e9;
                err.printf(Locale.ROOT, "\r\033[Kreplayed %,d lines in %.1f s (%,.0f lines/s)%n", lines, seconds,
                        lines / Math.max(seconds, 1e-9));
                err.flush();
            }
        }
    }
}
