package io.sluice.engine.internal;

import io.sluice.engine.RequestClass;
import io.sluice.engine.UserAgents;
import io.sluice.engine.net.Cidr;
import io.sluice.engine.net.CidrMap;
import io.sluice.engine.net.CidrSet;
import io.sluice.engine.net.ClientAddressResolver;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import com.google.re2j.Pattern;
import io.sluice.engine.policy.Escalation;

/**
 * A validated {@link Policy} with its matchers built once: address blocks of bans, allow-list and
 * trusted proxies in prefix maps, agent substrings lower-cased, regular expressions compiled, exact
 * clients hashed. Built when a policy version is installed and swapped with it, so the request path
 * never parses or compiles anything.
 */
public final class CompiledPolicy {

    /** What the allow-list says about a client. */
    public enum Allowance { NONE, EXEMPT, EXEMPT_INCLUDING_PAUSE }

    /** Slots of the per-user-agent memo of the agent rules (a power of two). */
    static final int AGENT_MEMO_SLOTS = 1024;
    /** Longer user agents are matched every time rather than remembered. */
    static final int AGENT_MEMO_MAX_LENGTH = 512;
    private static final BanRule[] NO_BANS = new BanRule[0];
    /** User agents are matched without regard to case. */
    public static final int AGENT_FLAGS = Pattern.CASE_INSENSITIVE;

    private final Policy policy;
    private final ClientAddressResolver resolver;
    private final RouteTable routes;
    private final Policy.HitStack addressLimits;
    private final Escalation[] escalation;
    /** The earliest expiry of a compiled ban ({@link Long#MAX_VALUE}: none expires). */
    private final long nextBanExpiryMillis;
    private final CidrMap<BanRule> ipBans;
    private final List<IpBan> allIpBans;
    private final List<AgentBan> agentBans;
    private final Map<ClientKey, BanRule> clientBans;
    private final CidrMap<AllowEntry> allowIps;
    private final List<AllowIp> allowIpList;
    private final List<AllowAgent> allowAgents;
    private final AgentVerdict[] agentMemo;
    /** Rule 1 and rule 7 per class, by ordinal: an array read instead of a list or map lookup per request. */
    private final boolean[] paused;
    private final Policy.ProgressiveDelay[] progressive;
    /** The browser check's always-challenged networks. */
    private final CidrSet alwaysChallenge;
    /** The browser check's always-challenged autonomous systems, ascending (a binary search, no boxing). */
    private final long[] alwaysChallengeAsns;
    /**
     * The browser check's exempt paths, split once: prefixes, and the suffixes of the entries written {@code *.rss}.
     * Asked on every browser claim; cutting the {@code *} per request was a new string each time.
     */
    private final String[] exemptPrefixes;
    private final String[] exemptSuffixes;

    /**
     * Compiles every ban, whatever its expiry.
     *
     * @throws IllegalArgumentException when the policy was not validated first
     */
    public CompiledPolicy(Policy policy) {
        this(policy, Long.MIN_VALUE);
    }

