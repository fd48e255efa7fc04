package io.sluice.engine.classify;

import io.sluice.engine.net.CidrSet;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.CrawlerVerification;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Decides whether a client claiming a listed crawler is that crawler (docs/manual/classify.md, "Crawler
 * verification"), in this order:
 * <ol>
 *   <li>its address is in the policy's {@code crawlers.verifiedRanges} for that name: verified;</li>
 *   <li>its address is in the ranges the crawler's operator publishes ({@link CrawlerRanges}): verified;</li>
 *   <li>the operator publishes reverse-DNS domains: the answer of {@link SearchEngineVerifier}, which may be
 *       {@link Verdict#PENDING} while its lookup runs (so a real crawler from an address added since the shipped
 *       ranges were taken is still recognised, a request or two later);</li>
 *   <li>otherwise (nothing published, or no DNS verifier): not verified.</li>
 * </ol>
 * The first two cost a hash lookup and a prefix-map probe on the request thread; DNS never runs there.
 *
 * <p>Thread-safe: the published ranges are replaced whole at runtime ({@link #use}: an operator's fresher copy), and
 * the policy's ranges are compiled once per {@link Policy.Crawlers} value (a race compiles them twice, harmlessly).
 */
public final class CrawlerVerifier {

    /** The answer for one claim. */
    public enum Verdict {
        /** The address is the crawler's. */
        VERIFIED,
        /** A reverse-DNS lookup is under way; the caller must not treat the claim as true yet. */
        PENDING,
        /** Not the crawler's, or nothing to check it against. */
        NOT_VERIFIED
    }

    private final SearchEngineVerifier reverseDns;
    private volatile InUse published;
    private volatile Memo memo = new Memo(Map.of(), Map.of());

    /**
     * @param published  the operators' published ranges and domains
     * @param reverseDns forward-confirmed reverse DNS, or null for none (then a crawler that publishes only host
     *                   names is never verified)
     */
    public CrawlerVerifier(CrawlerRanges published, SearchEngineVerifier reverseDns) {
        Objects.requireNonNull(published, "published");
        this.reverseDns = reverseDns;
        this.published = new InUse(published, List.of(new CrawlerVerification.RangesSource("bundled",
                CrawlerRanges.RESOURCE, published.asOf(), -1, null, published.prefixCount(), null)));
    }

    /**
     * Whether the client at {@code address} is the crawler named {@code crawlerName} (its crawler-list entry's
     * readable name). Never blocks.
     *
     * @param crawlers the live policy's crawler settings (its {@code verifiedRanges})
     */
    public Verdict verify(String crawlerName, IpAddress address, Policy.Crawlers crawlers) {
        if (crawlerName == null || address == null) {
            return Verdict.NOT_VERIFIED;
        }
        CidrSet own = policyRanges(crawlers).get(crawlerName);
        if (own != null && own.contains(address)) {
            return Verdict.VERIFIED;
        }
        CrawlerRanges.Published operator = published.ranges().of(crawlerName);
        if (operator == null) {
            return Verdict.NOT_VERIFIED;
        }
        if (operator.ranges().contains(address)) {
            return Verdict.VERIFIED;
        }
        if (reverseDns == null || operator.reverseDns().isEmpty()) {
            return Verdict.NOT_VERIFIED;
        }
        return switch (reverseDns.status(crawlerName, operator.reverseDns(), address)) {
            case VERIFIED -> Verdict.VERIFIED;
            case PENDING -> Verdict.PENDING;
            case FAILED -> Verdict.NOT_VERIFIED;
        };
    }

    /** The operators' published ranges this verifier uses now. */
    public CrawlerRanges published() {
        return published.ranges();
    }

    /**
     * Uses {@code ranges} from the next claim on, and reports {@code sources} as where they come from (each source's
     * age is computed at each {@link #state}).
     */
    public void use(CrawlerRanges ranges, List<CrawlerVerification.RangesSource> sources) {
        published = new InUse(Objects.requireNonNull(ranges, "ranges"), List.copyOf(sources));
    }

    /** Where the ranges in use come from, with their ages at {@code now}, and the reverse-DNS lookups' counts. */
    public CrawlerVerification state(Instant now) {
        List<CrawlerVerification.RangesSource> sources = published.sources().stream().map(s -> s.at(now)).toList();
        CrawlerVerification.Lookups lookups = null;
        if (reverseDns != null) {
            SearchEngineVerifier.Stats stats = reverseDns.stats();
            lookups = new CrawlerVerification.Lookups(stats.lookups(), stats.verified(), stats.failed(),
                    stats.unanswered(), stats.deferred(), stats.refused(), stats.inFlight());
        }
        return new CrawlerVerification(sources, lookups);
    }

    private Map<String, CidrSet> policyRanges(Policy.Crawlers crawlers) {
        Map<String, List<String>> source = crawlers == null ? Map.of() : crawlers.verifiedRanges();
        Memo current = memo;
        if (current.source == source || current.source.equals(source)) {
            return current.compiled;
        }
        Map<String, CidrSet> compiled = new HashMap<>();
        // validated with the policy (PolicyValidator), so every block parses
        source.forEach((name, ranges) -> compiled.put(name, CidrSet.parse(ranges)));
        Memo fresh = new Memo(source, Map.copyOf(compiled));
        memo = fresh;
        return fresh.compiled;
    }

    /** The published ranges in use and their sources, replaced together. */
    private record InUse(CrawlerRanges ranges, List<CrawlerVerification.RangesSource> sources) {
    }

    private record Memo(Map<String, List<String>> source, Map<String, CidrSet> compiled) {
    }
}
