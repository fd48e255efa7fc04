package io.sluice.engine;

import static io.sluice.engine.Outcomes.ceilDiv;
import static io.sluice.engine.Outcomes.ceilSeconds;

import io.sluice.engine.internal.AggregateLink;
import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.ClientStores;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.CrawlerGate;
import io.sluice.engine.internal.CrawlerSlot;
import io.sluice.engine.internal.HitStackState;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;

/**
 * Rules 3-5 (crawler spacing, hit stacks, per-client and per-address concurrency) on this node's stores, in one
 * place: a single node applies them with the policy's limits, a node of a cluster that has to decide alone with the
 * same limits scaled to the nodes last seen ({@link Limits#of}). The words of their refusals are here too, for the
 * verdicts of the cluster's store as well ({@link #refuse}).
 *
 * <p>The hits are pushed first ({@link #pushClient}, {@link #pushAddress}, {@link #pushRoute}), by the caller:
 * the cluster path pushes them before it asks the shared store, and judges here only when that store cannot
 * answer.
 */
final class ClientRules {

    /**
     * The limits of rules 3-5 as one node applies them: the policy's on a single node; with {@code nodes} &gt; 1,
     * counts divided by them (rounded up) and crawler gaps multiplied, so that a client the load balancer spreads
     * over the nodes gets about its cluster allowance in total.
     */
    record Limits(int nodes, Policy.HitStack client, Policy.HitStack address, int maxConcurrent,
                  int addressMaxConcurrent, long perCrawlerMillis, long allCrawlersMillis) {

        static Limits of(CompiledPolicy compiled, int nodes) {
            Policy policy = compiled.policy();
            Policy.Crawlers crawlers = policy.crawlers();
            return new Limits(nodes, divided(policy.hitStack(), nodes), divided(compiled.addressLimits(), nodes),
                    ceilDiv(policy.perClient().maxConcurrent(), nodes),
                    ceilDiv(policy.perAddress().maxConcurrent(), nodes),
                    crawlers.perCrawlerSeconds() * 1000L * nodes, crawlers.allCrawlersSeconds() * 1000L * nodes);
        }

        /** A route's limits as this node applies them (null when the route has none). */
        Policy.HitStack route(Policy.HitStack routeLimits) {
            return routeLimits == null ? null : divided(routeLimits, nodes);
        }

        private static Policy.HitStack divided(Policy.HitStack limits, int nodes) {
            return nodes == 1 ? limits : new Policy.HitStack(limits.windowSeconds(), ceilDiv(limits.maxHits(), nodes));
        }
    }

    /** The live policy's limits, whole and as one of {@code nodes} nodes applies them alone; cached per version. */
    record Scaled(CompiledPolicy of, Limits whole, Limits alone) {
    }

    /**
     * A request's hits as pushed on this node's stacks, and all that judging them by rules 3-5 needs: a single node
     * judges it at once, a node of a cluster keeps it until the shared store answers (and judges it alone if that
     * store cannot).
     *
     * @param scaled      the live policy's limits; the hits were pushed under {@link Scaled#alone}
     * @param addressKey  the key of the client's address aggregate
     * @param route       the route matched ({@link RouteTable#NONE} when none: see {@link #matched})
     * @param hits        the client's hit stack after the push
     * @param addressHits its address's
     * @param routeHits   the client's on the route's own stack, or null when the route has no limits
     */
    record Pushed<C extends AggregateLink<A>, L, A, M>(ClientStores<C, L, A, M> stores, Scaled scaled,
                                                       ClientInfo client, ClientKey key, IpAddress address,
                                                       ClientKey addressKey, RouteTable.Compiled route,
                                                       HitStackState<C> hits, HitStackState<A> addressHits,
                                                       HitStackState<?> routeHits) {

        CompiledPolicy compiled() {
            return scaled.of();
        }

        /** The limits this node judges by alone (the policy's on a single node). */
        Limits limits() {
            return scaled.alone();
        }

        /** The same hits, judged for {@code judged} (the browser check's answer may change what a pass buys). */
        Pushed<C, L, A, M> withClient(ClientInfo judged) {
            return judged == client ? this : new Pushed<>(stores, scaled, judged, key, address, addressKey, route,
                    hits, addressHits, routeHits);
        }
    }