    /**
     * Compiles the policy with the bans still in force at {@code nowMillis}: an expired ban is left out, so
     * expired bans cost the request path nothing (the engine compiles again when the next one expires).
     *
     * @throws IllegalArgumentException when the policy was not validated first
     */
    public CompiledPolicy(Policy policy, long nowMillis) {
        this.policy = policy;
        this.resolver = new ClientAddressResolver(CidrSet.parse(policy.trustedProxies()), policy.forwardedHeader());
        this.alwaysChallenge = CidrSet.parse(policy.browserCheck().alwaysChallenge());
        this.alwaysChallengeAsns = policy.browserCheck().alwaysChallengeAsns().stream().mapToLong(Long::longValue)
                .sorted().toArray();
        List<String> exempt = policy.browserCheck().exemptPaths();
        this.exemptPrefixes = exempt.stream().filter(entry -> !entry.startsWith("*")).toArray(String[]::new);
        this.exemptSuffixes = exempt.stream().filter(entry -> entry.startsWith("*"))
                .map(entry -> entry.substring(1)).toArray(String[]::new);
        this.routes = new RouteTable(policy.routes());
        this.addressLimits = policy.perAddress().hitStack();
        this.escalation = policy.escalation().toArray(new Escalation[0]);
        CidrMap.Builder<BanRule> ipBuilder = CidrMap.builder();
        List<IpBan> ips = new ArrayList<>();
        List<AgentBan> agents = new ArrayList<>();
        Map<ClientKey, BanRule> exact = new HashMap<>();
        long nextExpiry = Long.MAX_VALUE;
        for (Ban ban : policy.bans()) {
            BanRule rule = BanRule.of(ban);
            if (!rule.activeAt(nowMillis)) {
                continue;
            }
            nextExpiry = Math.min(nextExpiry, rule.activeUntilMillis);
            switch (ban.type()) {
                case IP -> {
                    Cidr cidr = Cidr.parse(ban.value());
                    ipBuilder.put(cidr, rule);
                    ips.add(new IpBan(cidr, rule));
                }
                case AGENT -> agents.add(isRegex(ban.value())
                        ? new AgentBan(rule, agentMatcher(ban.value()), null)
                        : new AgentBan(rule, null, ban.value().toLowerCase(Locale.ROOT)));
                case CLIENT -> exact.putIfAbsent(clientBanKey(ban.value()), rule);
                default -> throw new IllegalArgumentException("unknown ban type " + ban.type());
            }
        }
        this.ipBans = ipBuilder.build();
        this.allIpBans = List.copyOf(ips);
        this.agentBans = List.copyOf(agents);
        this.clientBans = Map.copyOf(exact);
        CidrMap.Builder<AllowEntry> allowBuilder = CidrMap.builder();
        List<AllowIp> allowIpEntries = new ArrayList<>();
        List<AllowAgent> allowAgentEntries = new ArrayList<>();
        for (AllowEntry entry : policy.allow()) {
            if (entry.type() == AllowType.IP) {
                Cidr cidr = Cidr.parse(entry.value());
                allowBuilder.put(cidr, entry);
                allowIpEntries.add(new AllowIp(cidr, entry));
            } else {
                allowAgentEntries.add(new AllowAgent(entry.value().toLowerCase(Locale.ROOT), entry));
            }
        }
        this.allowIps = allowBuilder.build();
        this.allowIpList = List.copyOf(allowIpEntries);
        this.allowAgents = List.copyOf(allowAgentEntries);
        RequestClass[] classes = RequestClass.values();
        this.paused = new boolean[classes.length];
        this.progressive = new Policy.ProgressiveDelay[classes.length];
        for (RequestClass cls : classes) {
            paused[cls.ordinal()] = policy.pause().pauses(cls);
            progressive[cls.ordinal()] = policy.progressiveDelay().get(cls);
        }
        this.agentMemo = agents.isEmpty() && allowAgentEntries.isEmpty() ? null : new AgentVerdict[AGENT_MEMO_SLOTS];
        this.nextBanExpiryMillis = nextExpiry;
    }

    /** The earliest time a compiled ban expires ({@link Long#MAX_VALUE} when none does). */
    public long nextBanExpiryMillis() {
        return nextBanExpiryMillis;
    }

    /** The routes: what a request weighs, and route limits. */
    public RouteTable routes() {
        return routes;
    }

    /** The per-address aggregate's hit-stack limits. */
    public Policy.HitStack addressLimits() {
        return addressLimits;
    }

    /** The escalation rules, in policy order (empty when none). */
    public Escalation[] escalation() {
        return escalation;
    }

    public Policy policy() {
        return policy;
    }

    public ClientAddressResolver resolver() {
        return resolver;
    }

    /** Whether the browser check challenges {@code address}'s browser claims whenever it is not off. */
    public boolean alwaysChallenges(IpAddress address) {
        return !alwaysChallenge.isEmpty() && alwaysChallenge.contains(address);
    }

    /** Whether the browser check challenges the browser claims of AS {@code asn} whenever it is not off. */
    public boolean alwaysChallengesAs(long asn) {
        return alwaysChallengeAsns.length > 0 && Arrays.binarySearch(alwaysChallengeAsns, asn) >= 0;
    }

