package io.sluice.engine;

import io.sluice.engine.internal.AggregateLink;
import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.ClientStores;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.HitStackState;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;

/*
 * Cluster mode: rules 3-5 asked of a SharedClientStore, which every node asks; a decision that needs it is a
 * Decision.Pending. The prelude before and rules 7 and 6 after are the single node's.
 *
 * Every request still pushes its hits on this node's local stores: they are this node's view of its clients (the
 * snapshot's heatmap) and what it decides on when the shared store cannot answer. Those pushes use the limits divided
 * by the nodes last seen (ClientRules.Limits), so a local verdict is ready without recomputing anything: deciding
 * alone is ClientRules.judge with those limits, the same code as a single node's. A request admitted by the shared
 * store also takes a slot in the local stores, without a limit: this node's in-flight count stays right for telemetry
 * and for the moment it has to decide alone.
 *
 * The browser check's network budgets ride on the same call (NetworkAsk): the store pushes the network's hit before
 * the client's and, over a budget that decides, answers NETWORK_BUDGET having judged nothing else; the gate's answer
 * (a challenge, a refusal) follows. Alone, the gate's own stack of the network (its share of the budget) decides.
 */

/**
 * The client rules of a node of a cluster: asks the shared store, and decides alone (its limits scaled) when the
 * store cannot answer.
 *
 * @param <S> the shared store's lease type
 */
final class SharedRules<S> {

    private final SharedClientStore<S> shared;
    private final ClientRules rules;
    private final Outcomes outcomes;
    private final InstantSource clock;

    SharedRules(SharedClientStore<S> shared, ClientRules rules, Outcomes outcomes, InstantSource clock) {
        this.shared = shared;
        this.rules = rules;
        this.outcomes = outcomes;
        this.clock = clock;
    }

    /**
     * @param network the browser check's question about the client's network, asked in the same call as the client's
     *                rules ({@link NetworkAsk}), or null
     */
    <C extends AggregateLink<A>, L, A, M> Decision judge(ClientStores<C, L, A, M> stores, CompiledPolicy compiled,
                                                         ClientInfo client, ClientKey key, IpAddress address,
                                                         RouteTable.Compiled route, long now, NetworkAsk network) {
        Policy policy = compiled.policy();
        ClientRules.Scaled scaled = rules.scaled(compiled, Math.max(1, shared.nodes()));
        ClientRules.Limits alone = scaled.alone();
        HitStackState<C> hits = rules.pushClient(stores, key, client, alone, route, now);
        ClientKey addressKey = ClientRules.addressKey(compiled, address);
        SharedClientStore.Ask ask = ask(compiled, scaled.whole(), client, key, address, addressKey, route, now,
                network);
        if (client.allowListed()) {
            // exempt from rules 3-7: nothing to ask the cluster, only its weight to count
            if (route.weight() > 0 && shared.available()) {
                shared.countExempt(ask);
            }
            return rules.admitExempt(stores, client, key, address, route,
                    ClientRules.rateLimit(policy.hitStack(), hits), now);
        }
        HitStackState<A> addressHits = rules.pushAddress(stores, addressKey, hits, client, alone, route, now);
        HitStackState<?> routeHits = rules.pushRoute(key, address, client, alone, route, now);
        // what the decision carries from the request to the store's answer
        ClientRules.Pushed<C, L, A, M> asked = new ClientRules.Pushed<>(stores, scaled, client, key, address,
                addressKey, ClientRules.matched(route), hits, addressHits, routeHits);
        if (!shared.available()) {
            return decideAlone(asked, network, now);
        }
        CompletableFuture<SharedClientStore.Verdict<S>> answer;
        try {
            answer = shared.admit(ask);
        } catch (RuntimeException e) {
            return decideAlone(asked, network, now);
        }
        if (answer.isDone()) {
            // answered already: from what the store knew (a client refused until a known time, no round trip), or
            // by a store whose answer came back before this thread got here
            return answer.handle((verdict, failure) -> settle(asked, network, verdict, failure, now)).join();
        }
        return new Decision.Pending(client,
                answer.handle((verdict, failure) -> settle(asked, network, verdict, failure, clock.millis())));
    }

