package io.sluice.server;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.server.admin.AdminConnections;
import io.sluice.server.admin.AdminHandler;
import io.sluice.server.admin.ServerCounters;
import io.sluice.server.cluster.ClusterHandler;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.cluster.ClusterPolicyStore;
import io.sluice.server.cluster.ClusterSettings;
import io.sluice.server.cluster.EngineLoad;
import io.sluice.server.cluster.LocalPolicyMirror;
import io.sluice.server.cluster.RedisClientStateStore;
import io.sluice.server.cluster.RedisDomainLedger;
import io.sluice.server.cluster.SharedPolicy;
import io.sluice.server.demo.DemoCrawlers;
import io.sluice.server.demo.DemoSite;
import io.sluice.server.demo.DemoScenario;
import io.sluice.server.front.AccessLog;
import io.sluice.server.front.ConnectionGuard;
import io.sluice.server.front.LeanForwarding;
import io.sluice.server.front.PublicConnector;
import io.sluice.server.front.ThrottleHandler;
import io.sluice.server.front.UpstreamErrors;
import io.sluice.server.front.UpstreamProxy;
import io.sluice.server.change.LocalPolicyStore;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.tls.AdminCertificate;
import io.sluice.server.tls.AdminTls;
import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A running front end: the public listener (throttle handler, then the reverse proxy), the admin API on
 * its own listener (its own server: threads, connection limit, TLS; see {@link Listeners}), and optionally
 * the demo site and demo traffic. Closing it stops gracefully: requests in flight finish (up to a timeout)
 * before the listeners close.
 */
public final class SluiceServer implements AutoCloseable {
    private static final long STOP_TIMEOUT_MILLIS = 10_000;

    private final Server server;
    private final Server adminServer;
    private final AdminCertificate adminCertificate;
    private final PolicyChanges policyChanges;
    private final Server demoSite;
    private final ServerConnector frontConnector;
    private final ServerConnector adminConnector;
    private final StateDirectory state;
    private final ThrottleEngine engine;
    private final CrawlGovernor governor;
    private final AccessLog accessLog;
    private DemoScenario traffic;
    private DemoSite demoPages;
    private DemoCrawlers crawlers;
    private NodeEngine node;
    private ClusterNode cluster;

    private SluiceServer(Server server, Server adminServer, AdminCertificate adminCertificate,
                         PolicyChanges policyChanges, Server demoSite, ServerConnector frontConnector,
                         ServerConnector adminConnector, StateDirectory state, ThrottleEngine engine,
                         CrawlGovernor governor, AccessLog accessLog) {
        this.governor = governor;
        this.server = server;
        this.adminServer = adminServer;
        this.adminCertificate = adminCertificate;
        this.policyChanges = policyChanges;
        this.demoSite = demoSite;
        this.frontConnector = frontConnector;
        this.adminConnector = adminConnector;
        this.state = state;
        this.engine = engine;
        this.accessLog = accessLog;
    }

    /** Opens the state directory, builds the engine from its policy and starts listening. */
    public static SluiceServer start(ServerConfig config) throws Exception {
        return start(config, List.of());
    }

