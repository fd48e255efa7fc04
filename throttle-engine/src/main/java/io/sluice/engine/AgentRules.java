package io.sluice.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.policy.Category;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.robots.RobotsTxt;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.store.ClientKey;
import java.time.Instant;
import java.util.function.Function;

/**
 * The agent rule, between rule 2 (bans) and the browser check (docs/manual/policy.md, "Agents"): what the policy does
 * to a named agent's category, what breaking the upstream's robots.txt costs it, and the trap path.
 *
 * <p>Why here: after pause and bans, so a banned agent stays banned whatever its category allows, and an automatic
 * ban for robots.txt or the trap applies from the next request through rule 2 like any other; before the browser
 * check and the client rules, because {@code refuse} and {@code challenge} end the request before it is counted
 * against a hit stack or holds a crawler's turn, and {@code allow} exempts it from them like the allow-list. An
 * allow-listed client never meets it (the operator exempted it by name).
 *
 * <p>In order:
 * <ol>
 *   <li>a named agent's request is counted; when the upstream's robots.txt disallows its path for the agent's group
 *       it is counted as a violation and, under {@code agents.robots.escalation}, may ban the client;</li>
 *   <li>the trap path: a verified agent's fetch is a robots.txt violation and nothing more; anyone else is marked
 *       (its address challenged on every page for a while) or its address banned, and answered {@link Reason#TRAP};
 *   </li>
 *   <li>an address the trap marked is challenged, unless it holds a valid pass;</li>
 *   <li>the category's action, chosen by whether the claim is verified.</li>
 * </ol>
 * State: the tallies, the robots.txt the front end installed (one volatile reference) and the trap's marks (a
 * bounded table with each mark's end). Nothing here blocks or reads a clock.
 */
final class AgentRules {

    /** The most addresses the trap marks at once; the least recently marked go first. */
    static final int MAX_MARKED = 100_000;

    /** A request's agent claim: its list name, category, and whether it is verified. */
    record Claim(String name, Category category, boolean verified) {
    }

    /** The robots.txt installed, and when. */
    private record Installed(RobotsTxt robots, Instant at) {
    }

    private final Outcomes outcomes;
    private final AutomaticBans bans;
    private final BrowserPasses passes;
    private final AgentTallies tallies = new AgentTallies();
    private final Cache<ClientKey, Long> marked = Caffeine.newBuilder().maximumSize(MAX_MARKED).build();
    private volatile Installed robots;

    AgentRules(Outcomes outcomes, AutomaticBans bans, BrowserPasses passes) {
        this.outcomes = outcomes;
        this.bans = bans;
        this.passes = passes;
    }

    /** The upstream's robots.txt, read by the front end (null: forget it, nothing is counted). */
    void robots(RobotsTxt value, Instant at) {
        robots = value == null ? null : new Installed(value, at);
    }