    /** Whether the browser check never challenges a request for {@code path} (an exempt prefix or suffix). */
    public boolean exemptFromBrowserCheck(String path) {
        if (path == null) {
            return false;
        }
        for (String prefix : exemptPrefixes) {
            if (path.startsWith(prefix)) {
                return true;
            }
        }
        for (String suffix : exemptSuffixes) {
            if (path.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the policy names any AS to challenge always (so a request's AS is worth looking up). */
    public boolean challengesAsns() {
        return alwaysChallengeAsns.length > 0;
    }

    /** Rule 1: whether the policy pauses {@code cls} (the whole service or that class). */
    public boolean pauses(RequestClass cls) {
        return paused[cls.ordinal()];
    }

    /** Rule 7: the class's progressive delay, or null when it has none. */
    public Policy.ProgressiveDelay progressiveDelay(RequestClass cls) {
        return progressive[cls.ordinal()];
    }

    /**
     * A regular expression when written {@code /.../}, else a case-insensitive substring. RE2/J: matching takes
     * time linear in the user agent (itself cut to {@link io.sluice.engine.UserAgents#MAX_LENGTH}), so no
     * pattern can stall a request thread by backtracking; constructs that need backtracking (back-references,
     * look-around) are refused when the policy is validated, and so is a program whose size times that length is
     * too much work for one request ({@link RegexBudget}).
     *
     * @throws IllegalArgumentException when the expression is not valid RE2 syntax or over {@link RegexBudget#AGENT}
     */
    public static Pattern agentMatcher(String value) {
        if (isRegex(value)) {
            return RegexBudget.AGENT.compile(agentExpression(value), AGENT_FLAGS);
        }
        return Pattern.compile(Pattern.quote(value), Pattern.CASE_INSENSITIVE);
    }

    /** The regular expression of an agent ban written {@code /.../}, without its slashes. */
    public static String agentExpression(String value) {
        return value.substring(1, value.length() - 1);
    }

    public static boolean isRegex(String value) {
        return value.length() >= 2 && value.startsWith("/") && value.endsWith("/");
    }

    /** The client a {@code CLIENT} ban value {@code ip|agent} names (split at the first bar). */
    public static ClientKey clientBanKey(String value) {
        int bar = value.indexOf('|');
        return new ClientKey(IpAddress.parse(value.substring(0, bar).strip()),
                UserAgents.bounded(value.substring(bar + 1)));
    }

    /**
     * Rule 2: the first ban in force at {@code nowMillis} matching the client, or null.
     *
     * <p>A ban with {@code expiresAt} applies while {@code nowMillis} is before it: at whole-millisecond expiry
     * times (what the admin API and the JSON form carry) this is exactly {@link Ban#activeAt}; an expiry with a
     * sub-millisecond part ends at the next whole millisecond, since the engine reads its clock in milliseconds.
     */
    public Ban findBan(IpAddress address, ClientKey key, long nowMillis) {
        if (!ipBans.isEmpty()) {
            BanRule longest = ipBans.longestMatch(address);
            if (longest != null) {
                if (longest.activeAt(nowMillis)) {
                    return longest.ban;
                }
                // the most specific ban expired; a wider one may still be in force
                for (IpBan ipBan : allIpBans) {
                    if (ipBan.rule.activeAt(nowMillis) && ipBan.cidr.contains(address)) {
                        return ipBan.rule.ban;
                    }
                }
            }
        }
        if (!agentBans.isEmpty()) {
            for (BanRule rule : agentVerdict(key.userAgent()).bans) {
                if (rule.activeAt(nowMillis)) {
                    return rule.ban;
                }
            }
        }
        if (!clientBans.isEmpty()) {
            BanRule exact = clientBans.get(key);
            if (exact != null && exact.activeAt(nowMillis)) {
                return exact.ban;
            }
        }
        return null;
    }

    /** The allow-list's verdict; an entry exempt from pause wins over one that is not. */
    public Allowance allowance(IpAddress address, String userAgent) {
        if (allowIpList.isEmpty() && allowAgents.isEmpty()) {
            return Allowance.NONE;
        }
        Allowance result = Allowance.NONE;
        if (!allowIps.isEmpty() && allowIps.longestMatch(address) != null) {
            for (AllowIp allowIp : allowIpList) {
                if (allowIp.cidr.contains(address)) {
                    result = max(result, allowIp.entry);
                }
            }
        }
        if (!allowAgents.isEmpty()) {
            Allowance byAgent = agentVerdict(userAgent).allowance;
            result = byAgent.ordinal() > result.ordinal() ? byAgent : result;
        }
        return result;
    }

    /**
     * What the agent bans and agent allow-list entries say about {@code userAgent}, whatever the time: the
     * matching bans in policy order and the allowance. Remembered per user agent in a small direct-mapped
     * table (a slot per hash, the newest user agent wins a slot), so a user agent seen before costs one
     * array read and a string comparison instead of lower-casing it and scanning every entry. Entries are
     * immutable and published through final fields, so the unsynchronised table is safe: a race only
     * computes a verdict twice. Bounded: {@link #AGENT_MEMO_SLOTS} entries of user agents up to
     * {@link #AGENT_MEMO_MAX_LENGTH} characters (longer ones are matched every time).
     */
    private AgentVerdict agentVerdict(String userAgent) {
        if (userAgent.length() > AGENT_MEMO_MAX_LENGTH) {
            return matchAgent(userAgent);
        }
        int h = userAgent.hashCode();
        int slot = (h ^ (h >>> 16)) & (AGENT_MEMO_SLOTS - 1);
        AgentVerdict memo = agentMemo[slot];
        if (memo != null && (memo.userAgent == userAgent || memo.userAgent.equals(userAgent))) {
            return memo;
        }
        AgentVerdict verdict = matchAgent(userAgent);
        agentMemo[slot] = verdict;
        return verdict;
    }

    private AgentVerdict matchAgent(String userAgent) {
        String lower = null;
        List<BanRule> bans = new ArrayList<>(0);
        for (AgentBan agentBan : agentBans) {
            if (agentBan.pattern != null) {
                if (agentBan.pattern.matcher(userAgent).find()) {
                    bans.add(agentBan.rule);
                }
            } else {
                if (lower == null) {
                    lower = userAgent.toLowerCase(Locale.ROOT);
                }
                if (lower.contains(agentBan.lowerValue)) {
                    bans.add(agentBan.rule);
                }
            }
        }
        Allowance allowance = Allowance.NONE;
        for (AllowAgent agent : allowAgents) {
            if (lower == null) {
                lower = userAgent.toLowerCase(Locale.ROOT);
            }
            if (lower.contains(agent.lowerValue)) {
                allowance = max(allowance, agent.entry);
            }
        }
        return new AgentVerdict(userAgent, bans.isEmpty() ? NO_BANS : bans.toArray(NO_BANS), allowance);
    }

    private static Allowance max(Allowance current, AllowEntry entry) {
        Allowance candidate = entry.exemptFromPause() ? Allowance.EXEMPT_INCLUDING_PAUSE : Allowance.EXEMPT;
        return candidate.ordinal() > current.ordinal() ? candidate : current;
    }

    /** A ban with its expiry in milliseconds: in force while {@code nowMillis < activeUntilMillis}. */
    private record BanRule(Ban ban, long activeUntilMillis) {
        static BanRule of(Ban ban) {
            return new BanRule(ban, ban.expiresAt() == null ? Long.MAX_VALUE : ceilMillis(ban.expiresAt()));
        }

        boolean activeAt(long nowMillis) {
            return nowMillis < activeUntilMillis;
        }
    }

    /**
     * The first whole millisecond not before {@code instant}: for a whole-millisecond {@code now},
     * {@code now < ceilMillis(e)} exactly when {@code now} is before {@code e}.
     */
    static long ceilMillis(Instant instant) {
        try {
            long millis = Math.multiplyExact(instant.getEpochSecond(), 1000L);
            return Math.addExact(millis, (instant.getNano() + 999_999) / 1_000_000);
        } catch (ArithmeticException e) {
            return instant.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private record IpBan(Cidr cidr, BanRule rule) {
    }

    /** A regular expression ({@code pattern}) or a lower-cased substring ({@code lowerValue}). */
    private record AgentBan(BanRule rule, Pattern pattern, String lowerValue) {
    }

    /** The time-independent part of the agent rules for one user agent (see {@link #agentVerdict}). */
    private record AgentVerdict(String userAgent, BanRule[] bans, Allowance allowance) {
    }

    private record AllowIp(Cidr cidr, AllowEntry entry) {
    }

    private record AllowAgent(String lowerValue, AllowEntry entry) {
    }
}