    /**
     * @param extraAdminRoutes handlers consulted by the admin API, after authentication, for paths it does
     *                         not serve itself (another room's endpoints); each answers its own paths and
     *                         returns false for the rest
     */
    public static SluiceServer start(ServerConfig config, List<Handler> extraAdminRoutes) throws Exception {
        AdminOptions adminOptions = config.adminOptions();
        if (!adminOptions.tls() && !adminOptions.insecure() && !Listeners.isLoopback(config.admin().host())) {
            throw new IllegalArgumentException("the admin API would listen on " + config.admin() + " without TLS, "
                    + "so its tokens would cross the network in clear text: add --admin-tls, or --admin-insecure "
                    + "if something in front of it encrypts the traffic");
        }
        InstantSource clock = InstantSource.system();
        StateDirectory state = StateDirectory.open(config.stateDir(), config.initialPolicy(),
                adminOptions.auditMaxBytes(), adminOptions.auditKeep());
        // Cluster mode: the per-client rules are the cluster's, in Redis (attached once the node has started; until
        // then, and whenever Redis is slow or gone, the engine decides alone). A lease outlives a dead node's
        // requests by the upstream timeout and a margin.
        RedisClientStateStore clientStore = config.cluster() == null ? null
                : new RedisClientStateStore(ClusterSettings.DEFAULTS, config.upstreamTimeout().plusSeconds(5));
        NodeEngine node = NodeEngine.start(state, config.crawlerList(), null, clock, clientStore);
        ThrottleEngine engine = node.engine();
        CrawlGovernor governor = node.governor();

        Server demoSite = null;
        DemoSite demoPages = null;
        URI upstream = config.upstream();
        if (config.demo()) {
            demoSite = new Server(new QueuedThreadPool(16, 2, 60_000));
            ServerConnector demoConnector = connector(demoSite, new HostPort("127.0.0.1", 0));
            demoPages = new DemoSite();
            demoSite.setHandler(demoPages);
            startOrExplain(demoSite, "the demo site", demoConnector);
            upstream = URI.create("http://127.0.0.1:" + demoConnector.getLocalPort() + "/");
        }

        QueuedThreadPool threads = new QueuedThreadPool(200, 8);
        threads.setName("sluice");
        Server server = new Server(threads);
        server.setStopTimeout(STOP_TIMEOUT_MILLIS);
        AccessLog accessLog = config.accessLog() == null ? null : AccessLog.open(config.accessLog(),
                config.accessLogFormat());
        // The lean path forwards to plain-HTTP upstreams; an https:// one is served by the proxy path alone.
        LeanForwarding lean = config.frontPath() == ForwardingPath.LEAN && LeanForwarding.supports(upstream)
                ? new LeanForwarding(engine, clock, accessLog, upstream, config.upstreamTimeout(),
                        Listeners.frontRequestIdle(config.upstreamTimeout()))
                : null;
        // Both paths count their 502s and 504s in one place, for /metrics.
        UpstreamErrors upstreamErrors = lean == null ? new UpstreamErrors() : lean.upstreamErrors();
        ServerConnector front = Listeners.front(server, config.listen(), config.limits(), lean, engine::policy);
        front.setName("front");

        // The cluster node starts once the listeners are bound (its default name and its admin address need
        // their ports); its routes are mounted now and answer 503 until then.
        AtomicReference<ClusterNode> clusterNode = new AtomicReference<>();
        if (config.cluster() != null) {
            extraAdminRoutes = new ArrayList<>(extraAdminRoutes);
            extraAdminRoutes.add(new ClusterHandler(clusterNode::get));
        }
        server.setHandler(new GracefulHandler(Listeners.patient(
                new ThrottleHandler(engine, clock, accessLog, UpstreamProxy.to(upstream, config.upstreamTimeout(),
                        upstreamErrors)),
                Listeners.frontRequestIdle(config.upstreamTimeout()))));

        AdminCertificate certificate = adminOptions.tls() ? AdminTls.load(adminOptions.certificate(),
                config.stateDir(), config.admin().host(), adminOptions.hostNames()) : null;
        // In a cluster a change is a compare-and-set in Redis, taken by every node (this one too) from the log;
        // the versions this node ran are remembered for merging edits made from them.
        PolicyHistory history = node.history();
        AtomicReference<SharedPolicy> sharedPolicy = new AtomicReference<>();
        PolicyChanges changes = node.policyChanges(config.cluster() == null
                ? new LocalPolicyStore(state, history, clock)
                : new ClusterPolicyStore(sharedPolicy::get, () -> engine.policy().version(), history), clock);
        Server adminServer = Listeners.adminServer(config.limits());
        adminServer.setStopTimeout(STOP_TIMEOUT_MILLIS);
        ServerConnector admin = Listeners.admin(adminServer, config.admin(), config.limits(), certificate,
                adminOptions.strangers());
        ServerCounters counters = new ServerCounters(accessLog == null ? null : accessLog::drops,
                admin.getBean(AdminConnections.class)::counts, front.getBean(ConnectionGuard.class).shed()::counts,
                upstreamErrors::counts);
        adminServer.setHandler(new GracefulHandler(Listeners.patient(new AdminHandler(engine, governor, node.shadow(),
                state, changes, clock, extraAdminRoutes, hostNames(config), counters), Listeners.ADMIN_REQUEST_IDLE)));
        try {
            startOrExplain(adminServer, "the Sluice admin API", admin);
            startOrExplain(server, "Sluice", front);
        } catch (IOException e) {
            adminServer.stop();
            if (demoSite != null) {
                demoSite.stop();
            }
            node.close();
            throw e;
        }
        SluiceServer running = new SluiceServer(server, adminServer, certificate, changes, demoSite, front, admin,
                state, engine, governor, accessLog);
        running.node = node; // its threads go with the server
        if (config.cluster() != null) {
            running.cluster = ClusterNode.start(config.cluster().nodeNameOr(front.getLocalPort()),
                    config.cluster().redis(), running.adminUri().toString(), new EngineLoad(engine),
                    ClusterSettings.DEFAULTS, clock);
            running.cluster.policy().follow(new LocalPolicyMirror(engine, state, clock, history));
            sharedPolicy.set(running.cluster.policy());
            running.cluster.shareClientState(clientStore, server.getThreadPool());
            // Permits and feedback go to the cluster's per-domain state in Redis; answers complete on the admin
            // server's threads (the workers' API), never on Redis's event loop.
            governor.shareWith(RedisDomainLedger.of(running.cluster, ClusterSettings.DEFAULTS,
                    adminServer.getThreadPool()));
            engine.reportClusterStatus(running.cluster::status);
            clusterNode.set(running.cluster);
        }
        running.demoPages = demoPages;
        if (config.demoTraffic()) {
            DemoScenario.verifyCrawlers(changes);
            running.traffic = DemoScenario.start(List.of(running.frontUri()), demoPages, DemoScenario.DEFAULT_PHASE);
            running.crawlers = DemoCrawlers.start(running.adminUri(), state.workerToken());
        }
        return running;
    }

