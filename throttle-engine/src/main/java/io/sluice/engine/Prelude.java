package io.sluice.engine;

import io.sluice.engine.policy.Category;
import io.sluice.engine.classify.CrawlerVerifier;
import io.sluice.engine.classify.SignedAgents;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;

/**
 * The decision's first stage, the same on a single node and on a node of a cluster: who the client is (its address
 * through the trusted proxies, its user agent bounded, its class, its crawler claim verified), whether the
 * allow-list exempts it, then rule 1 (pause) and rule 2 (bans). A request that passes goes on, with its route,
 * through the agent rule ({@link AgentRules}: categories, robots.txt, the trap) and the browser check
 * ({@link BrowserGate}) to the client rules the engine was built with ({@link Next}).
 */
final class Prelude {

    /** What follows the prelude: rules 3-5 (on this node's stores, or the cluster's), then 7 and 6. */
    @FunctionalInterface
    interface Next {
        /**
         * @param client  its class and whether it is allow-listed ({@link ClientInfo#allowListed()}) included
         * @param address the client's address, resolved through the trusted proxies
         */
        Decision afterPrelude(CompiledPolicy compiled, ClientInfo client, ClientKey key, IpAddress address,
                              RouteTable.Compiled route, long now);

        /**
         * {@link #afterPrelude} with the browser check's question about the client's network, which a node of a
         * cluster asks of the shared store in the same call as the client's rules ({@link NetworkAsk}); a single node
         * never asks one (its gate judged the network already).
         */
        default Decision afterGate(CompiledPolicy compiled, ClientInfo client, ClientKey key, IpAddress address,
                                   RouteTable.Compiled route, long now, NetworkAsk network) {
            return afterPrelude(compiled, client, key, address, route, now);
        }
    }

    private final UserAgentClassifier classifier;
    private final CrawlerVerifier crawlerVerifier;
    private final AutomaticBans bans;
    private final Outcomes outcomes;
    private final BrowserGate browserGate;
    private final AgentRules agentRules;
    /** Web Bot Auth: the front end installs its verifier ({@link ThrottleEngine#verifySignedAgentsWith}). */
    private volatile SignedAgents signedAgents = SignedAgents.NONE;

    Prelude(UserAgentClassifier classifier, CrawlerVerifier crawlerVerifier, AutomaticBans bans, Outcomes outcomes,
            BrowserGate browserGate, AgentRules agentRules) {
        this.classifier = classifier;
        this.crawlerVerifier = crawlerVerifier;
        this.bans = bans;
        this.outcomes = outcomes;
        this.browserGate = browserGate;
        this.agentRules = agentRules;
    }

    Decision decide(CompiledPolicy compiled, Request request, long now, Next next) {
        Policy policy = compiled.policy();
        IpAddress address = compiled.resolver().resolve(request);
        String rawAgent = UserAgents.bounded(request.userAgent());
        String userAgent = rawAgent == null ? "" : rawAgent;
        UserAgentMatch match = classifier.classify(rawAgent, policy.classification());
        RequestClass cls = verified(match, policy, address);
        String crawlerName = match.crawlerName();
        String agent = signedAgent(request, now);
        if (agent != null) {
            cls = RequestClass.CRAWLER;
            crawlerName = agent;
        }
        AgentRules.Claim claim = claim(match, cls, policy, address);
        CompiledPolicy.Allowance allowance = compiled.allowance(address, userAgent);
        boolean allowListed = allowance != CompiledPolicy.Allowance.NONE;
        ClientKey key = new ClientKey(address, userAgent);
        ClientInfo client = new ClientInfo(address.toString(), userAgent, cls, crawlerName, allowListed);

        // 1. pause
        if (compiled.pauses(cls) && allowance != CompiledPolicy.Allowance.EXEMPT_INCLUDING_PAUSE) {
            return outcomes.refuse(client, key, Reason.PAUSED, policy.refusal().retryAfterSeconds(), null, now,
                    policy.pause().all() ? "The service is paused." : "Service to " + cls + " clients is paused.");
        }
        // 2. bans: the policy's, then automatic bans not in it yet
        Ban ban = bans.banned(compiled, address, key, now);
        if (ban != null) {
            return outcomes.refuseBanned(client, key, ban, policy, now);
        }
        RouteTable.Compiled route = compiled.routes().match(request.method(), request.path(), request.query(),
                request.secFetchDest(), cls);
        // the agent rule (categories, robots.txt, the trap), then the browser check: a browser claim may have to
        // prove itself before the client rules count it
        return agentRules.decide(compiled, request, client, key, address, claim, route, now,
                judged -> browserGate.decide(compiled, request, judged, key, address, route, now, next));
    }

    /**
     * The request's agent claim, for the agent rule: null when no list entry matched. Verified when the prelude made
     * it a {@code CRAWLER} (its claim verified, or verification off); a claim the classification makes a {@code BOT}
     * (a feed reader, a monitor) is verified only when its category's rule tells verified from unverified, so the
     * common case asks the verifier nothing more than today.
     */
    private AgentRules.Claim claim(UserAgentMatch match, RequestClass cls, Policy policy, IpAddress address) {
        if (match.crawlerName() == null) {
            return null;
        }
        Category category = Category.of(match.crawlerName(), match.tags());
        boolean verified;
        if (cls == RequestClass.CRAWLER) {
            verified = true;
        } else if (match.requestClass() == RequestClass.CRAWLER) {
            verified = false; // a crawler claim that failed verification just now
        } else {
            Agents.CategoryRule rule = policy.agents().rule(category);
            verified = rule.actionFor(true) != rule.actionFor(false)
                    && (!policy.crawlers().verifySearchEngines() || crawlerVerifier.verify(match.crawlerName(),
                            address, policy.crawlers()) == CrawlerVerifier.Verdict.VERIFIED);
        }
        return new AgentRules.Claim(match.crawlerName(), category, verified);
    }

    void signedAgents(SignedAgents agents) {
        signedAgents = agents == null ? SignedAgents.NONE : agents;
    }

    /**
     * The agent a valid Web Bot Auth signature names (docs/manual/signed-agents.md), or null: another way for a
     * request to be a verified crawler, whatever its user agent says, under the name its key directory gives (so
     * rule 3 spaces it as that agent, and a copy of its user agent without its key takes nothing from it).
     */
    private String signedAgent(Request request, long now) {
        return request.signed() == null ? null : signedAgents.verifiedAgent(request.signed(), now);
    }

    /**
     * A {@code CRAWLER} stays one only when its claim is verified (its address in the crawler's published ranges or
     * the policy's, or forward-confirmed reverse DNS; {@link CrawlerVerifier}). Any other claim is a {@code BOT}, so
     * it is keyed by its address like any bot and never reaches rule 3: it cannot take the real crawler's slot nor
     * the all-crawlers gap. While a reverse-DNS lookup is pending the claimant is a {@code BOT} too, whoever it
     * turns out to be: believing it meanwhile would let a fake from a fresh address take the real one's slot once
     * per address, and the cost to the real crawler is a request or two counted as a bot's.
     */
    private RequestClass verified(UserAgentMatch match, Policy policy, IpAddress address) {
        if (match.requestClass() != RequestClass.CRAWLER || !policy.crawlers().verifySearchEngines()) {
            return match.requestClass();
        }
        return crawlerVerifier.verify(match.crawlerName(), address, policy.crawlers())
                == CrawlerVerifier.Verdict.VERIFIED ? RequestClass.CRAWLER : RequestClass.BOT;
    }
}
