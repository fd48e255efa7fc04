package io.sluice.server;

import io.sluice.engine.net.CidrSet;
import io.sluice.server.admin.AdminConnections;
import io.sluice.server.botauth.SignedAgentOptions;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.server.cluster.RedisEndpoint;
import io.sluice.server.config.ConfigCommand;
import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigFile;
import io.sluice.server.config.ConfigProblem;
import io.sluice.server.config.ConfigReload;
import io.sluice.server.config.ConfigValidator;
import io.sluice.server.config.ConfigurableCommand;
import io.sluice.server.config.FileDefaults;
import io.sluice.server.config.OptionRules;
import io.sluice.server.config.ReloadSignal;
import io.sluice.server.front.AccessLog;
import io.sluice.server.ranges.AsnFile;
import io.sluice.server.ranges.CrawlerRangesOptions;
import io.sluice.server.ranges.RangesLocation;
import io.sluice.server.replay.ReplayCommand;
import io.sluice.server.state.StateException;
import io.sluice.server.tls.AdminTls;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar sluice-server.jar}: the headless front end. */
@Command(name = "sluice-server", mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        subcommands = {TokenCommand.class, PassKeyCommand.class, TlsCommand.class, ReplayCommand.class,
            ConfigCommand.class, CrawlerRangesCommand.class},
        description = "Sluice front end: a throttling reverse proxy with an admin API.")
public final class Main implements Callable<Integer>, ConfigurableCommand {
    /** What the server jar says to {@code --demo}: the demo is a module of its own (docs/architecture.md). */
    static final String DEMO_ELSEWHERE = "--demo and --demo-traffic are the demo's, which is not in the server jar: "
            + "run java -jar demo/target/sluice-demo.jar with the same options (./sluice server --demo does)";

    /**
     * How a front end is started from its configuration: {@link SluiceServer#start} in the server jar; the demo
     * module's {@code DemoMain} starts the demo site and traffic it asks for too (the server knows nothing of them).
     */
    @FunctionalInterface
    public interface Starter {
        SluiceServer start(ServerConfig config) throws Exception;
    }

    @Option(names = "--config", paramLabel = "FILE", description = "Read options from FILE: 'key = value' lines, "
            + "the keys being these options' long names without the dashes. The command line wins over the file, "
            + "the file over the defaults. SIGHUP reads it again (docs/manual/command-line.md).")
    Path configPath;

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

    @Option(names = "--demo", description = "Serve the built-in demo site as the upstream (the demo's jar only: "
            + "demo/target/sluice-demo.jar).")
    boolean demo;

    @Option(names = "--demo-traffic", description = "Also send demo traffic (browsers, crawlers, bots, a site "
            + "copier) to the front end, and run a demo crawler fleet against the permit API.")
    boolean demoTraffic;

    @Option(names = "--access-log", paramLabel = "FILE|-", description = "Write an NCSA combined access log with "
            + "the decision appended, to FILE or '-' for standard output.")
    String accessLog;

    @Option(names = "--access-log-format", paramLabel = "ncsa|json", defaultValue = "ncsa",
            description = "The access log's lines: 'ncsa' (combined, as nginx writes it, with sluice=DECISION) or "
                    + "'json' (one object a line, the same fields) (default: ${DEFAULT-VALUE}).")
    AccessLog.Format accessLogFormat;

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

    @Option(names = "--crawler-ranges", paramLabel = "FILE|URL", description = "A fresher copy of the crawlers' "
            + "published address ranges (the bundled crawler-ranges.json's format), read at start and every "
            + "--crawler-ranges-refresh-hours; a copy that fails its checks keeps the last good one "
            + "(docs/manual/classify.md).")
    String crawlerRanges;

    @Option(names = "--crawler-ranges-refresh-hours", paramLabel = "N", defaultValue = "24",
            description = "Hours between two reads of --crawler-ranges (default: ${DEFAULT-VALUE}).")
    int crawlerRangesRefreshHours;

