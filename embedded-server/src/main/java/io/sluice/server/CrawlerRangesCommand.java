package io.sluice.server;

import io.sluice.server.ranges.CrawlerRangesFollower;
import io.sluice.server.ranges.OperatorRanges;
import io.sluice.server.ranges.RangesLocation;
import io.sluice.server.state.StateException;
import io.sluice.server.state.StateOwner;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice-server crawler-ranges update}: reads a fresher copy of the crawlers' published ranges from a file or
 * URL, checks it ({@link OperatorRanges}) and makes it the state directory's copy, which a running server takes
 * within {@link CrawlerRangesFollower#PERIOD_SECONDS} s. A copy that fails a check changes nothing and says why.
 */
@Command(name = "crawler-ranges", mixinStandardHelpOptions = true,
        description = "Refresh the crawlers' published address ranges used to verify their claims.",
        subcommands = CrawlerRangesCommand.Update.class)
final class CrawlerRangesCommand {

    @Command(name = "update", mixinStandardHelpOptions = true,
            description = "Read a copy of the ranges (the bundled crawler-ranges.json's format) from a file or URL, "
                    + "check it and use it: no block wider than /8 (IPv4) or /16 (IPv6), no crawler's blocks cut by "
                    + "more than half; a copy that fails keeps the last good one.")
    static final class Update extends TokenCommand.StateOption implements Callable<Integer> {
        @Option(names = "--source", paramLabel = "FILE|URL", required = true,
                description = "Where to read the copy: a file, or an http(s) URL.")
        String source;

        @Option(names = "--accept-shrink", description = "Use a copy whose blocks for some crawler shrank by more "
                + "than half all the same (a publisher really did drop them).")
        boolean acceptShrink;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            RangesLocation location;
            try {
                location = new RangesLocation(source);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            try {
                Path state = stateDirectory();
                StateOwner owner = ownerFor("crawler-ranges update");
                OperatorRanges.Outcome outcome = OperatorRanges.update(state, location, acceptShrink, owner);
                if (!outcome.used()) {
                    err.println("sluice-server: crawler ranges from " + location + " " + outcome.message());
                    return 1;
                }
                out.printf("crawler ranges from %s: %s, in %s%n", location, outcome.message(),
                        state.resolve(OperatorRanges.FILE));
                out.println("a running server uses them within " + CrawlerRangesFollower.PERIOD_SECONDS + " s");
                out.flush();
                return audit(spec, "crawler-ranges.update", "crawler ranges updated from " + location + ": "
                        + outcome.message());
            } catch (StateException e) {
                err.println("sluice-server: " + e.getMessage());
                return 1;
            }
        }
    }
}
