package io.sluice.console;

import io.sluice.console.api.AdminAddress;
import io.sluice.console.api.CertificatePin;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The console's command line, parsed by picocli; documented in docs/manual/console.md. */
@Command(name = "sluice console", mixinStandardHelpOptions = true, version = "sluice-console 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"The operator's console for Sluice servers.",
            "Without options it opens the connect room: the servers remembered, the last one chosen."})
public final class ConsoleOptions {
    @Option(names = "--demo", description = "Start an embedded front end with the demo site and demo traffic, "
            + "and connect to it.")
    boolean demo;

    @Option(names = "--server", paramLabel = "NAME", description = "Connect to this remembered server at once.")
    String server;

    @Option(names = "--url", paramLabel = "URL", description = "Connect to this admin URL at once "
            + "(https://HOST:PORT/; http:// only on loopback). Needs --token-file.")
    URI url;

    @Option(names = "--token-file", paramLabel = "FILE", description = "The file holding the token's secret "
            + "(the server's <state>/admin-token, or a file you saved a 'token add' secret in).")
    Path tokenFile;

    @Option(names = "--token-name", paramLabel = "NAME", defaultValue = "admin", description = "The token's name "
            + "(default: ${DEFAULT-VALUE}).")
    String tokenName;

    @Option(names = "--remember", paramLabel = "NAME", description = "With --url: remember the server under NAME "
            + "(the token file's path is remembered, not its content).")
    String remember;

    @Option(names = "--pin", paramLabel = "SHA256:...", description = "With --url or --server: trust exactly the "
            + "admin certificate with this SHA-256 fingerprint (the server prints the command with it at start), "
            + "without asking; any other certificate is refused before anything is sent. Kept once it connected.")
    String pin;

    @Option(names = "--config-dir", paramLabel = "DIR", description = "Where remembered servers, kept tokens and "
            + "pinned certificates are (default: $XDG_CONFIG_HOME/sluice or ~/.config/sluice).")
    Path configDir;

    /** The options in {@code args}, checked together; a {@link CommandLine.ParameterException} says what is wrong. */
    public static ConsoleOptions parse(String... args) {
        ConsoleOptions options = new ConsoleOptions();
        parse(new CommandLine(options), options, args);
        return options;
    }

    private static void parse(CommandLine line, ConsoleOptions options, String... args) {
        line.parseArgs(args);
        if (!line.isUsageHelpRequested() && !line.isVersionHelpRequested()) {
            options.check(line);
        }
    }

    private void check(CommandLine line) {
        int ways = (demo ? 1 : 0) + (server != null ? 1 : 0) + (url != null ? 1 : 0);
        if (ways > 1) {
            throw new CommandLine.ParameterException(line, "give one of --demo, --server and --url");
        }
        if (url != null && tokenFile == null) {
            throw new CommandLine.ParameterException(line, "--url needs --token-file FILE");
        }
        if (url == null && (tokenFile != null || remember != null)) {
            throw new CommandLine.ParameterException(line, "--token-file and --remember go with --url");
        }
        if (url != null) {
            try {
                url = AdminAddress.check(url);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(line, "--url: " + e.getMessage());
            }
        }
        if (pin != null) {
            if (url == null && server == null) {
                throw new CommandLine.ParameterException(line, "--pin goes with --url or --server");
            }
            if (url != null && !"https".equalsIgnoreCase(url.getScheme())) {
                throw new CommandLine.ParameterException(line, "--pin is for an https:// URL");
            }
            try {
                CertificatePin.parse(pin);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(line, "--pin: " + e.getMessage());
            }
        }
    }

    /**
     * Parses {@code args} for the launcher: prints usage or version (returns 0), or the problem and usage to
     * standard error (returns 2); returns -1 when the console should start.
     */
    static int handle(String[] args, PrintStream out, PrintStream err) {
        ConsoleOptions options = new ConsoleOptions();
        CommandLine line = new CommandLine(options);
        try {
            parse(line, options, args);
            if (line.isUsageHelpRequested()) {
                line.usage(out);
                return 0;
            }
            if (line.isVersionHelpRequested()) {
                line.printVersionHelp(out);
                return 0;
            }
            return -1;
        } catch (CommandLine.ParameterException e) {
            err.println("sluice console: " + e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
            line.usage(err);
            return 2;
        }
    }

    public boolean demo() {
        return demo;
    }

    public String server() {
        return server;
    }

    public URI url() {
        return url;
    }

    public Path tokenFile() {
        return tokenFile;
    }

    public String tokenName() {
        return tokenName;
    }

    public String remember() {
        return remember;
    }

    /** The certificate to trust with {@code --pin}, or null. */
    public CertificatePin pin() {
        return pin == null ? null : CertificatePin.parse(pin);
    }

    public Path configDir() {
        return configDir;
    }
}