    /** The names the admin listener answers to: the operator's, the listen host's, this machine's. */
    private static Set<String> hostNames(ServerConfig config) {
        Set<String> names = new LinkedHashSet<>(config.adminOptions().hostNames());
        names.add(config.admin().host());
        try {
            names.add(java.net.InetAddress.getLocalHost().getHostName());
        } catch (java.net.UnknownHostException e) {
            // Addresses and localhost are accepted anyway.
        }
        return names;
    }

    private static ServerConnector connector(Server server, HostPort address) {
        ServerConnector connector = new ServerConnector(server,
                new HttpConnectionFactory(PublicConnector.anonymousHttp()));
        connector.setHost(address.host());
        connector.setPort(address.port());
        server.addConnector(connector);
        return connector;
    }

    /** Starts {@code server}, turning a bind failure into a one-line message naming the address. */
    private static void startOrExplain(Server server, String what, ServerConnector... connectors) throws Exception {
        try {
            server.start();
        } catch (IOException e) {
            server.stop();
            if (e instanceof BindException || e.getCause() instanceof BindException) {
                for (ServerConnector connector : connectors) {
                    if (!connector.isStarted()) {
                        throw new BindException("cannot listen on " + connector.getHost() + ":"
                                + connector.getPort() + " for " + what + ": the port is in use or not available");
                    }
                }
            }
            throw e;
        }
    }

    public URI frontUri() {
        return URI.create("http://" + hostForUri(frontConnector.getHost()) + ":" + frontConnector.getLocalPort()
                + "/");
    }

    public URI adminUri() {
        return URI.create((adminCertificate == null ? "http://" : "https://") + hostForUri(adminConnector.getHost())
                + ":" + adminConnector.getLocalPort() + "/");
    }

    /** The admin listener's TLS certificate, or null when it serves plain HTTP. */
    public AdminCertificate adminCertificate() {
        return adminCertificate;
    }

    /** The one place the policy changes (validate, persist, swap): for rooms that change it, e.g. a promotion. */
    public PolicyChanges policyChanges() {
        return policyChanges;
    }

    public String adminToken() {
        return state.adminToken();
    }

    public ThrottleEngine engine() {
        return engine;
    }

    public CrawlGovernor governor() {
        return governor;
    }

    /** The built-in demo site this server fronts (with {@code --demo}), or null. */
    public DemoSite demoSite() {
        return demoPages;
    }

    /** This node's membership of its cluster, or null when started without {@code --redis}. */
    public ClusterNode cluster() {
        return cluster;
    }

    public StateDirectory state() {
        return state;
    }

    /**
     * Applies what a running server can take from {@code next} (io.sluice.server.config.ConfigReload decides what
     * that is): the access log is opened again by its name, or moved, or reformatted; the public listener's
     * per-address cap, head deadline and body rate take their new values. Throws, changing nothing, when the new
     * access log cannot be opened.
     */
    public void reload(ServerConfig next) throws IOException {
        if (accessLog != null && next.accessLog() != null) {
            accessLog.reopen(next.accessLog(), next.accessLogFormat());
        }
        ConnectionLimits limits = next.limits();
        frontConnector.getBean(ConnectionGuard.class).update(limits.frontPerAddress(), limits.requestHeadTimeout(),
                limits.minBodyBytesPerSecond());
    }

    /** Blocks until the server stops. */
    public void join() throws InterruptedException {
        server.join();
    }

    private static String hostForUri(String host) {
        if (host == null || "0.0.0.0".equals(host)) {
            return "127.0.0.1";
        }
        return host.contains(":") ? "[" + host + "]" : host;
    }

    /** Stops gracefully: requests in flight finish (up to 10 s), then the listeners close. */
    @Override
    public void close() {
        if (crawlers != null) {
            crawlers.close();
        }
        if (traffic != null) {
            traffic.close();
        }
        try {
            server.stop();
            adminServer.stop();
            node.close(); // the policy writer, before the cluster's links it writes through
            if (cluster != null) {
                cluster.close();
            }
            if (demoSite != null) {
                demoSite.stop();
            }
        } catch (Exception e) {
            throw new IllegalStateException("Sluice did not stop cleanly: " + e.getMessage(), e);
        } finally {
            node.close();
            if (accessLog != null) {
                accessLog.close();
            }
        }
    }
}
