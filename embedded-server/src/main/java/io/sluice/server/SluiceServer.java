package io.sluice.server;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.server.admin.AdminHandler;
import io.sluice.server.admin.Route;
import io.sluice.server.admin.ServerCounters;
import io.sluice.server.botauth.DirectoryHandler;
import io.sluice.server.botauth.PublishedDirectory;
import io.sluice.server.botauth.SignedAgentService;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.front.AccessLog;
import io.sluice.server.front.ConnectionGuard;
import io.sluice.server.front.LeanForwarding;
import io.sluice.server.front.RobotsReader;
import io.sluice.server.front.ThrottleHandler;
import io.sluice.server.front.UpstreamErrors;
import io.sluice.server.front.UpstreamProxy;
import io.sluice.server.ranges.AsnFile;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.tls.AdminCertificate;
import io.sluice.server.tls.AdminTls;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A running front end: the public listener (throttle handler, then the reverse proxy) and the admin API on its own
 * listener (its own server: threads, connection limit, TLS; see {@link Listeners}), for a node on its own or a node
 * of a cluster ({@link NodeMode}). This is the composition root of the standalone server (docs/architecture.md,
 * "Composition"); the demo (module demo, {@code io.sluice.server.demo}) builds on it, never the reverse. Closing it
 * stops gracefully: requests in flight finish (up to a timeout) before the listeners close.
 */
public final class SluiceServer implements AutoCloseable {
    private static final long STOP_TIMEOUT_MILLIS = 10_000;

    private final Server server;
    private final ServerConnector frontConnector;
    private final Server adminServer;
    private final ServerConnector adminConnector;
    private final AdminCertificate adminCertificate;
    private final PolicyChanges policyChanges;
    private final StateDirectory state;
    private final NodeEngine node;
    private final NodeMode mode;
    private final AccessLog accessLog;
    private final Deque<AutoCloseable> closedFirst = new ConcurrentLinkedDeque<>();
    private final Deque<AutoCloseable> closedLast = new ConcurrentLinkedDeque<>();
    /** The IP-to-ASN file in use ({@code --asn-file}), read again by each reload; null for none. */
    private volatile Path asnFile;

    private SluiceServer(Server server, ServerConnector frontConnector, Server adminServer,
                         ServerConnector adminConnector, AdminCertificate adminCertificate, PolicyChanges policyChanges,
                         StateDirectory state, NodeEngine node, NodeMode mode, AccessLog accessLog) {
        this.server = server;
        this.frontConnector = frontConnector;
        this.adminServer = adminServer;
        this.adminConnector = adminConnector;
        this.adminCertificate = adminCertificate;
        this.policyChanges = policyChanges;
        this.state = state;
        this.node = node;
        this.mode = mode;
        this.accessLog = accessLog;
    }

    /** Opens the state directory, builds the engine from its policy and starts listening. */
    public static SluiceServer start(ServerConfig config) throws Exception {
        return start(config, List.of());
    }

    /**
     * @param extraAdminRoutes another room's endpoints, served by the admin API behind its own checks
     * @throws IllegalArgumentException no upstream (the demo site is started by the demo module's
     *                                  {@code io.sluice.server.demo.Demo}),
     *                                  or plain HTTP for the admin API on an address other than loopback
     */
    public static SluiceServer start(ServerConfig config, List<Route> extraAdminRoutes) throws Exception {
        refuseUnsafe(config);
        InstantSource clock = InstantSource.system();
        StateDirectory state = StateDirectory.open(config.stateDir(), config.initialPolicy(),
                config.adminOptions().auditMaxBytes(), config.adminOptions().auditKeep());
        NodeMode mode = NodeMode.of(config);
        NodeEngine node = NodeEngine.start(state, config.crawlerList(), null, clock, mode.clientStore(),
                config.crawlerRanges());
        SluiceServer running;
        SignedAgentService signedAgents = null;
        try {
            // before any listener: a file that cannot be used stops the start with its reason (a line named)
            new AsnFile(node.engine()).use(config.asnFile());
            signedAgents = SignedAgentService.start(config.signedAgents(), clock);
            node.engine().verifySignedAgentsWith(signedAgents.verifier());
            running = listen(config, extraAdminRoutes, state, node, mode, clock, signedAgents);
            running.closeLast(signedAgents);
            running.asnFile = config.asnFile();
        } catch (Exception | Error e) {
            if (signedAgents != null) {
                signedAgents.close();
            }
            node.close();
            throw e;
        }
        try {
            mode.join(new NodeMode.Bound(node, state, running.frontConnector.getLocalPort(), running.adminListening(),
                    running.adminServer.getThreadPool(), clock));
        } catch (Exception | Error e) {
            running.close();
            throw e;
        }
        return running;
    }

