package io.sluice.server;

import io.sluice.server.admin.AdminConnections;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.server.cluster.RedisEndpoint;
import java.io.PrintWriter;
import java.net.URI;
import io.sluice.server.tls.AdminTls;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar sluice-server.jar}: the headless front end. */
@Command(name = "sluice-server", mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        subcommands = {TokenCommand.class, TlsCommand.class, io.sluice.server.replay.ReplayCommand.class,
            io.sluice.server.demo.DemoClusterCommand.class},
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

    @Option(names = "--demo-traffic", description = "Also send demo traffic (browsers, crawlers, bots, a site "
            + "copier) to the front end, and run a demo crawler fleet against the permit API.")
    boolean demoTraffic;

    @Option(names = "--access-log", paramLabel = "FILE|-", description = "Write an NCSA combined access log with "
            + "the decision appended, to FILE or '-' for standard output.")
    String accessLog;

    @Option(names = "--upstream-timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "Seconds the upstream may take before the client gets a 504 (default: ${DEFAULT-VALUE}).")
    int upstreamTimeoutSeconds;

    @Option(names = "--front-path", paramLabel = "lean|proxy", defaultValue = "lean",
            description = "How requests are forwarded: 'lean' serves the common case (HTTP/1.1, no body or a small "
            + "one, admitted at once) on the selector threads and the rest through Jetty's proxy; 'proxy' sends every "
            + "request through Jetty's proxy (default: ${DEFAULT-VALUE}).")
    String frontPath;

    @Option(names = "--crawler-list", paramLabel = "FILE", description = "A newer crawler-user-agents JSON file "
            + "to classify with instead of the bundled one.")
    Path crawlerList;

    @Option(names = "--admin-tls", description = "Serve the admin API over HTTPS: with --admin-cert, or else a "
            + "self-signed certificate made at first start in the state directory.")
    boolean adminTls;

    @Option(names = "--admin-cert", paramLabel = "FILE", description = "The admin listener's certificate: PEM "
            + "(chain, and key unless --admin-key) or PKCS#12 (.p12, .pfx). Implies --admin-tls.")
    Path adminCert;

    @Option(names = "--admin-key", paramLabel = "FILE", description = "The PEM private key of --admin-cert.")
    Path adminKey;

    @Option(names = "--admin-cert-password-file", paramLabel = "FILE", description = "The PKCS#12 password "
            + "(first line of FILE).")
    Path adminCertPasswordFile;

    @Option(names = "--admin-insecure", description = "Allow plain HTTP on an admin address other than loopback "
            + "(only behind something that encrypts it).")
    boolean adminInsecure;

    @Option(names = "--admin-hostname", paramLabel = "NAME", description = "A name the admin API is reached by "
            + "(repeatable); other names are refused (DNS rebinding). Addresses and localhost always work.")
    List<String> adminHostNames = new ArrayList<>();

    @Option(names = "--max-connections", paramLabel = "N", defaultValue = "10000",
            description = "Connections the public listener holds at once (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--max-connections-per-address", paramLabel = "N", defaultValue = "64",
            description = "Connections one address (IPv6: one /64) holds on the public listener at once; a new "
                    + "one past it is closed on arrival. Trusted proxies are not capped (default: ${DEFAULT-VALUE}).")
    int maxConnectionsPerAddress;

    @Option(names = "--request-head-timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Time a request's line and headers have to arrive whole on the public listener; a slower "
                    + "connection is closed (default: ${DEFAULT-VALUE}).")
    int requestHeadTimeoutSeconds;

    @Option(names = "--min-body-rate", paramLabel = "BYTES_PER_SECOND", defaultValue = "500",
            description = "Slowest a request body may arrive on the public listener, after an allowance of "
                    + "--request-head-timeout; a slower connection is closed. 0: no minimum "
                    + "(default: ${DEFAULT-VALUE}).")
    long minBodyRate;

    @Option(names = "--admin-max-connections", paramLabel = "N", defaultValue = "256",
            description = "Connections the admin listener holds at once (default: ${DEFAULT-VALUE}).")
    int adminMaxConnections;

    @Option(names = "--admin-max-per-address", paramLabel = "N", defaultValue = "16",
            description = "Admin connections one address (IPv6: its /64) may hold before a request on them presents "
                    + "a live token; more are closed at once (default: ${DEFAULT-VALUE}).")
    int adminMaxPerAddress;

    @Option(names = "--admin-head-timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "An admin connection that has not sent a request with a live token this long after "
                    + "opening is closed (default: ${DEFAULT-VALUE}).")
    int adminHeadTimeoutSeconds;

    @Option(names = "--audit-max-mb", paramLabel = "MB", defaultValue = "10",
            description = "Size at which the audit log rotates (default: ${DEFAULT-VALUE}).")
    int auditMaxMb;

    @Option(names = "--audit-keep", paramLabel = "N", defaultValue = "10",
            description = "Rotated audit files kept (default: ${DEFAULT-VALUE}).")
    int auditKeep;

    @Option(names = "--redis", paramLabel = "URL", description = "Join a cluster through this Redis or Valkey: "
            + "redis://HOST:PORT[/DB], rediss:// for TLS; a Redis Cluster: redis-cluster://HOST:PORT[,HOST:PORT...] "
            + "(rediss-cluster://); the password from the URL or SLUICE_REDIS_PASSWORD.")
    String redis;

    @Option(names = "--node-name", paramLabel = "NAME", description = "This node's name in the cluster "
            + "(default: host name:front-end port).")
    String nodeName;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (upstream == null && !demo) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --upstream URL or --demo");
        }
        if (upstream != null && (upstream.getHost() == null || !upstream.getScheme().matches("https?"))) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--upstream must be an http:// or https:// URL, not '" + upstream + "'");
        }
        if (upstreamTimeoutSeconds <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--upstream-timeout must be positive");
        }
        ForwardingPath forwardingPath;
        try {
            forwardingPath = ForwardingPath.parse(frontPath);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (maxConnections < 1 || adminMaxConnections < 1 || auditMaxMb < 1 || auditKeep < 1
                || adminMaxPerAddress < 1 || adminHeadTimeoutSeconds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-connections, "
                    + "--admin-max-connections, --admin-max-per-address, --admin-head-timeout, --audit-max-mb and "
                    + "--audit-keep must be positive");
        }
        boolean tls = adminTls || adminCert != null;
        AdminOptions adminOptions = new AdminOptions(tls, new AdminTls.Settings(adminCert, adminKey,
                adminCertPasswordFile), adminInsecure, Set.copyOf(adminHostNames), (long) auditMaxMb << 20,
                auditKeep, new AdminConnections.Rules(adminMaxPerAddress,
                java.time.Duration.ofSeconds(adminHeadTimeoutSeconds)));
        if (maxConnectionsPerAddress < 1 || requestHeadTimeoutSeconds < 1 || minBodyRate < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-connections-per-address and "
                    + "--request-head-timeout must be positive, --min-body-rate 0 or more");
        }
        ConnectionLimits limits = new ConnectionLimits(maxConnections, adminMaxConnections,
                ConnectionLimits.DEFAULTS.adminThreads(), ConnectionLimits.DEFAULTS.requestHeaderBytes())
                .withFrontPacing(maxConnectionsPerAddress, java.time.Duration.ofSeconds(requestHeadTimeoutSeconds),
                        minBodyRate);
        ServerConfig config = new ServerConfig(listen, upstream, admin, state, policy, demo, demoTraffic,
                accessLog, java.time.Duration.ofSeconds(upstreamTimeoutSeconds), crawlerList, adminOptions, limits,
                cluster(), forwardingPath);
        PrintWriter err = spec.commandLine().getErr();
        SluiceServer server;
        try {
            server = SluiceServer.start(config);
        } catch (java.io.IOException | java.io.UncheckedIOException | IllegalArgumentException
                | io.sluice.server.state.StateException e) {
            err.println("sluice-server: " + e.getMessage());
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                // SIGTERM: stop accepting, let requests in flight finish, then exit.
                server.close();
            } catch (RuntimeException e) {
                err.println("sluice-server: error while stopping: " + e.getMessage());
            }
        }, "sluice-shutdown"));
        PrintWriter out = spec.commandLine().getOut();
        out.printf("sluice-server: front end on %s -> %s%n", server.frontUri(),
                upstream == null ? "the demo site" : upstream);
        out.printf("sluice-server: admin API on %s (token in %s)%n", server.adminUri(),
                state.resolve("admin-token"));
        if (server.adminCertificate() != null) {
            out.printf("sluice-server: admin TLS certificate SHA-256 %s (%s%s)%n",
                    server.adminCertificate().fingerprint(), server.adminCertificate().selfSigned()
                            ? "self-signed, " : "", server.adminCertificate().source());
        }
        out.printf("sluice-server: connect the console with: %s%n", AdminListener.consoleCommand(server.adminUri(),
                state.resolve("admin-token"), server.adminCertificate()));
        if (server.cluster() != null) {
            out.printf("sluice-server: node %s of the cluster on %s%n", server.cluster().name(),
                    config.cluster().redis());
        }
        out.flush();
        server.join();
        return 0;
    }

    /** {@code --redis} and {@code --node-name}, checked; null without {@code --redis}. */
    private ClusterOptions cluster() {
        if (redis == null) {
            if (nodeName != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--node-name needs --redis");
            }
            return null;
        }
        try {
            return new ClusterOptions(RedisEndpoint.parse(redis, System.getenv(RedisEndpoint.PASSWORD_VARIABLE)),
                    nodeName);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
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
