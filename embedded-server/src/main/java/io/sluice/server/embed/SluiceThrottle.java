package io.sluice.server.embed;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.server.AdminListener;
import io.sluice.server.ConnectionLimits;
import io.sluice.server.HostPort;
import io.sluice.server.NodeEngine;
import io.sluice.server.admin.AdminHandler;
import io.sluice.server.change.LocalPolicyStore;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.front.AccessLog;
import io.sluice.server.front.ThrottleHandler;
import io.sluice.server.ranges.CrawlerRangesOptions;
import io.sluice.server.ranges.RangesLocation;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.tls.AdminCertificate;
import io.sluice.server.tls.AdminTls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.slf4j.LoggerFactory;

/**
 * Sluice inside a Java site's own Jetty 12 server: the throttle as a {@link Handler} in front of the site's
 * handlers (no proxy hop at all), and the admin API on its own listener, so the console connects to it as to
 * any Sluice. The admin listener is the front end's ({@link AdminListener}): the same connection limit, header
 * size and idle timeouts, plain HTTP on loopback only, HTTPS with {@link Builder#adminTls} (the pin for the
 * console is logged at start and given by {@link #adminCertificate()}).
 *
 * <pre>{@code
 * SluiceThrottle sluice = SluiceThrottle.builder()
 *         .stateDirectory(Path.of("/var/lib/my-site/sluice"))
 *         .admin("127.0.0.1", 9090)
 *         .build();
 * server.setHandler(sluice.protect(siteHandler));
 * server.addBean(sluice);          // the admin API starts and stops with the site's server
 * }</pre>
 *
 * <p>The admin API runs in a small server of its own (its own threads and listener), so a flood on the
 * site cannot lock the operators out, and the site's handler tree stays the site's.
 */
public final class SluiceThrottle extends ContainerLifeCycle {
    private final ThrottleEngine engine;
    private final StateDirectory state;
    private final InstantSource clock;
    private final AccessLog accessLog;
    private final Server admin;
    private final NodeEngine node;
    private final ServerConnector adminConnector;
    private final AdminCertificate adminCertificate;
    private volatile boolean stopped;

