package io.sluice.server;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainSettings;
import io.sluice.server.admin.AdminHandler;
import io.sluice.server.cluster.ClusterHandler;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.cluster.ClusterSettings;
import io.sluice.server.cluster.EngineLoad;
import io.sluice.server.cluster.LocalPolicyMirror;
import io.sluice.server.demo.DemoCrawlers;
import io.sluice.server.demo.DemoSite;
import io.sluice.server.demo.DemoTraffic;
import io.sluice.server.front.AccessLog;
import io.sluice.server.front.ThrottleHandler;
import io.sluice.server.front.UpstreamProxy;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A running front end: the public listener (throttle handler, then the reverse proxy), the admin API on
 * its own listener, and optionally the demo site and demo traffic. Closing it stops gracefully:
 * requests in flight finish (up to a timeout) before the listeners close.
 */
public final class SluiceServer implements AutoCloseable {
    private static final long STOP_TIMEOUT_MILLIS = 10_000;

    private final Server server;
    private final Server demoSite;
    private final ServerConnector frontConnector;
    private final ServerConnector adminConnector;
    private final StateDirectory state;
    private final ThrottleEngine engine;
    private final CrawlGovernor governor;
    private final AccessLog accessLog;
    private DemoTraffic traffic;
    private DemoCrawlers crawlers;
    private ClusterNode cluster;

    private SluiceServer(Server server, Server demoSite, ServerConnector frontConnector,
                         ServerConnector adminConnector, StateDirectory state, ThrottleEngine engine,
                         CrawlGovernor governor, AccessLog accessLog) {
        this.governor = governor;
        this.server = server;
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
     *                         not serve itself (e.g. the crawl governor's permit API)
     */
    public static SluiceServer start(ServerConfig config, List<Handler> extraAdminRoutes) throws Exception {
        InstantSource clock = InstantSource.system();
        StateDirectory state = StateDirectory.open(config.stateDir(), config.initialPolicy());
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, state.loadPolicy(),
                config.crawlerList() == null ? CrawlerListClassifier.bundled()
                        : CrawlerListClassifier.fromFile(config.crawlerList()));
        CrawlGovernor governor = new CrawlGovernor(clock, () -> engine.policy().governor(),
                RandomGenerator.of("L64X128MixRandom"), CrawlGovernor.DEFAULT_MAX_DOMAINS, state.loadDomainSettings());
        governor.onSettingsChanged(settings -> saveDomainSettings(state, settings));

        Server demoSite = null;
        URI upstream = config.upstream();
        if (config.demo()) {
            demoSite = new Server(new QueuedThreadPool(16, 2, 60_000));
            ServerConnector demoConnector = connector(demoSite, new HostPort("127.0.0.1", 0));
            demoSite.setHandler(new DemoSite());
            startOrExplain(demoSite, "the demo site", demoConnector);
            upstream = URI.create("http://127.0.0.1:" + demoConnector.getLocalPort() + "/");
        }

        QueuedThreadPool threads = new QueuedThreadPool(200, 8);
        threads.setName("sluice");
        Server server = new Server(threads);
        server.setStopTimeout(STOP_TIMEOUT_MILLIS);
        ServerConnector front = connector(server, config.listen());
        ServerConnector admin = connector(server, config.admin());
        admin.setName("admin");
        front.setName("front");

        AccessLog accessLog = config.accessLog() == null ? null : AccessLog.open(config.accessLog());
        // The cluster node starts once the listeners are bound (its default name and its admin address need
        // their ports); its routes are mounted now and answer 503 until then.
        AtomicReference<ClusterNode> clusterNode = new AtomicReference<>();
        if (config.cluster() != null) {
            extraAdminRoutes = new ArrayList<>(extraAdminRoutes);
            extraAdminRoutes.add(new ClusterHandler(clusterNode::get));
        }
        ContextHandlerCollection byConnector = new ContextHandlerCollection();
        var publicSide = new org.eclipse.jetty.server.handler.ContextHandler(
                new ThrottleHandler(engine, clock, accessLog, UpstreamProxy.to(upstream, config.upstreamTimeout())));
        publicSide.setVirtualHosts(List.of("@front"));
        var adminSide = new org.eclipse.jetty.server.handler.ContextHandler(
                new AdminHandler(engine, governor, state, clock, extraAdminRoutes));
        adminSide.setVirtualHosts(List.of("@admin"));
        byConnector.addHandler(publicSide);
        byConnector.addHandler(adminSide);
        server.setHandler(new GracefulHandler(byConnector));
        try {
            startOrExplain(server, "Sluice", front, admin);
        } catch (IOException e) {
            if (demoSite != null) {
                demoSite.stop();
            }
            throw e;
        }
        SluiceServer running = new SluiceServer(server, demoSite, front, admin, state, engine, governor, accessLog);
        if (config.cluster() != null) {
            running.cluster = ClusterNode.start(config.cluster().nodeNameOr(front.getLocalPort()),
                    config.cluster().redis(), running.adminUri().toString(), new EngineLoad(engine),
                    ClusterSettings.DEFAULTS, clock);
            running.cluster.policy().follow(new LocalPolicyMirror(engine, state, clock));
            engine.reportClusterStatus(running.cluster::status);
            clusterNode.set(running.cluster);
        }
        if (config.demoTraffic()) {
            running.traffic = DemoTraffic.start(running.frontUri());
            running.crawlers = DemoCrawlers.start(running.adminUri(), state.workerToken());
        }
        return running;
    }

    private static ServerConnector connector(Server server, HostPort address) {
        ServerConnector connector = new ServerConnector(server);
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
        return URI.create("http://" + hostForUri(adminConnector.getHost()) + ":" + adminConnector.getLocalPort()
                + "/");
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

    /** This node's membership of its cluster, or null when started without {@code --redis}. */
    public ClusterNode cluster() {
        return cluster;
    }

    /**
     * Called by the governor after an operator action or a give-up. The action has happened in
     * memory; a disk failure must not undo it, so it is reported loudly instead of thrown.
     */
    private static void saveDomainSettings(StateDirectory state, Map<String, DomainSettings> settings) {
        try {
            state.saveDomainSettings(settings);
        } catch (IOException e) {
            System.getLogger(SluiceServer.class.getName()).log(System.Logger.Level.ERROR,
                    "cannot save the crawl governor's domain settings: " + e.getMessage(), e);
        }
    }

    public StateDirectory state() {
        return state;
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
            if (cluster != null) {
                cluster.close();
            }
            if (demoSite != null) {
                demoSite.stop();
            }
        } catch (Exception e) {
            throw new IllegalStateException("Sluice did not stop cleanly: " + e.getMessage(), e);
        } finally {
            if (accessLog != null) {
                accessLog.close();
            }
        }
    }
}
