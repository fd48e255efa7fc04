package io.sluice.server;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code sluice-server} as a user would, keeping what it printed for the test to read. */
final class CommandLineRun {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** The exit code of {@code sluice-server ARGS}. */
    int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(out, true));
        return cli.execute(args);
    }

    /** Everything printed on standard output so far. */
    String out() {
        return out.toString();
    }

    /** Everything printed on standard error so far. */
    String err() {
        return err.toString();
    }
}
