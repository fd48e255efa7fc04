package io.sluice.server.cluster;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.engine.store.SharedClientStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The specification on a cluster node deciding alone: its shared store is unreachable, and it last saw
 * {@link #NODES} nodes, so it applies its share of the policy (docs/architecture-cluster.md, "Degraded"): every
 * count divided by the nodes, rounded up, every crawler gap multiplied by them. This is the engine's degraded path
 * ({@code SharedRules.decideAlone}).
 *
 * <p>The specification states the limits a node applies; this node is given the policy whose share they are
 * ({@link #asApplied}): a count of {@code n} becomes {@code 2n - 1}, so only rounding up gives {@code n} back, and a
 * gap is halved. Every test of the specification then checks the scaling as well as the rule.
 */
class AloneStoreSpecTest extends ClientStoreSpecification {
    /** The nodes this one last saw, itself included. */
    private static final int NODES = 2;
    private ThrottleEngine engine;

    @Override
    ThrottleEngine startNode(String name, Policy policy) {
        if (engine == null) {
            engine = new ThrottleEngine(EngineConfig.defaults(), clock, policy, CLASSIFIER, null, new Unreachable());
        }
        return engine;
    }

    @Override
    Collection<ThrottleEngine> nodes() {
        return engine == null ? List.of() : List.of(engine);
    }

    @Override
    void passTime(Duration duration) {
        clock.advance(duration);
    }

    @Override
    void alignToASecond() {
        // the clock starts 50 ms into a second and moves only when told
    }

    @Override
    Policy asApplied(Policy stated) {
        Policy.Crawlers crawlers = stated.crawlers();
        Policy.PerAddress address = stated.perAddress();
        List<Route> routes = stated.routes().stream().map(route -> route.limits() == null ? route
                : new Route(route.match(), route.path(), route.query(), route.methods(), route.classes(),
                        route.secFetchDest(), route.weight(), whole(route.limits()), route.note())).toList();
        BrowserCheck check = stated.browserCheck();
        BrowserCheck.Networks networks = check.networks();
        return stated.withHitStack(whole(stated.hitStack()))
                .withBrowserCheck(new BrowserCheck(check.mode(), check.difficulty(), check.passTtlSeconds(),
                        check.noScript(), check.noScriptWaitSeconds(), check.pressureInFlight(),
                        check.pressureHoldSeconds(), whole(check.perPass()), new BrowserCheck.Networks(
                                networks.ipv4Prefix(), networks.ipv6Prefix(), whole(networks.withoutPass()),
                                whole(networks.withPass()), networks.passCooldownSeconds(),
                                networks.maxConcurrentWithoutPass(), networks.maxConcurrentWithPass()),
                        check.exemptPaths(), check.alwaysChallenge()))
                .withPerClient(new Policy.PerClient(whole(stated.perClient().maxConcurrent())))
                .withPerAddress(new Policy.PerAddress(address.ipv4Prefix(), address.ipv6Prefix(),
                        address.windowSeconds(), whole(address.maxHits()), whole(address.maxConcurrent())))
                .withRoutes(routes)
                .withCrawlers(new Policy.Crawlers(wholeGap(crawlers.perCrawlerSeconds()),
                        wholeGap(crawlers.allCrawlersSeconds()), crawlers.verifySearchEngines(),
                        crawlers.verifiedRanges()));
    }

    /** The policy's count whose share, rounded up, is {@code share}. */
    private static int whole(int share) {
        return NODES * share - (NODES - 1);
    }

    private static Policy.HitStack whole(Policy.HitStack share) {
        return new Policy.HitStack(share.windowSeconds(), whole(share.maxHits()));
    }

    /** The policy's crawler gap that this node multiplies into {@code seconds}. */
    private static int wholeGap(int seconds) {
        if (seconds % NODES != 0) {
            throw new IllegalArgumentException("a crawler gap of the specification is a multiple of " + NODES
                    + " s, not " + seconds);
        }
        return seconds / NODES;
    }

    /** A shared store that cannot be asked, whose cluster had {@link #NODES} nodes when last seen. */
    private static final class Unreachable implements SharedClientStore<Void> {
        @Override
        public boolean available() {
            return false;
        }

        @Override
        public int nodes() {
            return NODES;
        }

        @Override
        public CompletableFuture<Verdict<Void>> admit(Ask ask) {
            throw new AssertionError("a node deciding alone asks no shared store");
        }

        @Override
        public void release(Void lease, boolean served) {
            throw new AssertionError("a node deciding alone holds no shared lease");
        }

        @Override
        public void countExempt(Ask ask) {
            // keeps no hit stacks
        }
    }
}
