package io.sluice.server;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar sluice-server.jar}: the headless front end. */
@Command(name = "sluice-server", mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Sluice front end: a throttling reverse proxy with an admin API.")
public final class Main implements Callable<Integer> {

    @Option(names = "--listen", paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
            description = "Where the front end listens (default: ${DEFAULT-VALUE}).", defaultValue = "0.0.0.0:8080")
    HostPort listen;

    @Option(names = "--upstream", paramLabel = "URL", description = "The site to protect, e.g. http://127.0.0.1:3000.")
    URI upstream;

    @Option(names = "--admin", paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
            description = "Where the admin API listens (default: ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1:9090")
    HostPort admin;

    @Option(names = "--state", paramLabel = "DIR", description = "State directory: policy, bans, audit log, token "
            + "(default: ${DEFAULT-VALUE}).", defaultValue = "${sys:user.home}/.sluice/state")
    Path state;

    @Option(names = "--policy", paramLabel = "FILE", description = "Initial policy (JSON), used when the state "
            + "directory holds none.")
    Path policy;

    @Option(names = "--demo", description = "Serve the built-in demo site as the upstream.")
    boolean demo;

    @Override
    public Integer call() {
        if (upstream == null && !demo) {
            throw new CommandLine.ParameterException(new CommandLine(this), "give --upstream URL or --demo");
        }
        new PrintWriter(System.out, true).printf("sluice-server: listening on %s, admin on %s%n", listen, admin);
        return 0;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, shared by {@link #main} and tests. */
    static CommandLine commandLine() {
        return new CommandLine(new Main());
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"sluice-server " + (version == null ? "development build" : version)};
        }
    }
}