    private SluiceThrottle(Builder builder) throws IOException {
        this.clock = builder.clock;
        this.state = StateDirectory.open(builder.stateDirectory, builder.initialPolicy);
        this.adminCertificate = builder.adminTls == null ? null
                : AdminTls.load(builder.adminTls, state.path(), builder.adminHost, Set.of());
        this.node = NodeEngine.start(state, builder.crawlerList, builder.dns, clock, null, builder.crawlerRanges);
        this.engine = node.engine();
        this.accessLog = builder.accessLog == null ? null : AccessLog.open(builder.accessLog);
        PolicyChanges changes = node.policyChanges(new LocalPolicyStore(state, node.history(), clock), clock);
        AdminListener listener = AdminListener.create(new HostPort(builder.adminHost, builder.adminPort),
                ConnectionLimits.DEFAULTS, adminCertificate, new AdminHandler(engine, node.governor(), node.shadow(),
                        state, changes, clock, List.of(), Set.of(builder.adminHost)));
        this.admin = listener.server();
        this.adminConnector = listener.connector();
        addBean(admin, true);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The site's handler behind the throttle: every request is decided first, and only an admitted one
     * reaches {@code site} (a delayed one after its wait, without holding a thread meanwhile).
     */
    public Handler protect(Handler site) {
        return new ThrottleHandler(engine, clock, accessLog, Objects.requireNonNull(site, "site"));
    }

    /** The live engine, for a site that wants to read its snapshot itself. */
    public ThrottleEngine engine() {
        return engine;
    }

    /** Where the console connects, once started. */
    public URI adminUri() {
        String host = adminConnector.getHost();
        return URI.create((adminCertificate == null ? "http://" : "https://")
                + (host.contains(":") ? "[" + host + "]" : host) + ":" + adminConnector.getLocalPort() + "/");
    }

    /** The admin listener's TLS certificate ({@link AdminCertificate#pin()} is what the console takes), or null. */
    public AdminCertificate adminCertificate() {
        return adminCertificate;
    }

    /** The admin token the console needs (kept in the state directory, readable by its owner only). */
    public String adminToken() {
        return state.adminToken();
    }

    /**
     * @throws IllegalStateException when started again after a stop: stopping closed its threads (the ban recorder,
     *                               DNS lookups) and the access log, so it would decide without them; build a new one
     */
    @Override
    protected void doStart() throws Exception {
        if (stopped) {
            throw new IllegalStateException("a SluiceThrottle cannot start again once stopped (its ban recorder, "
                    + "DNS lookups and access log are closed): build a new one");
        }
        super.doStart();
        LoggerFactory.getLogger(SluiceThrottle.class).info("Sluice admin API on {}; connect the console with: {}",
                adminUri(), AdminListener.consoleCommand(adminUri(), state.path().resolve("admin-token"),
                        adminCertificate));
    }

    @Override
    protected void doStop() throws Exception {
        stopped = true;
        super.doStop();
        node.close();
        if (accessLog != null) {
            accessLog.close();
        }
    }

    /** What the embedded throttle needs; only the state directory is required. */
    public static final class Builder {
        private Path stateDirectory;
        private Path initialPolicy;
        private Path crawlerList;
        private String accessLog;
        private String adminHost = "127.0.0.1";
        private int adminPort = 9090;
        private AdminTls.Settings adminTls;
        private InstantSource clock = InstantSource.system();
        private SearchEngineVerifier.Resolver dns;
        private CrawlerRangesOptions crawlerRanges = CrawlerRangesOptions.NONE;

        private Builder() {
        }

        /** Policy, bans, audit log and tokens; created (owner-only) at the first start. */
        public Builder stateDirectory(Path dir) {
            this.stateDirectory = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** A policy file used when the state directory holds none yet. */
        public Builder initialPolicy(Path file) {
            this.initialPolicy = file;
            return this;
        }

        /** A newer crawler-user-agents JSON file than the bundled one. */
        public Builder crawlerList(Path file) {
            this.crawlerList = file;
            return this;
        }

        /**
         * A fresher copy of the crawlers' published ranges, a file or an http(s) URL, read at start and every
         * {@code refresh}, as the server's {@code --crawler-ranges} (docs/manual/classify.md, "Ranges at runtime").
         *
         * @throws IllegalArgumentException {@code source} is neither a file nor an http(s) URL, or {@code refresh}
         *                                  is not positive
         */
        public Builder crawlerRanges(String source, Duration refresh) {
            this.crawlerRanges = new CrawlerRangesOptions(new RangesLocation(source), refresh);
            return this;
        }

        /** Combined-format access log with the decision: {@code "-"} for standard output, or a file. */
        public Builder accessLog(String target) {
            this.accessLog = target;
            return this;
        }

        /**
         * The admin API's listener (default {@code 127.0.0.1:9090}; port 0 picks a free one). An address other
         * than loopback needs {@link #adminTls}: plain HTTP would carry the tokens in clear text.
         */
        public Builder admin(String host, int port) {
            InetSocketAddress checked = new InetSocketAddress(host, port);
            this.adminHost = checked.getHostString();
            this.adminPort = port;
            return this;
        }

        /**
         * Serves the admin API over HTTPS: with {@link AdminTls.Settings#SELF_SIGNED}, a certificate made in the
         * state directory at the first start and kept (the console pins it), or with the operator's own.
         */
        public Builder adminTls(AdminTls.Settings settings) {
            this.adminTls = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * What verifies a search engine's address by forward-confirmed reverse DNS when the policy's
         * {@code crawlers.verifySearchEngines} is on (default: the system's resolver).
         */
        public Builder searchEngineResolver(SearchEngineVerifier.Resolver resolver) {
            this.dns = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** The clock the rules run on (tests pass a manual one). */
        public Builder clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Opens the state directory and builds the engine.
         *
         * @throws IOException              the state directory or a file named cannot be read or created
         * @throws IllegalStateException     no state directory was given
         * @throws IllegalArgumentException  the admin API would serve plain HTTP on an address other than loopback
         */
        public SluiceThrottle build() throws IOException {
            if (stateDirectory == null) {
                throw new IllegalStateException("a state directory is required (policy, bans, audit, tokens)");
            }
            if (adminTls == null) {
                AdminListener.refusePlainHttp(new HostPort(adminHost, adminPort));
            }
            return new SluiceThrottle(this);
        }
    }
}