    private final Outcomes outcomes;
    private final CrawlerGate crawlerGate;
    /** Route limits: one hit stack per (client, route), keyed by the client with the route's id appended. */
    private final ClientStateStore<?, ?> routeStacks;
    private volatile Scaled scaled;

    ClientRules(Outcomes outcomes, CrawlerGate crawlerGate, ClientStateStore<?, ?> routeStacks) {
        this.outcomes = outcomes;
        this.crawlerGate = crawlerGate;
        this.routeStacks = routeStacks;
    }

    /** {@code compiled}'s limits for {@code nodes} nodes; computed once per version and node count. */
    Scaled scaled(CompiledPolicy compiled, int nodes) {
        Scaled known = scaled;
        if (known != null && known.of() == compiled && known.alone().nodes() == nodes) {
            return known;
        }
        Limits whole = Limits.of(compiled, 1);
        Scaled fresh = new Scaled(compiled, whole, nodes == 1 ? whole : Limits.of(compiled, nodes));
        scaled = fresh;
        return fresh;
    }

    /**
     * Rules 3-5 for a single node, then 7 and 6: every request that passes rules 1-2 is pushed on its hit stacks,
     * with its route's weight (rule 4 counts refused ones too); an allow-listed one is admitted there.
     */
    <C extends AggregateLink<A>, L, A, M> Decision judge(ClientStores<C, L, A, M> stores, CompiledPolicy compiled,
                                                         ClientInfo client, ClientKey key, IpAddress address,
                                                         RouteTable.Compiled route, long now) {
        Scaled scaled = scaled(compiled, 1);
        Limits limits = scaled.alone();
        HitStackState<C> hits = pushClient(stores, key, client, limits, route, now);
        if (client.allowListed()) {
            return admitExempt(stores, client, key, address, route, rateLimit(limits.client(), hits), now);
        }
        ClientKey addressKey = addressKey(compiled, address);
        HitStackState<A> addressHits = pushAddress(stores, addressKey, hits, client, limits, route, now);
        HitStackState<?> routeHits = pushRoute(key, address, client, limits, route, now);
        // the parts of a Pushed, not one: a record made here costs 56 bytes per decision, which the JIT does not take
        // away (the decision is compiled as one method past C2's inlining budget)
        return judge(stores, scaled, client, key, address, addressKey, matched(route), hits, addressHits, routeHits,
                now);
    }

    /** Exempt from rules 3-7 (allow-listed): admitted, holding a load slot and nothing else. */
    <L, M> Decision admitExempt(ClientStores<?, L, ?, M> stores, ClientInfo client, ClientKey key, IpAddress address,
                                RouteTable.Compiled route, RateLimitStatus rate, long now) {
        return outcomes.admitExempt(new Pending<>(outcomes, stores.clients(), client, key, address, null, null, null,
                stores.addresses(), null, null, rate, route), now);
    }

    /** The route as a decision carries it (never null). */
    static RouteTable.Compiled matched(RouteTable.Compiled route) {
        return route == null ? RouteTable.NONE : route;
    }

    static ClientKey addressKey(CompiledPolicy compiled, IpAddress address) {
        Policy.PerAddress perAddress = compiled.policy().perAddress();
        return ClientKey.ofAddress(address, perAddress.ipv4Prefix(), perAddress.ipv6Prefix());
    }

    <C extends AggregateLink<A>, A> HitStackState<C> pushClient(ClientStores<C, ?, A, ?> stores, ClientKey key,
                                                                ClientInfo client, Limits limits,
                                                                RouteTable.Compiled route, long now) {
        return stores.clients().pushHit(key, client, now, limits.client(), route.weight());
    }

    <C extends AggregateLink<A>, A> HitStackState<A> pushAddress(ClientStores<C, ?, A, ?> stores, ClientKey addressKey,
                                                                 HitStackState<C> hits, ClientInfo client,
                                                                 Limits limits, RouteTable.Compiled route, long now) {
        return stores.addresses().pushAggregateHit(addressKey, hits.client(), client, now, limits.address(),
                route.weight());
    }