    private static SharedClientStore.Ask ask(CompiledPolicy compiled, ClientRules.Limits whole, ClientInfo client,
                                             ClientKey key, IpAddress address, ClientKey addressKey,
                                             RouteTable.Compiled route, long now, NetworkAsk network) {
        ClientKey ofNetwork;
        if (network != null) {
            ofNetwork = network.network();
        } else {
            // asked nothing about, but every client's keys stay with its network's wherever the store keeps them, so
            // that an address's browser claims and its other requests share one address aggregate
            BrowserCheck.Networks budgets = compiled.policy().browserCheck().networks();
            ofNetwork = ClientKey.ofAddress(address, budgets.ipv4Prefix(), budgets.ipv6Prefix());
        }
        return new SharedClientStore.Ask(key, addressKey, route.limits() == null ? null : route.id(), route.weight(),
                whole.client(), route.limits(), whole.address(), whole.maxConcurrent(), whole.addressMaxConcurrent(),
                client.requestClass() == RequestClass.CRAWLER ? ClientRules.crawlerIdentity(client) : null,
                whole.perCrawlerMillis(), whole.allCrawlersMillis(), compiled.policy().version(), now, ofNetwork,
                network == null ? null : network.budget());
    }

    /** The store answered (or failed to): the decision from there on. Never throws. */
    private <C extends AggregateLink<A>, L, A, M> Decision settle(ClientRules.Pushed<C, L, A, M> pushed,
                                                                  NetworkAsk network,
                                                                  SharedClientStore.Verdict<S> verdict,
                                                                  Throwable failure, long now) {
        if (failure != null || verdict == null) {
            return decideAlone(pushed, network, now); // slow or gone: this node decides alone, at once
        }
        ClientRules.Pushed<C, L, A, M> asked = pushed;
        if (network != null) {
            if (verdict.refusal() == Reason.NETWORK_BUDGET) {
                // the network over a budget that decides: the browser check answers, no client rule was judged
                return network.answer().over(verdict.networkTookOver(), verdict.passOver(),
                        verdict.retryAfterMillis(), network.budget().limits().maxHits(), now);
            }
            asked = pushed.withClient(network.answer().judged(pushed.client(), verdict.networkOver(),
                    verdict.networkTookOver(), now));
        }
        Policy.HitStack limits = asked.compiled().policy().hitStack();
        RateLimitStatus rate = new RateLimitStatus(limits.maxHits(), Math.max(0, limits.maxHits()
                - verdict.hitsInWindow()), Outcomes.ceilSeconds(verdict.millisUntilReset()), limits.windowSeconds());
        if (!verdict.admitted()) {
            return rules.refuse(asked, asked.scaled().whole(), verdict.refusal(), verdict.retryAfterMillis(), rate,
                    now);
        }
        try {
            ClientStateStore<C, L> store = asked.stores().clients();
            ClientStateStore<A, M> addresses = asked.stores().addresses();
            // this node's own count of the client's requests in flight (telemetry; deciding alone later), no limit
            L inFlight = store.acquireInFlight(asked.key(), asked.hits().client(), Integer.MAX_VALUE);
            M addressInFlight = addresses.acquireInFlight(asked.addressKey(), asked.addressHits().client(),
                    Integer.MAX_VALUE);
            SharedPending<L, M, S> pending = new SharedPending<>(outcomes, store, asked.client(), asked.key(),
                    asked.address(), inFlight, addresses, asked.addressKey(), addressInFlight, rate, shared,
                    verdict.lease(), asked.route());
            return outcomes.delayOrLoad(asked.compiled(), pending, verdict.hitsInWindow(), 1, now);
        } catch (RuntimeException e) {
            shared.release(verdict.lease(), false);
            throw e;
        }
    }

    /**
     * Rules 3-5 on this node's state alone, with the limits divided by the nodes last seen (rounded up) and the
     * crawler gaps multiplied by them, while the shared store cannot answer: the single node's rules
     * ({@link ClientRules}). The hits were pushed with those limits already.
     */
    private <C extends AggregateLink<A>, L, A, M> Decision decideAlone(ClientRules.Pushed<C, L, A, M> asked,
                                                                       NetworkAsk network, long now) {
        if (network == null) {
            return rules.judge(asked, now);
        }
        // the network's budget, as this node's own stack holds it (its share of the budget), first
        if (network.overAlone() && network.budget().decisive()) {
            return network.answer().over(network.tookOverAlone(), network.passOverAlone(), network.retryAlone(),
                    network.shareAlone(), now);
        }
        return rules.judge(asked.withClient(network.answer().judged(asked.client(), network.overAlone(),
                network.tookOverAlone(), now)), now);
    }
}
