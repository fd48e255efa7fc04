package io.sluice.benchmarks.cluster;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import java.util.List;
import java.util.Map;

/**
 * The front-end harness's admit-all policy (bench/front/admit-all-policy.json, docs/manual/benchmarks.md) laid over
 * whatever policy a node runs: limits no load reaches, so every request is asked of Redis and admitted, and the
 * figures are Redis's cost of an admission, not of a refusal. The fields that file leaves out take their defaults,
 * as they do when a node reads it, but for the address aggregate's limits (it was written before they existed): its
 * default of 50 hits in 15 s refuses part of a load of 10,000 addresses above about 30,000 requests a second, so
 * they are as far out of reach as the client's. Redis does the same work for any limit.
 */
final class AdmitAll {
    private AdmitAll() {
    }

    /** {@code live} with the admit-all limits (its version kept). */
    static Policy over(Policy live) {
        Policy defaults = Policy.defaults();
        return live.withHitStack(new Policy.HitStack(15, 1_000_000))
                .withCrawlers(new Policy.Crawlers(0, 0, false))
                .withLoad(new Policy.Load(1_000_000, 0, 500))
                .withPerClient(new Policy.PerClient(100_000))
                .withProgressiveDelay(Map.of())
                .withPause(Policy.Pause.NONE)
                .withBans(List.of())
                .withAllow(List.of())
                .withTrustedProxies(List.of("127.0.0.1"))
                .withClassification(new Policy.Classification(List.of("search-engine", "ai-crawler", "seo",
                        "archiver", "academic", "advertising")))
                .withRefusal(new Policy.Refusal(30, null))
                .withGovernor(defaults.governor())
                .withPerAddress(new Policy.PerAddress(Policy.PerAddress.DEFAULTS.ipv4Prefix(),
                        Policy.PerAddress.DEFAULTS.ipv6Prefix(), 15, 1_000_000, 100_000))
                .withRoutes(Route.DEFAULTS)
                .withForwardedHeader(Policy.X_FORWARDED_FOR)
                .withEscalation(List.of());
    }

    /** Whether {@code policy} is the admit-all policy, whatever its version. */
    static boolean holds(Policy policy) {
        return over(policy).equals(policy);
    }
}