    /** The client's hit on its route's own stack, or null when the route has no limits. */
    HitStackState<?> pushRoute(ClientKey key, IpAddress address, ClientInfo client, Limits limits,
                               RouteTable.Compiled route, long now) {
        return route.limits() == null ? null
                : routeStacks.pushHit(new ClientKey(address, key.userAgent() + '\u0000' + route.id()), client, now,
                        limits.route(route.limits()), Math.max(1, route.weight()));
    }

    /** Rules 3-5 on the pushed hits under the limits this node applies alone, then 7 and 6. */
    <C extends AggregateLink<A>, L, A, M> Decision judge(Pushed<C, L, A, M> pushed, long now) {
        return judge(pushed.stores(), pushed.scaled(), pushed.client(), pushed.key(), pushed.address(),
                pushed.addressKey(), pushed.route(), pushed.hits(), pushed.addressHits(), pushed.routeHits(), now);
    }

    /** {@link #judge(Pushed, long)} on a {@link Pushed}'s parts, for the single node's path (see there). */
    private <C extends AggregateLink<A>, L, A, M> Decision judge(ClientStores<C, L, A, M> stores, Scaled scaled,
                                                                 ClientInfo client, ClientKey key, IpAddress address,
                                                                 ClientKey addressKey, RouteTable.Compiled route,
                                                                 HitStackState<C> hits, HitStackState<A> addressHits,
                                                                 HitStackState<?> routeHits, long now) {
        ClientStateStore<C, L> store = stores.clients();
        ClientStateStore<A, M> addresses = stores.addresses();
        Limits limits = scaled.alone();
        CompiledPolicy compiled = scaled.of();
        Policy.HitStack routeLimits = limits.route(route.limits());
        RateLimitStatus rate = rateLimit(limits.client(), hits);
        // 3. crawler spacing: this crawler (its list entry), then any crawler
        CrawlerSlot slot = null;
        CrawlerGate.Turn turn = null;
        if (client.requestClass() == RequestClass.CRAWLER) {
            slot = store.reserveCrawler(crawlerIdentity(client), now, limits.perCrawlerMillis());
            if (!slot.granted()) {
                return refuse(compiled, addresses, client, key, addressKey, limits, routeLimits,
                        Reason.CRAWLER_SPACING, slot.waitMillis(), rate, now);
            }
            turn = crawlerGate.take(now, limits.allCrawlersMillis());
            if (!turn.granted()) {
                store.releaseCrawler(slot);
                return refuse(compiled, addresses, client, key, addressKey, limits, routeLimits, Reason.CRAWLERS_BUSY,
                        turn.waitMillis(), rate, now);
            }
        }
        // 4. hit stacks: the client's, the route's, the address's
        HitStackState<?> over = null;
        Reason refusal = null;
        if (hits.hitsInWindow() > limits.client().maxHits()) {
            over = hits;
            refusal = Reason.HIT_STACK;
        } else if (routeHits != null && routeHits.hitsInWindow() > routeLimits.maxHits()) {
            over = routeHits;
            refusal = Reason.ROUTE_LIMIT;
        } else if (addressHits.hitsInWindow() > limits.address().maxHits()) {
            over = addressHits;
            refusal = Reason.ADDRESS_HIT_STACK;
        }
        // 5. concurrency: the client's, the address's
        L inFlight = null;
        M addressInFlight = null;
        if (refusal == null) {
            inFlight = store.acquireInFlight(key, hits.client(), limits.maxConcurrent());
            if (inFlight == null) {
                refusal = Reason.CLIENT_CONCURRENCY;
            } else {
                addressInFlight = addresses.acquireInFlight(addressKey, addressHits.client(),
                        limits.addressMaxConcurrent());
                if (addressInFlight == null) {
                    store.releaseInFlight(inFlight);
                    refusal = Reason.ADDRESS_CONCURRENCY;
                }
            }
        }
        if (refusal != null) {
            outcomes.giveBackCrawler(store, slot, turn);
            return refuse(compiled, addresses, client, key, addressKey, limits, routeLimits, refusal,
                    over == null ? 0 : over.millisUntilBelow(), rate, now);
        }
        Pending<L, M> pending = new Pending<>(outcomes, store, client, key, address, slot, turn, inFlight, addresses,
                addressKey, addressInFlight, rate, route);
        // 7. progressive delay (before 6: see the essay atop ThrottleEngine), 6. load deferral
        return outcomes.delayOrLoad(compiled, pending, hits.hitsInWindow(), limits.nodes(), now);
    }