    @Option(names = "--asn-file", paramLabel = "FILE", description = "An IP-to-ASN file (iptoasn.com's "
            + "ip2asn-v4.tsv, ip2asn-v6.tsv or ip2asn-combined.tsv, gzipped or not; or MaxMind's GeoLite2-ASN.mmdb): "
            + "the browser check's budget per "
            + "autonomous system and alwaysChallengeAsns, and the networks view's AS rows. Read at start and again "
            + "at each SIGHUP; a file with a bad line keeps the table in use (docs/manual/policy.md).")
    Path asnFile;

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
            description = "Connections the admin listener holds at once; the last sixteenth (at least 2) kept from "
                    + "worker tokens for read and admin, as much again from read for admin (default: "
                    + "${DEFAULT-VALUE}).")
    int adminMaxConnections;

    @Option(names = "--admin-max-per-address", paramLabel = "N", defaultValue = "16",
            description = "An address's (IPv6: its /64's) share of admin connections that have not yet presented a "
                    + "live token: more are held too, but are the first closed when the listener is full "
                    + "(default: ${DEFAULT-VALUE}).")
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

    @Option(names = "--signed-agents", paramLabel = "on|off", defaultValue = "on", arity = "1",
            description = "Verify Web Bot Auth signatures (HTTP message signatures): a request signed with a key its "
                    + "agent's key directory publishes is a verified crawler under the directory's name; directories "
                    + "are fetched in the background, public addresses only (default: ${DEFAULT-VALUE}).")
    String signedAgents;

    @Option(names = "--signed-agents-allow", paramLabel = "CIDR", description = "An address or CIDR a key directory "
            + "may be fetched from although loopback or private (repeatable, or comma-separated).")
    List<String> signedAgentsAllow = new ArrayList<>();

    @Option(names = "--signed-agents-http", description = "Also accept key directories over plain http:// (a lab "
            + "or a test; the draft requires https).")
    boolean signedAgentsHttp;

    @Option(names = "--signature-agent-key", paramLabel = "FILE", description = "The Ed25519 key (PEM, public or "
            + "private) a governed crawler fleet signs with: its key directory is served at "
            + "/.well-known/http-message-signatures-directory on the front end.")
    Path signatureAgentKey;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** SIGHUP, taken as {@link #main} begins; null where main did not run (a test's command line). */
    private static volatile ReloadSignal hangups;

    /** The configuration file these values were read with ({@code --config}), once read. */
    private ConfigFile file;

    private final Starter starter;

    /** The server jar's command: the product alone ({@code --demo} refused). */
    public Main() {
        this(Main::startProduct);
    }

    private Main(Starter starter) {
        this.starter = starter;
    }

    @Override
    public Integer call() throws Exception {
        Main resolved;
        try {
            resolved = overConfigFile();
        } catch (ConfigException e) {
            e.problems().forEach(spec.commandLine().getErr()::println);
            return 1;
        }
        return resolved.run(resolved.serverConfig());
    }

    /** These options over {@code --config}'s file (it gives the defaults, so the command line is parsed again). */
    Main overConfigFile() throws ConfigException {
        if (configPath == null || file != null) {
            return this;
        }
        return overFile(validator().load(configPath), spec.commandLine().getParseResult().originalArgs(),
                spec.commandLine(), starter);
    }

    /** The values of {@code args} over {@code file}'s, printing where {@code like} prints. */
    private static Main overFile(ConfigFile file, List<String> args, CommandLine like, Starter starter) {
        CommandLine cli = commandLine(starter);
        cli.setDefaultValueProvider(new FileDefaults(file));
        cli.setOut(like.getOut());
        cli.setErr(like.getErr());
        cli.parseArgs(args.toArray(String[]::new));
        Main main = cli.getCommand();
        main.file = file;
        return main;
    }

    /** The server configuration {@code file} gives with no command line over it: what {@code config check} checks. */
    public static ServerConfig configuredBy(ConfigFile file) {
        CommandLine cli = commandLine();
        return overFile(file, List.of(), cli, ((Main) cli.getCommand()).starter).serverConfig();
    }

    /** Checks a configuration file's lines against these options. */
    public static ConfigValidator validator() {
        return new ConfigValidator(Main::commandLine);
    }

    /** {@link #validator()}, for {@code config check} (which does not name this class: it is one of its commands). */
    @Override
    public ConfigValidator optionsValidator() {
        return validator();
    }

    /** {@link #configuredBy}, for {@code config check}. */
    @Override
    public ServerConfig serverConfig(ConfigFile file) {
        return configuredBy(file);
    }

    /** What the options say, checked; a ParameterException says what is wrong. */
    ServerConfig serverConfig() {
        Map<String, String> broken = OptionRules.broken(spec);
        if (!broken.isEmpty()) {
            Map.Entry<String, String> first = broken.entrySet().iterator().next();
            Object value = spec.findOption("--" + first.getKey()).getValue();
            throw new CommandLine.ParameterException(spec.commandLine(), OptionRules.message("--" + first.getKey(),
                    first.getValue(), String.valueOf(value)));
        }
        if (upstream == null && !demo) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --upstream URL or --demo");
        }
        AdminOptions adminOptions = new AdminOptions(adminTls || adminCert != null, new AdminTls.Settings(adminCert,
                adminKey, adminCertPasswordFile), adminInsecure, hostNames(), (long) auditMaxMb << 20,
                auditKeep, new AdminConnections.Rules(adminMaxPerAddress, Duration.ofSeconds(adminHeadTimeoutSeconds)));
        ConnectionLimits limits = new ConnectionLimits(maxConnections, adminMaxConnections,
                ConnectionLimits.DEFAULTS.adminThreads(), ConnectionLimits.DEFAULTS.requestHeaderBytes())
                .withFrontPacing(maxConnectionsPerAddress, Duration.ofSeconds(requestHeadTimeoutSeconds), minBodyRate);
        return new ServerConfig(listen, upstream, admin, state, policy, demo, demoTraffic, accessLog,
                Duration.ofSeconds(upstreamTimeoutSeconds), crawlerList, adminOptions, limits, cluster(),
                ForwardingPath.parse(frontPath), accessLogFormat, new CrawlerRangesOptions(
                        crawlerRanges == null ? null : new RangesLocation(crawlerRanges),
                        Duration.ofHours(crawlerRangesRefreshHours))).withSignedAgents(signedAgentOptions())
                .withAsnFile(asnFile);
    }

    /** {@code --signed-agents*} and {@code --signature-agent-key}. */
    private SignedAgentOptions signedAgentOptions() {
        if (!"on".equals(signedAgents) && !"off".equals(signedAgents)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--signed-agents is on or off, not '"
                    + signedAgents + "'");
        }
        List<String> allowed = new ArrayList<>();
        for (String given : signedAgentsAllow) {
            for (String cidr : given.split(",")) {
                if (!cidr.isBlank()) {
                    allowed.add(cidr.strip());
                }
            }
        }
        try {
            CidrSet.parse(allowed);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--signed-agents-allow: " + e.getMessage());
        }
        return SignedAgentOptions.DEFAULTS.withEnabled("on".equals(signedAgents))
                .withAllowed(allowed, signedAgentsHttp).withPublishKey(signatureAgentKey);
    }

    /** {@code --admin-hostname}s, a comma-separated list split (picocli does not split a default value). */
    private Set<String> hostNames() {
        Set<String> names = new LinkedHashSet<>();
        for (String given : adminHostNames) {
            for (String name : given.split(",")) {
                if (!name.isBlank()) {
                    names.add(name.strip());
                }
            }
        }
        return Set.copyOf(names);
    }

    /** Every setting's value as text, by key (the long option name without dashes; null when unset). */
    Map<String, String> settings() {
        Map<String, String> values = new LinkedHashMap<>();
        for (CommandLine.Model.OptionSpec option : spec.options()) {
            String key = option.longestName().substring(2);
            if (!ConfigValidator.NOT_SETTINGS.contains(key)) {
                Object value = option.getValue();
                values.put(key, value == null ? null : value.toString());
            }
        }
        return values;
    }

    private int run(ServerConfig config) throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        SluiceServer server;
        try {
            // The demo builds on the server (the server knows nothing of it): DemoMain brings its own starter.
            server = starter.start(config);
        } catch (IOException | UncheckedIOException | IllegalArgumentException
                | StateException e) {
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
        if (!server.engine().asnTable().isEmpty()) {
            out.printf("sluice-server: %s%n", AsnFile.describe(server.engine().asnTable()));
        }
        if (server.cluster() != null) {
            out.printf("sluice-server: node %s of the cluster on %s; the fleet is told its admin API is at %s%n",
                    server.cluster().name(), config.cluster().redis(), server.cluster().adminAddress());
        }
        onHangup(server, config, out);
        out.flush();
        server.join();
        return 0;
    }

    /**
     * SIGHUP from now on: the file read again, under the same command line, or without {@code --config} the access log
     * re-opened (docs/manual/command-line.md, "Reload: SIGHUP"); one that came during the start is done now.
     */
    private void onHangup(SluiceServer server, ServerConfig config, PrintWriter out) {
        Consumer<String> log = line -> {
            out.println("sluice-server: " + line);
            out.flush();
        };
        Runnable action = file != null ? reloader(server, config, log)::reload : () -> reopenAccessLog(server, log);
        ReloadSignal signal = hangups != null ? hangups : ReloadSignal.install();
        boolean came = signal.start(action);
        String does = file != null ? "reloads " + configPath : config.accessLog() != null && config.asnFile() != null
                ? "re-opens the access log and reads the IP-to-ASN file again" : config.accessLog() != null
                ? "re-opens the access log" : config.asnFile() != null ? "reads the IP-to-ASN file again" : null;
        if (does != null) {
            out.printf("sluice-server: %s%n", switch (signal.outcome()) {
                case INSTALLED -> "SIGHUP " + does;
                case IGNORED -> "SIGHUP is ignored in this process (started under nohup?), so it "
                        + (file != null ? "reloads nothing: restart to apply changes to " + configPath
                                : "never re-opens the access log: restart after rotating it");
                case UNSUPPORTED -> "this platform has no SIGHUP: restart to apply changes to "
                        + (file != null ? configPath : "the access log's file and the IP-to-ASN file");
            });
        }
        if (came) {
            log.accept("a SIGHUP came while the server was starting; done now");
            action.run();
        }
    }

    /**
     * SIGHUP without {@code --config}: the access log re-opened by its name, as after logrotate renamed it, and the
     * IP-to-ASN file read again (a fresh copy put in its place).
     */
    private static void reopenAccessLog(SluiceServer server, Consumer<String> log) {
        try {
            String read = server.reloadAsnFile();
            if (read != null) {
                log.accept("SIGHUP: " + read);
            }
        } catch (IOException e) {
            log.accept("SIGHUP: " + e.getMessage() + "; the table in use stays");
        }
        try {
            String name = server.reopenAccessLog();
            log.accept(name == null ? "SIGHUP: no configuration file to read again (--config) and no access log to "
                    + "re-open" : "SIGHUP: access log re-opened: " + name);
        } catch (IOException e) {
            log.accept("SIGHUP: the access log could not be re-opened (" + e.getMessage() + "); it goes on in the "
                    + "file it had open");
        }
    }

    /** What a reload does to {@code server}, started with {@code config}: {@code --config}'s file read again. */
    ConfigReload reloader(SluiceServer server, ServerConfig config, Consumer<String> log) {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        return new ConfigReload(new ConfigReload.Settings(config, settings()), () -> {
            ConfigFile read = validator().load(configPath);
            try {
                Main next = overFile(read, args, spec.commandLine(), starter);
                return new ConfigReload.Settings(next.serverConfig(), next.settings());
            } catch (CommandLine.ParameterException | IllegalArgumentException e) {
                throw new ConfigException(List.of(new ConfigProblem(configPath, 0, e.getMessage())));
            }
        }, new ConfigReload.Target() {
            @Override
            public void reload(ServerConfig next) throws IOException {
                server.reload(next);
                if (next.asnFile() != null) {
                    log.accept("reload: " + AsnFile.describe(server.engine().asnTable()));
                }
            }

            @Override
            public String reopenAccessLog() throws IOException {
                return server.reopenAccessLog();
            }
        }, log);
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
        runAndExit(args, Main::commandLine);
    }

    /**
     * What {@link #main} does with the command line {@code commandLine} makes: the demo module's {@code DemoMain}
     * runs its own (this one with the demo's starter and {@code demo-cluster}) the same way.
     */
    public static void runAndExit(String[] args, Supplier<CommandLine> commandLine) {
        // First: a SIGHUP sent while the server starts (systemctl reload, logrotate) is held, not the JVM's end.
        ReloadSignal signal = ReloadSignal.install();
        hangups = signal;
        CommandLine cli = commandLine.get();
        cli.setExecutionStrategy(parsed -> {
            if (parsed.subcommand() != null) {
                signal.exitOnHangup(); // a subcommand in a terminal ends with it, as any command does
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        System.exit(cli.execute(args));
    }

    /** The configured command line, shared by {@link #main} and tests. */
    public static CommandLine commandLine() {
        return commandLine(Main::startProduct);
    }

    /** The command line with front ends started by {@code starter} (the demo's, a test's site behind them). */
    public static CommandLine commandLine(Starter starter) {
        return new CommandLine(new Main(starter)).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** The server jar's start: the product alone; {@code --demo} is refused, saying where the demo is. */
    private static SluiceServer startProduct(ServerConfig config) throws Exception {
        if (config.demo() || config.demoTraffic()) {
            throw new IllegalArgumentException(DEMO_ELSEWHERE);
        }
        return SluiceServer.start(config);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"sluice-server " + (version == null ? "development build" : version)};
        }
    }
}
