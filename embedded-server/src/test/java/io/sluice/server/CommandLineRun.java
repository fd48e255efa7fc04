package io.sluice.server;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code sluice-server} as a user would, keeping what it printed on standard error for the test to read. */
final class CommandLineRun {
    private final StringWriter err = new StringWriter();

    /** The exit code of {@code sluice-server ARGS}. */
    int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }

    /** Everything printed on standard error so far. */
    String err() {
        return err.toString();
    }
}