    /**
     * The refusal for a rule of 3-5 of {@code pushed}, in its words, with the limits it was judged under (this node's
     * alone, or the whole policy's when the cluster's store judged it). A refusal the client brought on itself counts
     * towards escalation; another crawler's turn does not.
     */
    Decision refuse(Pushed<?, ?, ?, ?> pushed, Limits limits, Reason reason, long retryAfterMillis,
                    RateLimitStatus rate, long now) {
        return refuse(pushed.compiled(), pushed.stores().addresses(), pushed.client(), pushed.key(),
                pushed.addressKey(), limits, limits.route(pushed.route().limits()), reason, retryAfterMillis, rate,
                now);
    }

    private Decision refuse(CompiledPolicy compiled, ClientStateStore<?, ?> addresses, ClientInfo client,
                            ClientKey key, ClientKey addressKey, Limits limits, Policy.HitStack route, Reason reason,
                            long retryAfterMillis, RateLimitStatus rate, long now) {
        String detail = detail(reason, limits, route);
        long retry = ceilSeconds(retryAfterMillis);
        if (reason == Reason.CRAWLERS_BUSY) {
            return outcomes.refuse(client, key, reason, retry, rate, now, detail);
        }
        if (reason == Reason.ADDRESS_HIT_STACK || reason == Reason.ADDRESS_CONCURRENCY) {
            addresses.recordLimited(addressKey, now, true);
        }
        if (reason == Reason.CLIENT_CONCURRENCY || reason == Reason.ADDRESS_CONCURRENCY) {
            retry = compiled.policy().refusal().retryAfterSeconds();
        }
        return outcomes.refuseRule(compiled, client, key, addressKey, reason, retry, rate, now, detail);
    }

    /** A refusal's words, with the limits it was judged under ({@code route}: the route's, as judged). */
    private static String detail(Reason reason, Limits limits, Policy.HitStack route) {
        return switch (reason) {
            case CRAWLERS_BUSY -> "Another crawler was served less than " + limits.allCrawlersMillis() / 1000
                    + " s ago.";
            case CRAWLER_SPACING -> "This crawler was served less than " + limits.perCrawlerMillis() / 1000 + " s ago.";
            case HIT_STACK -> "More than " + limits.client().maxHits() + " requests in "
                    + limits.client().windowSeconds() + " s.";
            case ROUTE_LIMIT -> "More than " + route.maxHits() + " requests to this part of the site in "
                    + route.windowSeconds() + " s.";
            case ADDRESS_HIT_STACK -> "More than " + limits.address().maxHits()
                    + " requests from this network address in " + limits.address().windowSeconds() + " s.";
            case CLIENT_CONCURRENCY -> "Already " + limits.maxConcurrent() + " requests in progress from this client.";
            case ADDRESS_CONCURRENCY -> "Already " + limits.addressMaxConcurrent()
                    + " requests in progress from this network address.";
            default -> throw new IllegalStateException("rules 3-5 cannot refuse for " + reason);
        };
    }

    /** Rule 3 keys a crawler by its list entry: every address and user agent of one crawler share its gap. */
    static String crawlerIdentity(ClientInfo client) {
        return client.crawlerName() != null ? client.crawlerName() : client.userAgent();
    }

    static RateLimitStatus rateLimit(Policy.HitStack limits, HitStackState<?> hits) {
        return new RateLimitStatus(limits.maxHits(), Math.max(0, limits.maxHits() - hits.hitsInWindow()),
                ceilSeconds(hits.millisUntilReset()), limits.windowSeconds());
    }
}
