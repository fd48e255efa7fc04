package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The browser check (docs/manual/policy.md, "The browser check"): a request that claims a browser may be asked to
 * prove it runs one (a proof-of-work in JavaScript, or a slower no-JavaScript path) before it is served, and earns
 * a signed pass for the pages that follow. A user agent is a claim; the check is what makes it cost something to
 * claim a browser from a thousand addresses.
 *
 * @param mode                {@code off}, {@code adaptive} (only under pressure, for networks over their budget, on
 *                            routes marked {@code challenge} and networks in {@code alwaysChallenge}) or
 *                            {@code always}
 * @param difficulty          leading zero bits of the proof-of-work's SHA-256: 2^difficulty hashes on average
 * @param passTtlSeconds      how long a pass is good for
 * @param noScript            whether a browser without JavaScript may earn a (weak) pass by waiting
 *                            {@code noScriptWaitSeconds}; a weak pass is served after crawlers and bots, not
 *                            whatever the load
 * @param noScriptWaitSeconds how long the no-JavaScript path makes a browser wait
 * @param pressureInFlight    requests in flight at which the site is under pressure (adaptive mode challenges every
 *                            browser claim without a pass); 0 for {@code load.maxActive}: the load the site was
 *                            said to take is reached (measured: at twice that, a fleet's first 10 s took 5.7% of
 *                            the site instead of 2.0%; docs/BENCHMARKS.md)
 * @param pressureHoldSeconds how long the site counts as under pressure after it last was, so the check does not
 *                            flap off the moment it worked
 * @param perPass             the hit stack of one pass, whatever address it comes from: a pass shared by fifty
 *                            addresses is held to one person's pace; over it the pass is dropped and its holder
 *                            challenged again
 * @param networks            the budgets of one network
 * @param exemptPaths         never challenged: a path prefix ({@code /.well-known/}) or, starting with {@code *}, a
 *                            suffix ({@code *.rss}); feeds and the well-known files by default
 * @param alwaysChallenge     addresses or CIDRs (cloud ranges, one network an operator picked) whose browser claims
 *                            are challenged whenever the mode is not {@code off}
 * @param alwaysChallengeAsns autonomous systems (AS numbers, 1 to 4294967295: a cloud's, such as 16509 or 14618)
 *                            whose browser claims are challenged whenever the mode is not {@code off}; needs the
 *                            server's IP-to-ASN file ({@code --asn-file}): without one no address is in any AS
 */
public record BrowserCheck(
        Mode mode,
        int difficulty,
        int passTtlSeconds,
        boolean noScript,
        int noScriptWaitSeconds,
        int pressureInFlight,
        int pressureHoldSeconds,
        Policy.HitStack perPass,
        Networks networks,
        List<String> exemptPaths,
        List<String> alwaysChallenge,
        List<Long> alwaysChallengeAsns) {

    /** When the check asks. */
    public enum Mode {
        @JsonProperty("off") OFF,
        @JsonProperty("adaptive") ADAPTIVE,
        @JsonProperty("always") ALWAYS
    }

    /**
     * One person's pace, as the hit stack holds a browser without a pass: 10 pages in 15 s (assets weigh nothing). A
     * pass shared by a fleet's addresses is over it within a second.
     */
    public static final Policy.HitStack PER_PASS = new Policy.HitStack(15, 10);

    /** What is never challenged by default: feeds, robots.txt, sitemaps and the well-known files. */
    public static final List<String> DEFAULT_EXEMPT_PATHS = List.of("/robots.txt", "/sitemap", "/.well-known/",
            "/favicon.ico", "/feed", "*.rss", "*.atom", "*.xml");

    /**
     * About 4,000 SHA-256 hashes on average: well under a second on a low-end phone, a few milliseconds in native
     * code. The check proves a browser runs, it does not price a scraper out on its own: the pass it earns does that,
     * by being an identity with one person's pace.
     */
    public static final BrowserCheck DEFAULTS = new BrowserCheck(Mode.ADAPTIVE, 12, 604_800, true, 5, 0, 60,
            PER_PASS, Networks.DEFAULTS, DEFAULT_EXEMPT_PATHS, List.of(), List.of());

    public BrowserCheck {
        mode = mode == null ? Mode.ADAPTIVE : mode;
        perPass = perPass == null ? PER_PASS : perPass;
        networks = networks == null ? Networks.DEFAULTS : networks;
        exemptPaths = exemptPaths == null ? DEFAULT_EXEMPT_PATHS : Policy.immutable(exemptPaths);
        alwaysChallenge = Policy.immutable(alwaysChallenge);
        alwaysChallengeAsns = Policy.immutable(alwaysChallengeAsns);
    }

    /** A check without always-challenged autonomous systems (the form before the IP-to-ASN file). */
    public BrowserCheck(Mode mode, int difficulty, int passTtlSeconds, boolean noScript, int noScriptWaitSeconds,
                        int pressureInFlight, int pressureHoldSeconds, Policy.HitStack perPass, Networks networks,
                        List<String> exemptPaths, List<String> alwaysChallenge) {
        this(mode, difficulty, passTtlSeconds, noScript, noScriptWaitSeconds, pressureInFlight, pressureHoldSeconds,
                perPass, networks, exemptPaths, alwaysChallenge, null);
    }

    /** The same check with another mode. */
    public BrowserCheck withMode(Mode value) {
        return new BrowserCheck(value, difficulty, passTtlSeconds, noScript, noScriptWaitSeconds, pressureInFlight,
                pressureHoldSeconds, perPass, networks, exemptPaths, alwaysChallenge, alwaysChallengeAsns);
    }

    /** The same check with other network budgets. */
    public BrowserCheck withNetworks(Networks value) {
        return new BrowserCheck(mode, difficulty, passTtlSeconds, noScript, noScriptWaitSeconds, pressureInFlight,
                pressureHoldSeconds, perPass, value, exemptPaths, alwaysChallenge, alwaysChallengeAsns);
    }

    /** The same check with other always-challenged networks. */
    public BrowserCheck withAlwaysChallenge(List<String> value) {
        return new BrowserCheck(mode, difficulty, passTtlSeconds, noScript, noScriptWaitSeconds, pressureInFlight,
                pressureHoldSeconds, perPass, networks, exemptPaths, value, alwaysChallengeAsns);
    }

    /** The same check with other always-challenged autonomous systems. */
    public BrowserCheck withAlwaysChallengeAsns(List<Long> value) {
        return new BrowserCheck(mode, difficulty, passTtlSeconds, noScript, noScriptWaitSeconds, pressureInFlight,
                pressureHoldSeconds, perPass, networks, exemptPaths, alwaysChallenge, value);
    }

    /**
     * The budgets of one network (an IPv4 /24 and an IPv6 /48 by default), beside the client's and the address's:
     * one for browser claims without a pass, a larger one for requests on a pass, each a hit stack and a number of
     * requests in flight. Over either, the network's browser claims are challenged (never refused outright while the
     * check is on: a person behind it can still pass) and its other requests refused. The concurrency limits are
     * counted per node (a cluster's nodes each count their own).
     *
     * @param ipv4Prefix  the prefix length of an IPv4 network
     * @param ipv6Prefix  the prefix length of an IPv6 network
     * @param withoutPass         the hit stack of the network's browser claims without a pass
     * @param withPass            the hit stack of the network's requests on a pass
     * @param passCooldownSeconds once one of the network's passes was dropped, it earns at most one new pass per this
     *                            many seconds, doubled by each further drop (16 times at the most) until an hour
     *                            goes by without one; 0 turns the wait off. Absent, {@link #PASS_COOLDOWN_SECONDS}
     * @param maxConcurrentWithoutPass the network's browser claims without a pass in flight at once (on this node);
     *                            the next is challenged (a page) or refused. Absent,
     *                            {@link #MAX_CONCURRENT_WITHOUT_PASS}
     * @param maxConcurrentWithPass the network's requests on a pass in flight at once (on this node). Absent,
     *                            {@link #MAX_CONCURRENT_WITH_PASS}
     * @param asnWithoutPass      the hit stack of one autonomous system's browser claims without a pass, beside its
     *                            networks' own (on this node); over it, the same as a network over its budget. Needs
     *                            the server's IP-to-ASN file ({@code --asn-file}). Absent: no budget per AS
     */
    public record Networks(int ipv4Prefix, int ipv6Prefix, Policy.HitStack withoutPass, Policy.HitStack withPass,
                           Integer passCooldownSeconds, Integer maxConcurrentWithoutPass,
                           Integer maxConcurrentWithPass,
                           @JsonInclude(JsonInclude.Include.NON_NULL) Policy.HitStack asnWithoutPass) {
        /**
         * A minute: a person whose pass was dropped waits that long once; a fleet behind one pass per network gets a
         * pass's worth of pages a minute, then less.
         */
        public static final int PASS_COOLDOWN_SECONDS = 60;
        /**
         * Twice what one address may have in flight ({@code perAddress.maxConcurrent}): a few busy people behind one
         * NAT loading pages with their assets, not the hundreds of requests a fleet of one /24 holds open.
         */
        public static final int MAX_CONCURRENT_WITHOUT_PASS = 64;
        /** Four times that on passes: each pass is held to one person's pace already. */
        public static final int MAX_CONCURRENT_WITH_PASS = 256;
        /** A few hundred people of one network arriving without passes at once; five times that on passes. */
        public static final Networks DEFAULTS = new Networks(24, 48, new Policy.HitStack(15, 200),
                new Policy.HitStack(15, 1_000), PASS_COOLDOWN_SECONDS, MAX_CONCURRENT_WITHOUT_PASS,
                MAX_CONCURRENT_WITH_PASS);

        public Networks {
            withoutPass = withoutPass == null ? new Policy.HitStack(15, 200) : withoutPass;
            withPass = withPass == null ? new Policy.HitStack(15, 1_000) : withPass;
            passCooldownSeconds = passCooldownSeconds == null ? PASS_COOLDOWN_SECONDS : passCooldownSeconds;
            maxConcurrentWithoutPass = maxConcurrentWithoutPass == null ? MAX_CONCURRENT_WITHOUT_PASS
                    : maxConcurrentWithoutPass;
            maxConcurrentWithPass = maxConcurrentWithPass == null ? MAX_CONCURRENT_WITH_PASS : maxConcurrentWithPass;
        }

        /** Budgets without one per autonomous system (the form before the IP-to-ASN file). */
        public Networks(int ipv4Prefix, int ipv6Prefix, Policy.HitStack withoutPass, Policy.HitStack withPass,
                        Integer passCooldownSeconds, Integer maxConcurrentWithoutPass, Integer maxConcurrentWithPass) {
            this(ipv4Prefix, ipv6Prefix, withoutPass, withPass, passCooldownSeconds, maxConcurrentWithoutPass,
                    maxConcurrentWithPass, null);
        }

        /** The same budgets with other concurrency limits (without a pass, with one). */
        public Networks withMaxConcurrent(int withoutPassLimit, int withPassLimit) {
            return new Networks(ipv4Prefix, ipv6Prefix, withoutPass, withPass, passCooldownSeconds, withoutPassLimit,
                    withPassLimit, asnWithoutPass);
        }

        /** The same budgets with {@code value} as each autonomous system's (null: none). */
        public Networks withAsnWithoutPass(Policy.HitStack value) {
            return new Networks(ipv4Prefix, ipv6Prefix, withoutPass, withPass, passCooldownSeconds,
                    maxConcurrentWithoutPass, maxConcurrentWithPass, value);
        }
    }
}
