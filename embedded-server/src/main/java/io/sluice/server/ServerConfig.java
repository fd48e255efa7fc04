package io.sluice.server;

import io.sluice.server.botauth.SignedAgentOptions;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.server.front.AccessLog;
import io.sluice.server.ranges.CrawlerRangesOptions;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * How to run a front end: what the CLI's flags say.
 *
 * @param listen          the public listener; port 0 picks a free port
 * @param upstream        the protected site, or null with {@code demo}
 * @param admin           the admin API listener (loopback unless told otherwise)
 * @param stateDir        policy, bans, audit log and admin token
 * @param initialPolicy   a policy file used when the state directory holds none, or null
 * @param demo            serve the built-in demo site as the upstream (read by {@code io.sluice.server.demo.Demo} in
 *                        the demo module, which starts the site and the server in front of it; the server itself
 *                        needs an upstream, and the server jar refuses {@code --demo})
 * @param demoTraffic     also send the demo traffic to the front end (read by the demo too)
 * @param accessLog       {@code "-"} for standard output, a file, or null for none
 * @param upstreamTimeout how long the upstream may take before the client gets a 504
 * @param crawlerList     a newer crawler-user-agents JSON file, or null for the bundled list
 * @param adminOptions    TLS, host names and audit rotation of the admin listener
 * @param limits          connection, thread and header limits of both listeners
 * @param cluster         {@code --redis} and {@code --node-name}, or null for a node on its own
 * @param frontPath       how the public listener forwards ({@code --front-path}); null: the lean path
 * @param accessLogFormat how access log lines are written ({@code --access-log-format}); null: NCSA
 * @param crawlerRanges   where the crawlers' published ranges are refreshed from ({@code --crawler-ranges}); null:
 *                        the state directory's copy only
 * @param signedAgents    Web Bot Auth ({@code --signed-agents*}, {@code --signature-agent-key}); null: the defaults
 * @param asnFile         an IP-to-ASN file (iptoasn's TSV) for the browser check's autonomous systems
 *                        ({@code --asn-file}), read at start and at each reload; null: none
 */
public record ServerConfig(
        HostPort listen,
        URI upstream,
        HostPort admin,
        Path stateDir,
        Path initialPolicy,
        boolean demo,
        boolean demoTraffic,
        String accessLog,
        Duration upstreamTimeout,
        Path crawlerList,
        AdminOptions adminOptions,
        ConnectionLimits limits,
        ClusterOptions cluster,
        ForwardingPath frontPath,
        AccessLog.Format accessLogFormat,
        CrawlerRangesOptions crawlerRanges,
        SignedAgentOptions signedAgents,
        Path asnFile) {

    public static final Duration DEFAULT_UPSTREAM_TIMEOUT = Duration.ofSeconds(30);

    public ServerConfig {
        if (upstream == null && !demo) {
            throw new IllegalArgumentException("give an upstream URL or use the demo site");
        }
        upstreamTimeout = upstreamTimeout == null ? DEFAULT_UPSTREAM_TIMEOUT : upstreamTimeout;
        adminOptions = adminOptions == null ? AdminOptions.DEFAULTS : adminOptions;
        limits = limits == null ? ConnectionLimits.DEFAULTS : limits;
        frontPath = frontPath == null ? ForwardingPath.LEAN : frontPath;
        accessLogFormat = accessLogFormat == null ? AccessLog.Format.NCSA : accessLogFormat;
        crawlerRanges = crawlerRanges == null ? CrawlerRangesOptions.NONE : crawlerRanges;
        signedAgents = signedAgents == null ? SignedAgentOptions.DEFAULTS : signedAgents;
    }

    /** The options before the IP-to-ASN file. */
    public ServerConfig(HostPort listen, URI upstream, HostPort admin, Path stateDir, Path initialPolicy, boolean demo,
                        boolean demoTraffic, String accessLog, Duration upstreamTimeout, Path crawlerList,
                        AdminOptions adminOptions, ConnectionLimits limits, ClusterOptions cluster,
                        ForwardingPath frontPath, AccessLog.Format accessLogFormat,
                        CrawlerRangesOptions crawlerRanges, SignedAgentOptions signedAgents) {
        this(listen, upstream, admin, stateDir, initialPolicy, demo, demoTraffic, accessLog, upstreamTimeout,
                crawlerList, adminOptions, limits, cluster, frontPath, accessLogFormat, crawlerRanges, signedAgents,
                null);
    }

    /** The options before Web Bot Auth had its own. */
    public ServerConfig(HostPort listen, URI upstream, HostPort admin, Path stateDir, Path initialPolicy, boolean demo,
                        boolean demoTraffic, String accessLog, Duration upstreamTimeout, Path crawlerList,
                        AdminOptions adminOptions, ConnectionLimits limits, ClusterOptions cluster,
                        ForwardingPath frontPath, AccessLog.Format accessLogFormat,
                        CrawlerRangesOptions crawlerRanges) {
        this(listen, upstream, admin, stateDir, initialPolicy, demo, demoTraffic, accessLog, upstreamTimeout,
                crawlerList, adminOptions, limits, cluster, frontPath, accessLogFormat, crawlerRanges, null, null);
    }

    /** Without a source of crawler ranges (the form before they were refreshed at runtime). */
    public ServerConfig(HostPort listen, URI upstream, HostPort admin, Path stateDir, Path initialPolicy, boolean demo,
                        boolean demoTraffic, String accessLog, Duration upstreamTimeout, Path crawlerList,
                        AdminOptions adminOptions, ConnectionLimits limits, ClusterOptions cluster,
                        ForwardingPath frontPath, AccessLog.Format accessLogFormat) {
        this(listen, upstream, admin, stateDir, initialPolicy, demo, demoTraffic, accessLog, upstreamTimeout,
                crawlerList, adminOptions, limits, cluster, frontPath, accessLogFormat, null, null, null);
    }

    /** The default forwarding path (the lean one). */
    public ServerConfig(HostPort listen, URI upstream, HostPort admin, Path stateDir, Path initialPolicy, boolean demo,
                        boolean demoTraffic, String accessLog, Duration upstreamTimeout, Path crawlerList,
                        AdminOptions adminOptions, ConnectionLimits limits, ClusterOptions cluster) {
        this(listen, upstream, admin, stateDir, initialPolicy, demo, demoTraffic, accessLog, upstreamTimeout,
                crawlerList, adminOptions, limits, cluster, null, null);
    }

    /** The admin listener's and the connections' defaults (plain HTTP, fine on loopback). */
    public ServerConfig(HostPort listen, URI upstream, HostPort admin, Path stateDir, Path initialPolicy, boolean demo,
                        boolean demoTraffic, String accessLog, Duration upstreamTimeout, Path crawlerList) {
        this(listen, upstream, admin, stateDir, initialPolicy, demo, demoTraffic, accessLog, upstreamTimeout,
                crawlerList, AdminOptions.DEFAULTS, ConnectionLimits.DEFAULTS, null);
    }

    /** The demo on free loopback ports, state in {@code stateDir}, without traffic. */
    public static ServerConfig demo(Path stateDir) {
        return new ServerConfig(new HostPort("127.0.0.1", 0), null, new HostPort("127.0.0.1", 0), stateDir, null,
                true, false, null, DEFAULT_UPSTREAM_TIMEOUT, null);
    }

    /** The same front end, protecting {@code site}. */
    public ServerConfig withUpstream(URI site) {
        return with(copy -> copy.upstream = site);
    }

    public ServerConfig withDemoTraffic(boolean on) {
        return with(copy -> copy.demoTraffic = on);
    }

    public ServerConfig withAdminOptions(AdminOptions options) {
        return with(copy -> copy.adminOptions = options);
    }

    public ServerConfig withLimits(ConnectionLimits value) {
        return with(copy -> copy.limits = value);
    }

    /** The same front end, forwarding on {@code path}. */
    public ServerConfig withFrontPath(ForwardingPath path) {
        return with(copy -> copy.frontPath = path);
    }

    /** The same front end, writing its access log in {@code format}. */
    public ServerConfig withAccessLogFormat(AccessLog.Format format) {
        return with(copy -> copy.accessLogFormat = format);
    }

    /** The same front end, refreshing the crawlers' published ranges as {@code options} say. */
    public ServerConfig withCrawlerRanges(CrawlerRangesOptions options) {
        return with(copy -> copy.crawlerRanges = options);
    }

    /** The same front end, verifying signed agents (and publishing its fleet's key) as {@code options} say. */
    public ServerConfig withSignedAgents(SignedAgentOptions options) {
        return with(copy -> copy.signedAgents = options);
    }

    /** The same front end, looking addresses' autonomous systems up in {@code file} (null: none). */
    public ServerConfig withAsnFile(Path file) {
        return with(copy -> copy.asnFile = file);
    }

    /** The same node, in the cluster {@code options} describe (null: on its own). */
    public ServerConfig withCluster(ClusterOptions options) {
        return with(copy -> copy.cluster = options);
    }

    /** This configuration with what {@code change} sets changed, checked by the constructor like any other. */
    private ServerConfig with(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** Every component, taken from a configuration and given back to the constructor: the one list the withers use. */
    private static final class Copy {
        HostPort listen;
        URI upstream;
        HostPort admin;
        Path stateDir;
        Path initialPolicy;
        boolean demo;
        boolean demoTraffic;
        String accessLog;
        Duration upstreamTimeout;
        Path crawlerList;
        AdminOptions adminOptions;
        ConnectionLimits limits;
        ClusterOptions cluster;
        ForwardingPath frontPath;
        AccessLog.Format accessLogFormat;
        CrawlerRangesOptions crawlerRanges;
        SignedAgentOptions signedAgents;
        Path asnFile;

        Copy(ServerConfig from) {
            listen = from.listen();
            upstream = from.upstream();
            admin = from.admin();
            stateDir = from.stateDir();
            initialPolicy = from.initialPolicy();
            demo = from.demo();
            demoTraffic = from.demoTraffic();
            accessLog = from.accessLog();
            upstreamTimeout = from.upstreamTimeout();
            crawlerList = from.crawlerList();
            adminOptions = from.adminOptions();
            limits = from.limits();
            cluster = from.cluster();
            frontPath = from.frontPath();
            accessLogFormat = from.accessLogFormat();
            crawlerRanges = from.crawlerRanges();
            signedAgents = from.signedAgents();
            asnFile = from.asnFile();
        }

        ServerConfig build() {
            return new ServerConfig(listen, upstream, admin, stateDir, initialPolicy, demo, demoTraffic, accessLog,
                    upstreamTimeout, crawlerList, adminOptions, limits, cluster, frontPath, accessLogFormat,
                    crawlerRanges, signedAgents, asnFile);
        }
    }
}
