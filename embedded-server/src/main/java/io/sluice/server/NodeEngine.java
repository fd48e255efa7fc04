package io.sluice.server;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.server.change.AutomaticBanWriter;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.change.PolicyStore;
import io.sluice.server.ranges.CrawlerRangesFollower;
import io.sluice.server.ranges.CrawlerRangesOptions;
import io.sluice.server.state.DomainSettingsWriter;
import io.sluice.server.state.PassKeyFollower;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

/**
 * The engine of one node and what runs beside it: the crawler classifier, the search-engine verifier and its DNS
 * threads, the follower of the crawlers' published ranges, the live what-if shadow, the policy's one writer (its
 * changes, and the thread that writes automatic bans) and the crawl governor with its settings writer. The
 * standalone server and embedded mode both build it here, so that neither lacks a piece the other has (embedded
 * mode once had no verifier and lost its automatic bans at a restart).
 */
public final class NodeEngine implements AutoCloseable {
    private final ThrottleEngine engine;
    private final CrawlGovernor governor;
    private final LiveShadow shadow;
    private volatile AutomaticBanWriter automaticBans;
    private final ThreadPoolExecutor dnsLookups;
    private final PolicyHistory history;
    private final PassKeyFollower passKeys;
    private final CrawlerRangesFollower crawlerRanges;

    private NodeEngine(ThrottleEngine engine, CrawlGovernor governor, LiveShadow shadow, ThreadPoolExecutor dnsLookups,
                       PolicyHistory history, PassKeyFollower passKeys, CrawlerRangesFollower crawlerRanges) {
        this.crawlerRanges = crawlerRanges;
        this.history = history;
        this.passKeys = passKeys;
        this.engine = engine;
        this.governor = governor;
        this.shadow = shadow;
        this.dnsLookups = dnsLookups;
    }

    /**
     * @param crawlerList a newer crawler-user-agents file than the bundled one, or null
     * @param dns         resolves names for verifying search engines' addresses; null for the system's resolver
     * @param shared      cluster mode's store of the per-client rules, or null for one node alone
     * @throws IOException the crawler list cannot be read
     */
    public static NodeEngine start(StateDirectory state, Path crawlerList, SearchEngineVerifier.Resolver dns,
                                   InstantSource clock, SharedClientStore<?> shared) throws IOException {
        return start(state, crawlerList, dns, clock, shared, CrawlerRangesOptions.NONE);
    }

    /**
     * @param ranges where the crawlers' published ranges are refreshed from, and how often; without a source, the
     *               state directory's copy is still followed
     * @throws IOException the crawler list cannot be read
     */
    public static NodeEngine start(StateDirectory state, Path crawlerList, SearchEngineVerifier.Resolver dns,
                                   InstantSource clock, SharedClientStore<?> shared, CrawlerRangesOptions ranges)
            throws IOException {
        CrawlerListClassifier classifier = crawlerList == null ? CrawlerListClassifier.bundled()
                : CrawlerListClassifier.fromFile(crawlerList);
        ThreadPoolExecutor dnsLookups = dnsLookups();
        SearchEngineVerifier verifier = searchEngineVerifier(dns == null ? SearchEngineVerifier.systemResolver() : dns,
                dnsLookups, clock);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, state.loadPolicy(), classifier,
                verifier, shared);
        // the browser check's passes outlive a restart, and a rotation reaches the running server
        PassKeyFollower passKeys = PassKeyFollower.start(state.path(), engine.browserPasses(), new SecureRandom());
        CrawlerRangesFollower crawlerRanges = CrawlerRangesFollower.start(engine, state.path(), ranges, clock);
        LiveShadow shadow = new LiveShadow(engine, EngineConfig.defaults(), classifier, verifier, clock);
        PolicyHistory history = new PolicyHistory(engine.policy());
        CrawlGovernor governor = new CrawlGovernor(clock, () -> engine.policy().governor(),
                RandomGenerator.of("L64X128MixRandom"), CrawlGovernor.DEFAULT_MAX_DOMAINS, state.loadDomainSettings());
        // An operator's change to a domain (rate, minimum delay, revival) survives a restart.
        governor.onSettingsChanged(new DomainSettingsWriter(state, governor::settings)::save);
        return new NodeEngine(engine, governor, shadow, dnsLookups, history, passKeys, crawlerRanges);
    }

    /**
     * Forward-confirmed reverse DNS for clients claiming a major search engine, consulted only while the policy's
     * {@code crawlers.verifySearchEngines} is on. Off the request path: four lookup threads, at most 1,000 lookups
     * queued, two at a time per network (IPv4 /24, IPv6 /64: below the thread count, so one network whose DNS
     * hangs cannot hold every thread) and 100 per claimed crawler; a lookup queued for over 5 s is dropped unasked.
     * Real answers are kept a day (failures an hour) for up to 100,000 (crawler, address) pairs; no answer is not
     * yet known, asked again after 10 s to 2 min (docs/manual/classify.md, "Reverse DNS").
     */
    private static SearchEngineVerifier searchEngineVerifier(SearchEngineVerifier.Resolver dns,
                                                             ThreadPoolExecutor lookups, InstantSource clock) {
        return new SearchEngineVerifier(dns, lookups, clock, Duration.ofDays(1), Duration.ofHours(1), 100_000,
                Duration.ofSeconds(5), new SearchEngineVerifier.Bounds(2, 100));
    }

    private static ThreadPoolExecutor dnsLookups() {
        AtomicInteger count = new AtomicInteger();
        return new ThreadPoolExecutor(4, 4, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1_000), runnable -> {
            Thread thread = new Thread(runnable, "sluice-dns-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }, new ThreadPoolExecutor.AbortPolicy());
    }

    public ThrottleEngine engine() {
        return engine;
    }

    public CrawlGovernor governor() {
        return governor;
    }

    public LiveShadow shadow() {
        return shadow;
    }

    /** Follows the state directory's browser pass key file; a cluster node diverts it to the cluster's ring. */
    public PassKeyFollower passKeyFollower() {
        return passKeys;
    }

    /** The versions of the policy this node ran, its automatic bans' included: for merging an edit made from one. */
    public PolicyHistory history() {
        return history;
    }

    /**
     * The one writer of this node's policy, recording through {@code store} (this machine's files, or the cluster's
     * Redis): operators' changes, and the engine's automatic bans, batched by a thread of its own. Call once.
     */
    public PolicyChanges policyChanges(PolicyStore store, InstantSource clock) {
        if (automaticBans != null) {
            throw new IllegalStateException("the policy has one writer: already made");
        }
        PolicyChanges changes = new PolicyChanges(engine, store, clock);
        automaticBans = AutomaticBanWriter.start(engine, changes);
        return changes;
    }

    /**
     * Writes the automatic bans still queued, then stops the DNS lookups, the shadow, the key follower and the
     * ranges' follower.
     */
    @Override
    public void close() {
        AutomaticBanWriter writer = automaticBans;
        if (writer != null) {
            writer.close();
        }
        dnsLookups.shutdownNow();
        shadow.close();
        passKeys.close();
        crawlerRanges.close();
    }
}