    private static void refuseUnsafe(ServerConfig config) {
        AdminOptions adminOptions = config.adminOptions();
        if (!adminOptions.tls() && !adminOptions.insecure() && !Listeners.isLoopback(config.admin().host())) {
            throw new IllegalArgumentException("the admin API would listen on " + config.admin() + " without TLS, "
                    + "so its tokens would cross the network in clear text: add --admin-tls, or --admin-insecure "
                    + "if something in front of it encrypts the traffic");
        }
        if (config.upstream() == null) {
            throw new IllegalArgumentException("no upstream to protect: give one (the demo site is served by the "
                    + "demo module's io.sluice.server.demo.Demo, which starts it and then this server in front of it)");
        }
    }

    /** The policy's writer, both listeners, started: the admin API first. */
    private static SluiceServer listen(ServerConfig config, List<Route> extraAdminRoutes, StateDirectory state,
                                       NodeEngine node, NodeMode mode, InstantSource clock,
                                       SignedAgentService signedAgents) throws Exception {
        PublishedDirectory fleetKeys = signedAgents.published();
        PolicyChanges changes = node.policyChanges(mode.policyStore(state, node, clock), clock);
        AccessLog accessLog = config.accessLog() == null ? null : AccessLog.open(config.accessLog(),
                config.accessLogFormat());
        QueuedThreadPool threads = new QueuedThreadPool(200, 8);
        threads.setName("sluice");
        Server server = new Server(threads);
        server.setStopTimeout(STOP_TIMEOUT_MILLIS);
        ServerConnector front = front(server, config, node.engine(), clock, accessLog, fleetKeys);

        AdminOptions adminOptions = config.adminOptions();
        AdminCertificate certificate = adminOptions.tls() ? AdminTls.load(adminOptions.certificate(),
                config.stateDir(), config.admin().host(), adminOptions.hostNames()) : null;
        Server adminServer = Listeners.adminServer(config.limits());
        adminServer.setStopTimeout(STOP_TIMEOUT_MILLIS);
        ServerConnector admin = Listeners.admin(adminServer, config.admin(), config.limits(), certificate,
                adminOptions.strangers());
        ServerCounters counters = ListenerCounters.of(accessLog, admin, front, signedAgents);
        List<Route> adminRoutes = new ArrayList<>(extraAdminRoutes);
        adminRoutes.addAll(mode.adminRoutes());
        adminServer.setHandler(new GracefulHandler(new AdminHandler(node.engine(), node.governor(),
                node.shadow(), state, changes, clock, adminRoutes, hostNames(config), counters)));
        try {
            startOrExplain(adminServer, "the Sluice admin API", admin);
            startOrExplain(server, "Sluice", front);
        } catch (IOException e) {
            adminServer.stop();
            if (accessLog != null) {
                accessLog.close();
            }
            throw e;
        }
        return new SluiceServer(server, front, adminServer, admin, certificate, changes, state, node, mode, accessLog);
    }

    /** The public listener: the throttle, then the upstream (on the lean path or through Jetty's proxy). */
    private static ServerConnector front(Server server, ServerConfig config, ThrottleEngine engine,
                                         InstantSource clock, AccessLog accessLog, PublishedDirectory fleetKeys) {
        URI upstream = config.upstream();
        // The lean path forwards to plain-HTTP upstreams; an https:// one is served by the proxy path alone.
        LeanForwarding lean = config.frontPath() == ForwardingPath.LEAN && LeanForwarding.supports(upstream)
                ? new LeanForwarding(engine, clock, accessLog, upstream, config.upstreamTimeout(),
                        Listeners.frontRequestIdle(config.upstreamTimeout()))
                : null;
        // Both paths count their 502s and 504s in one place, for /metrics.
        UpstreamErrors upstreamErrors = lean == null ? new UpstreamErrors() : lean.upstreamErrors();
        ServerConnector front = Listeners.front(server, config.listen(), config.limits(), lean, engine::policy);
        front.setName("front");
        front.addBean(upstreamErrors, false); // read for /metrics, as the connection guard is
        // the upstream's robots.txt, read on a timer of its own and started and stopped with the front server
        RobotsReader robots = new RobotsReader(engine, upstream, RobotsReader.DEFAULT_EVERY, config.upstreamTimeout());
        server.addBean(robots);
        Handler throttle = new ThrottleHandler(engine, clock, accessLog,
                UpstreamProxy.to(upstream, config.upstreamTimeout(), upstreamErrors), robots);
        // the fleet's key directory, when published, is answered before the throttle (verifiers must reach it)
        server.setHandler(new GracefulHandler(fleetKeys == null ? throttle : new DirectoryHandler(fleetKeys,
                throttle)));
        return front;
    }