    /**
     * @param claim null when the user agent names no list entry
     * @param next  the browser check and the client rules, for the client as this rule leaves it
     */
    Decision decide(CompiledPolicy compiled, Request request, ClientInfo client, ClientKey key, IpAddress address,
                    Claim claim, RouteTable.Compiled route, long now, Function<ClientInfo, Decision> next) {
        if (client.allowListed()) {
            return next.apply(client);
        }
        Policy policy = compiled.policy();
        Agents agents = policy.agents();
        Agents.Trap trap = agents.trap();
        String path = request.path();
        boolean trapped = trap.caught(path);
        AgentTallies.Tally tally = claim == null ? null : tallies.of(claim.name(), claim.category());
        if (tally != null) {
            tally.requests.increment();
            if (claim.verified()) {
                tally.verified.increment();
            }
        }
        if (claim != null && (trapped || disallowed(claim.name(), request))) {
            if (tally != null) {
                tally.disallowed.increment();
            }
            Escalation rule = agents.robots().escalation();
            if (rule != null) {
                bans.brokeRobots(compiled, rule, key, ClientRules.addressKey(compiled, address), now);
            }
        }
        if (trapped) {
            tallies.trapFetched();
            if (claim == null || !claim.verified()) {
                ClientKey addressKey = ClientRules.addressKey(compiled, address);
                if (trap.action() == Agents.TrapAction.BAN) {
                    bans.trapped(compiled, addressKey, trap.seconds(), now);
                } else {
                    marked.put(addressKey, now + trap.seconds() * 1000L);
                }
            }
            return outcomes.refuse(client, key, Reason.TRAP, Reason.TRAP.httpStatus(),
                    "This path is disallowed for every agent by robots.txt.", now);
        }
        if (trap.set() && (claim == null || !claim.verified()) && isMarked(compiled, address, now)) {
            Decision challenged = challengeUnlessPass(policy, request, client, key, address, route, now,
                    "This network fetched a path that robots.txt disallows: prove that this is a browser.");
            if (challenged != null) {
                return challenged;
            }
        }
        if (claim == null) {
            return next.apply(client);
        }
        Agents.CategoryRule rule = agents.rule(claim.category());
        switch (rule.actionFor(claim.verified())) {
            case ALLOW:
                return next.apply(new ClientInfo(client.ip(), client.userAgent(), client.requestClass(),
                        client.crawlerName(), true, client.pass()));
            case REFUSE:
                if (tally != null) {
                    tally.refused.increment();
                }
                return outcomes.refuse(client, key, Reason.CATEGORY, rule.refusalStatus(), refusal(rule, claim), now);
            case CHALLENGE:
                Decision challenged = challengeUnlessPass(policy, request, client, key, address, route, now,
                        "Agents of this kind are asked to prove that a browser runs here.");
                if (challenged != null) {
                    if (tally != null) {
                        tally.refused.increment();
                    }
                    return challenged;
                }
                return next.apply(client);
            case CRAWL:
            default:
                return next.apply(client);
        }
    }

    private static String refusal(Agents.CategoryRule rule, Claim claim) {
        if (rule.message() != null) {
            return rule.message();
        }
        return "This site does not serve " + claim.category().wire() + " agents"
                + (claim.verified() ? "." : " whose identity cannot be verified.");
    }

    /** Whether the installed robots.txt disallows the request's path (and query) for the agent named {@code name}. */
    private boolean disallowed(String name, Request request) {
        Installed installed = robots;
        if (installed == null) {
            return false;
        }
        String query = request.query();
        String target = query == null || query.isEmpty() ? request.path() : request.path() + "?" + query;
        return !installed.robots().allowed(name, target);
    }

    private boolean isMarked(CompiledPolicy compiled, IpAddress address, long now) {
        Long until = marked.getIfPresent(ClientRules.addressKey(compiled, address));
        return until != null && until > now;
    }

    /**
     * The browser check's interstitial for a page without a valid pass, a refusal for anything else without one;
     * null when the request holds a valid pass (it goes on).
     */
    private Decision challengeUnlessPass(Policy policy, Request request, ClientInfo client, ClientKey key,
                                         IpAddress address, RouteTable.Compiled route, long now, String detail) {
        if (request.pass() != null && passes.check(request.pass(), address, client.userAgent(), now) != null) {
            return null;
        }
        if (BrowserGate.navigation(request, route)) {
            return outcomes.challenge(client, key, policy.browserCheck().difficulty(), false, now, detail);
        }
        return outcomes.refuse(client, key, Reason.PASS_REQUIRED, -1, null, now,
                "This client is asked to prove it runs a browser: load a page first, then try again.");
    }

    /** The agents table and the robots.txt state, for the snapshot. */
    AgentsView view(Agents agents, long now) {
        Installed installed = robots;
        marked.cleanUp();
        long marks = marked.asMap().values().stream().filter(until -> until > now).count();
        return tallies.view(agents, installed == null ? null : installed.at(), installed == null ? 0
                : installed.robots().groups(), marks);
    }
}
