package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.sluice.engine.RequestClass;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one immutable document that holds every limit, the pause flags, bans, allow-list and
 * trusted proxies. A change replaces it whole with a new version; the next request sees it.
 * Its JSON form (see {@link PolicyJson}) is a public contract documented in docs/manual/policy.md.
 *
 * @param version          increases by one with every accepted change; the ETag of the admin API
 * @param hitStack         rule 4
 * @param crawlers         rule 3 and crawler verification
 * @param load             rule 6
 * @param perClient        rule 5
 * @param progressiveDelay rule 7, per class; a class without an entry is never delayed
 * @param pause            rule 1
 * @param bans             rule 2
 * @param allow            exemptions from rules 3-7 (and from pause when the entry says so)
 * @param trustedProxies   CIDRs or addresses whose forwarding headers are believed
 * @param classification   which crawler-list tags make a {@code CRAWLER}
 * @param refusal          what a refusal tells the client
 * @param governor         the crawl governor's numbers; defaults when absent
 * @param perAddress       the aggregate of every user agent of one address (IPv4) or prefix (IPv6 /64); defaults
 *                         when absent
 * @param routes           what a request weighs, and stricter limits per route; {@link Route#DEFAULTS} when absent
 * @param forwardedHeader  the one header trusted proxies set with the client's address ({@code X-Forwarded-For}
 *                         when absent)
 * @param escalation       automatic bans for repeat offenders; none when absent
 * @param browserCheck     when a browser claim must prove itself, and the budgets of networks;
 *                         {@link BrowserCheck#DEFAULTS} when absent
 */
public record Policy(
        long version,
        HitStack hitStack,
        Crawlers crawlers,
        Load load,
        PerClient perClient,
        Map<RequestClass, ProgressiveDelay> progressiveDelay,
        Pause pause,
        List<Ban> bans,
        List<AllowEntry> allow,
        List<String> trustedProxies,
        Classification classification,
        Refusal refusal,
        GovernorPolicy governor,
        PerAddress perAddress,
        List<Route> routes,
        String forwardedHeader,
        List<Escalation> escalation,
        BrowserCheck browserCheck) {

    public Policy {
        // Optional so that a policy file written before the crawl governor existed still loads.
        governor = governor == null ? GovernorPolicy.DEFAULTS : governor;
        progressiveDelay = progressiveDelay == null ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(progressiveDelay));
        pause = pause == null ? Pause.NONE : pause;
        bans = immutable(bans);
        allow = immutable(allow);
        trustedProxies = immutable(trustedProxies);
        // Optional so that a policy file written before these fields existed still loads with today's defaults.
        perAddress = perAddress == null ? PerAddress.DEFAULTS : perAddress;
        routes = routes == null ? Route.DEFAULTS : immutable(routes);
        forwardedHeader = forwardedHeader == null ? X_FORWARDED_FOR : forwardedHeader;
        escalation = immutable(escalation);
        browserCheck = browserCheck == null ? BrowserCheck.DEFAULTS : browserCheck;
    }

    /** A policy with the default browser check (the form before the check existed). */
    public Policy(long version, HitStack hitStack, Crawlers crawlers, Load load, PerClient perClient,
                  Map<RequestClass, ProgressiveDelay> progressiveDelay, Pause pause, List<Ban> bans,
                  List<AllowEntry> allow, List<String> trustedProxies, Classification classification,
                  Refusal refusal, GovernorPolicy governor, PerAddress perAddress, List<Route> routes,
                  String forwardedHeader, List<Escalation> escalation) {
        this(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow, trustedProxies,
                classification, refusal, governor, perAddress, routes, forwardedHeader, escalation, null);
    }

    /** The default forwarding header. */
    public static final String X_FORWARDED_FOR = "X-Forwarded-For";

    /**
     * An unmodifiable copy that, unlike {@code List.copyOf}, keeps null elements: a policy read from
     * JSON with a null in a list must reach the validator, which names the bad field, instead of
     * failing with a bare NullPointerException.
     */
    static <T> List<T> immutable(List<T> list) {
        return list == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(list));
    }

    /** The defaults of docs/architecture.md ("Policy"): nothing paused, banned or allowed, no trusted proxy. */
    public static Policy defaults() {
        return new Policy(1,
                new HitStack(15, 10),
                new Crawlers(30, 2, true),
                new Load(15, 10, 500),
                new PerClient(8),
                Map.of(),
                Pause.NONE,
                List.of(),
                List.of(),
                List.of(),
                Classification.DEFAULT,
                new Refusal(30, null, null),
                GovernorPolicy.DEFAULTS,
                PerAddress.DEFAULTS,
                Route.DEFAULTS,
                X_FORWARDED_FOR,
                List.of(),
                BrowserCheck.DEFAULTS);
    }

    public Policy withVersion(long newVersion) {
        return new Policy(newVersion, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withPause(Pause newPause) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, newPause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withBans(List<Ban> newBans) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, newBans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withHitStack(HitStack value) {
        return new Policy(version, value, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withCrawlers(Crawlers value) {
        return new Policy(version, hitStack, value, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withLoad(Load value) {
        return new Policy(version, hitStack, crawlers, value, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withPerClient(PerClient value) {
        return new Policy(version, hitStack, crawlers, load, value, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withProgressiveDelay(Map<RequestClass, ProgressiveDelay> value) {
        return new Policy(version, hitStack, crawlers, load, perClient, value, pause, bans, allow, trustedProxies,
                classification, refusal, governor, perAddress, routes, forwardedHeader, escalation, browserCheck);
    }

    public Policy withAllow(List<AllowEntry> value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, value,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withTrustedProxies(List<String> value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow, value,
                classification, refusal, governor, perAddress, routes, forwardedHeader, escalation, browserCheck);
    }

    public Policy withClassification(Classification value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, value, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withRefusal(Refusal value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, value, governor, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withGovernor(GovernorPolicy value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, value, perAddress, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withPerAddress(PerAddress value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, value, routes, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withRoutes(List<Route> value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, value, forwardedHeader, escalation,
                browserCheck);
    }

    public Policy withForwardedHeader(String value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, value, escalation, browserCheck);
    }

    public Policy withEscalation(List<Escalation> value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, value,
                browserCheck);
    }

    public Policy withBrowserCheck(BrowserCheck value) {
        return new Policy(version, hitStack, crawlers, load, perClient, progressiveDelay, pause, bans, allow,
                trustedProxies, classification, refusal, governor, perAddress, routes, forwardedHeader, escalation,
                value);
    }

    /** Rule 4: refuse when a client has more than {@code maxHits} hits in the last {@code windowSeconds}. */
    public record HitStack(int windowSeconds, int maxHits) {

        /**
         * The longest window, in seconds: a hit stack keeps one count per second for this many seconds, in the engine
         * (its ring) and in Redis (hit-stacks.lua's {@code KEEP}, checked against this by the server's tests).
         */
        public static final int MAX_WINDOW_SECONDS = 60;
    }

    /**
     * Rule 3: a crawler is refused if it was served within {@code perCrawlerSeconds}, or any crawler
     * was served within {@code allCrawlersSeconds}.
     *
     * @param verifySearchEngines on (the default, also when absent): a user agent claiming a listed crawler is a
     *                            {@code CRAWLER} only when its address is verified (the crawler's published ranges,
     *                            {@code verifiedRanges}, or forward-confirmed reverse DNS), else a {@code BOT};
     *                            off: every claim is believed (for a site behind a CDN that hides addresses).
     *                            The name is older than the ranges: it covers every crawler now
     * @param verifiedRanges      addresses or CIDRs that verify a crawler, by its crawler-list name, beside the
     *                            published ranges shipped with Sluice (a partner's crawler, a test); empty when absent,
     *                            and left out of the JSON when empty so that a reader older than the field still
     *                            reads a policy that does not use it
     */
    public record Crawlers(int perCrawlerSeconds, int allCrawlersSeconds, Boolean verifySearchEngines,
                           @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, List<String>> verifiedRanges) {

        public Crawlers {
            // Optional so that a policy written by hand, or before verification was on by default, reads as on
            verifySearchEngines = verifySearchEngines == null ? Boolean.TRUE : verifySearchEngines;
            Map<String, List<String>> copy = new LinkedHashMap<>();
            if (verifiedRanges != null) {
                verifiedRanges.forEach((name, ranges) -> copy.put(name, ranges == null ? null : immutable(ranges)));
            }
            verifiedRanges = Collections.unmodifiableMap(copy);
        }

        /** With no ranges of the policy's own. */
        public Crawlers(int perCrawlerSeconds, int allCrawlersSeconds, boolean verifySearchEngines) {
            this(perCrawlerSeconds, allCrawlersSeconds, verifySearchEngines, Map.of());
        }
    }

    /** Rule 6: load deferral for {@code CRAWLER} and {@code BOT}. */
    public record Load(int maxActive, int maxWaiting, int deferMillis) {
    }

    /** Rule 5: at most {@code maxConcurrent} requests in flight per client. */
    public record PerClient(int maxConcurrent) {
    }

    /**
     * Rule 7: past {@code softHits} hits in the hit-stack window, each further hit delays the request
     * by {@code delayMillisPerHit} more, up to {@code maxDelayMillis}.
     */
    public record ProgressiveDelay(int softHits, int delayMillisPerHit, int maxDelayMillis) {
    }

    /** Rule 1: the whole service ({@code all}) or some classes are paused. */
    public record Pause(boolean all, List<RequestClass> classes) {
        public static final Pause NONE = new Pause(false, List.of());

        public Pause {
            classes = immutable(classes);
        }

        public boolean pauses(RequestClass requestClass) {
            return all || classes.contains(requestClass);
        }
    }

    /** Crawler-list tags whose entries are classed {@code CRAWLER}; every other tag is {@code BOT}. */
    public record Classification(List<String> crawlerTags) {
        public static final Classification DEFAULT = new Classification(
                List.of("search-engine", "ai-crawler", "seo", "archiver", "academic", "advertising"));

        public Classification {
            crawlerTags = immutable(crawlerTags);
        }
    }

    /**
     * What a refusal tells the client.
     *
     * @param retryAfterSeconds {@code Retry-After} for refusals whose wait is not knowable (pause, load)
     * @param infoUrl           a link the refusal page offers (e.g. a data dump), or null
     * @param bannedMessage     what a banned client is told, as the operator chose to publish it (a ban's own
     *                          reason is for operators and never shown), or null for the standard sentence
     */
    public record Refusal(int retryAfterSeconds, String infoUrl, String bannedMessage) {

        /** No message for banned clients beyond the standard sentence. */
        public Refusal(int retryAfterSeconds, String infoUrl) {
            this(retryAfterSeconds, infoUrl, null);
        }
    }

    /**
     * Rules 4 and 5 for the aggregate of one address: every user agent of an IPv4 address ({@code ipv4Prefix}
     * bits, 32 by default) or of an IPv6 prefix ({@code ipv6Prefix}, 64 by default) shares one hit stack and one
     * concurrency limit, so changing the user agent or the address within a /64 buys no fresh allowance.
     */
    public record PerAddress(int ipv4Prefix, int ipv6Prefix, int windowSeconds, int maxHits, int maxConcurrent) {
        /** Generous enough for an office behind one NAT: five people's worth of pages, 32 requests at once. */
        public static final PerAddress DEFAULTS = new PerAddress(32, 64, 15, 50, 32);

        /** This aggregate's hit-stack limits. */
        public HitStack hitStack() {
            return new HitStack(windowSeconds, maxHits);
        }
    }
}