    /** The names the admin listener answers to: the operator's, the listen host's, this machine's. */
    private static Set<String> hostNames(ServerConfig config) {
        Set<String> names = new LinkedHashSet<>(config.adminOptions().hostNames());
        names.add(config.admin().host());
        try {
            names.add(InetAddress.getLocalHost().getHostName());
        } catch (UnknownHostException e) {
            // Addresses and localhost are accepted anyway.
        }
        return names;
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

    /**
     * Closes {@code client} when this server closes, before its listeners stop: something that sends it requests
     * (the demo's traffic), which would otherwise keep a graceful stop busy. The last registered closes first.
     */
    public void closeFirst(AutoCloseable client) {
        closedFirst.push(client);
    }

    /**
     * Closes {@code upstream} when this server closes, once its listeners have stopped: something it forwards to
     * (the demo site), which the requests finishing during a graceful stop still need. The last registered closes
     * first.
     */
    public void closeLast(AutoCloseable upstream) {
        closedLast.push(upstream);
    }

    public URI frontUri() {
        return URI.create("http://" + hostForUri(frontConnector.getHost()) + ":" + frontConnector.getLocalPort()
                + "/");
    }

    public URI adminUri() {
        return URI.create((adminCertificate == null ? "http://" : "https://") + hostForUri(adminConnector.getHost())
                + ":" + adminConnector.getLocalPort() + "/");
    }

    /** The admin listener's URI with the host it is bound to: {@code 0.0.0.0} or {@code [::]} as they are. */
    private URI adminListening() {
        String host = adminConnector.getHost() == null ? "0.0.0.0" : adminConnector.getHost();
        return URI.create((adminCertificate == null ? "http://" : "https://") + (host.contains(":") ? "[" + host + "]"
                : host) + ":" + adminConnector.getLocalPort() + "/");
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
        return node.engine();
    }

    public CrawlGovernor governor() {
        return node.governor();
    }

    /** This node's membership of its cluster, or null when started without {@code --redis}. */
    public ClusterNode cluster() {
        return mode.cluster();
    }

    public StateDirectory state() {
        return state;
    }

    /**
     * Applies what a running server can take from {@code next} (io.sluice.server.config.ConfigReload decides what
     * that is): the IP-to-ASN file is read again (or another, or none); the access log is opened again by its name,
     * or moved, or reformatted; the public listener's per-address cap, head deadline and body rate take their new
     * values. Throws, changing nothing, when the IP-to-ASN file cannot be used; throws when the new access log cannot
     * be opened.
     */
    public void reload(ServerConfig next) throws IOException {
        // first: a file that cannot be used throws before anything else is changed, and the table in use stays
        new AsnFile(node.engine()).use(next.asnFile());
        asnFile = next.asnFile();
        if (accessLog != null && next.accessLog() != null) {
            accessLog.reopen(next.accessLog(), next.accessLogFormat());
        }
        ConnectionLimits limits = next.limits();
        frontConnector.getBean(ConnectionGuard.class).update(limits.frontPerAddress(), limits.requestHeadTimeout(),
                limits.minBodyBytesPerSecond());
    }

    /**
     * Reads the IP-to-ASN file again by its name (a fresh copy put in its place), as a reload without a configuration
     * file does; what it holds, for the log, or null without one. Throws, keeping the table in use, when the file
     * cannot be used.
     */
    public String reloadAsnFile() throws IOException {
        Path file = asnFile;
        return file == null ? null : new AsnFile(node.engine()).use(file);
    }

    /**
     * Opens the access log again by the name and in the format it has now, as after logrotate renamed it; its name, or
     * null without an access log. Throws, changing nothing, when it cannot be opened.
     */
    public String reopenAccessLog() throws IOException {
        if (accessLog == null) {
            return null;
        }
        accessLog.reopen();
        return accessLog.name();
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
        closeAll(closedFirst);
        // Each listener is stopped whatever became of the other: a front whose grace ran out must not leave the
        // admin listener holding its port and threads.
        List<Exception> failures = new ArrayList<>(2);
        stop(server, "the front end", failures);
        stop(adminServer, "the admin listener", failures);
        node.close(); // the policy writer, before the cluster's links it writes through
        mode.close();
        if (accessLog != null) {
            accessLog.close();
        }
        closeAll(closedLast);
        if (!failures.isEmpty()) {
            IllegalStateException failed = new IllegalStateException("Sluice did not stop cleanly: " + failures.stream()
                    .map(Exception::getMessage).collect(Collectors.joining("; ")), failures.get(0));
            failures.stream().skip(1).forEach(failed::addSuppressed);
            throw failed;
        }
    }

    /**
     * Stops {@code listener}, adding to {@code failures} what went wrong, said for the operator who reads it when
     * the process stops: a grace that ran out is a slow client's doing more often than Sluice's.
     */
    private static void stop(Server listener, String name, List<Exception> failures) {
        try {
            listener.stop();
        } catch (TimeoutException e) {
            failures.add(new IllegalStateException(name + " still had requests or connections open after "
                    + STOP_TIMEOUT_MILLIS / 1000 + " s of grace; they were cut", e));
        } catch (Exception e) {
            failures.add(new IllegalStateException(name + " did not stop: " + e, e));
        }
    }

    private static void closeAll(Deque<AutoCloseable> companions) {
        for (AutoCloseable companion = companions.poll(); companion != null; companion = companions.poll()) {
            try {
                companion.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // Best effort: this server's own stop goes on, and the companion is going away with it.
            }
        }
    }
}
