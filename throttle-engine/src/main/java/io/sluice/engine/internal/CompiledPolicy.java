package io.sluice.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.engine.net.Cidr;
import io.sluice.engine.net.CidrMap;
import io.sluice.engine.net.CidrSet;
import io.sluice.engine.net.ClientAddressResolver;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A validated {@link Policy} with its matchers built once: address blocks of bans, allow-list and
 * trusted proxies in prefix maps, agent substrings lower-cased, regular expressions compiled, exact
 * clients hashed. Built when a policy version is installed and swapped with it, so the request path
 * never parses or compiles anything.
 */
public final class CompiledPolicy {

    /** What the allow-list says about a client. */
    public enum Allowance { NONE, EXEMPT, EXEMPT_INCLUDING_PAUSE }

    private final Policy policy;
    private final ClientAddressResolver resolver;
    private final CidrMap<Ban> ipBans;
    private final List<IpBan> allIpBans;
    private final List<AgentBan> agentBans;
    private final Map<ClientKey, Ban> clientBans;
    private final CidrMap<AllowEntry> allowIps;
    private final List<AllowIp> allowIpList;
    private final List<AllowAgent> allowAgents;
    /** Bounded: a spray of unique user agents churns it but never grows it. */
    private final Cache<String, AgentMatches> agentMatchCache = Caffeine.newBuilder().maximumSize(10_000).build();

    /** @throws IllegalArgumentException when the policy was not validated first */
    public CompiledPolicy(Policy policy) {
        this.policy = policy;
        this.resolver = new ClientAddressResolver(CidrSet.parse(policy.trustedProxies()));
        CidrMap.Builder<Ban> ipBuilder = CidrMap.builder();
        List<IpBan> ips = new ArrayList<>();
        List<AgentBan> agents = new ArrayList<>();
        Map<ClientKey, Ban> exact = new HashMap<>();
        for (Ban ban : policy.bans()) {
            switch (ban.type()) {
                case IP -> {
                    Cidr cidr = Cidr.parse(ban.value());
                    ipBuilder.put(cidr, ban);
                    ips.add(new IpBan(cidr, ban));
                }
                case AGENT -> agents.add(isRegex(ban.value())
                        ? new AgentBan(ban, agentMatcher(ban.value()), null)
                        : new AgentBan(ban, null, ban.value().toLowerCase(Locale.ROOT)));
                case CLIENT -> exact.putIfAbsent(clientBanKey(ban.value()), ban);
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
    }

    public Policy policy() {
        return policy;
    }

    public ClientAddressResolver resolver() {
        return resolver;
    }

    /** A regular expression when written {@code /.../}, else a case-insensitive substring. */
    public static Pattern agentMatcher(String value) {
        if (isRegex(value)) {
            return Pattern.compile(value.substring(1, value.length() - 1), Pattern.CASE_INSENSITIVE);
        }
        return Pattern.compile(Pattern.quote(value), Pattern.CASE_INSENSITIVE);
    }

    public static boolean isRegex(String value) {
        return value.length() >= 2 && value.startsWith("/") && value.endsWith("/");
    }

    /** The client a {@code CLIENT} ban value {@code ip|agent} names (split at the first bar). */
    public static ClientKey clientBanKey(String value) {
        int bar = value.indexOf('|');
        return new ClientKey(IpAddress.parse(value.substring(0, bar).strip()), value.substring(bar + 1));
    }

    /** Rule 2: the first ban in force at {@code now} matching the client, or null. */
    public Ban findBan(IpAddress address, ClientKey key, Instant now) {
        if (!ipBans.isEmpty()) {
            Ban longest = ipBans.longestMatch(address);
            if (longest != null) {
                if (longest.activeAt(now)) {
                    return longest;
                }
                // the most specific ban expired; a wider one may still be in force
                for (IpBan ipBan : allIpBans) {
                    if (ipBan.ban.activeAt(now) && ipBan.cidr.contains(address)) {
                        return ipBan.ban;
                    }
                }
            }
        }
        for (AgentBan agentBan : agentMatches(key.userAgent()).bans()) {
            if (agentBan.ban.activeAt(now)) {
                return agentBan.ban;
            }
        }
        if (!clientBans.isEmpty()) {
            Ban exact = clientBans.get(key);
            if (exact != null && exact.activeAt(now)) {
                return exact;
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
        for (AllowAgent agent : agentMatches(userAgent).allows()) {
            result = max(result, agent.entry);
        }
        return result;
    }

    /**
     * The agent bans and allow entries {@code userAgent} matches, worked out once per user agent and
     * policy version: a request's user agent is one of a few hundred in practice, and matching it
     * against every substring and expression on each request cost more than the rest of the rules.
     */
    private AgentMatches agentMatches(String userAgent) {
        if (agentBans.isEmpty() && allowAgents.isEmpty()) {
            return AgentMatches.NONE;
        }
        return agentMatchCache.get(userAgent, this::match);
    }

    private AgentMatches match(String userAgent) {
        String lower = userAgent.toLowerCase(Locale.ROOT);
        List<AgentBan> bans = new ArrayList<>();
        for (AgentBan agentBan : agentBans) {
            if (agentBan.pattern != null ? agentBan.pattern.matcher(userAgent).find()
                    : lower.contains(agentBan.lowerValue)) {
                bans.add(agentBan);
            }
        }
        List<AllowAgent> allows = new ArrayList<>();
        for (AllowAgent agent : allowAgents) {
            if (lower.contains(agent.lowerValue)) {
                allows.add(agent);
            }
        }
        return bans.isEmpty() && allows.isEmpty() ? AgentMatches.NONE
                : new AgentMatches(List.copyOf(bans), List.copyOf(allows));
    }

    private record AgentMatches(List<AgentBan> bans, List<AllowAgent> allows) {
        static final AgentMatches NONE = new AgentMatches(List.of(), List.of());
    }

    private static Allowance max(Allowance current, AllowEntry entry) {
        Allowance candidate = entry.exemptFromPause() ? Allowance.EXEMPT_INCLUDING_PAUSE : Allowance.EXEMPT;
        return candidate.ordinal() > current.ordinal() ? candidate : current;
    }

    private record IpBan(Cidr cidr, Ban ban) {
    }

    /** A regular expression ({@code pattern}) or a lower-cased substring ({@code lowerValue}). */
    private record AgentBan(Ban ban, Pattern pattern, String lowerValue) {
    }

    private record AllowIp(Cidr cidr, AllowEntry entry) {
    }

    private record AllowAgent(String lowerValue, AllowEntry entry) {
    }
}
