package io.sluice.engine;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.Pass;
import io.sluice.engine.internal.ClientSample;
import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.FunnelStep;
import io.sluice.engine.internal.HitStackState;
import io.sluice.engine.internal.LoadGate;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.AsnTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.NetworkInFlight;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The browser check, between rule 2 and the client rules: a user agent that claims a browser is a claim, and while
 * the check asks, a page navigation without a valid pass is answered with the interstitial ({@link Reason#CHALLENGE})
 * instead of the page. Everything else is unchanged: crawlers, bots and allow-listed clients never meet it.
 *
 * <p>When it asks ({@link BrowserCheck.Mode}): always; or, adaptive, while the site is under pressure (requests in
 * flight at {@code pressureInFlight}, held for {@code pressureHoldSeconds}), for a network over its budget of claims
 * without a pass, on a route marked {@code challenge} and for the networks the policy always challenges.
 *
 * <p>What a pass buys: it is checked here with no shared state (a signature over the client's network, user agent
 * and expiry), and it is an identity: its requests share one hit stack whatever address they come from, and its
 * network has a budget of its own for requests on a pass. Over either, the pass is dropped: while the check asks, its
 * holder is challenged again (harder while the site is under pressure), and its network earns its next pass only
 * after a cooldown ({@link PassCooldowns}), so a dropped pass is not replaced in the milliseconds a native solver
 * needs; on a quiet day the client's own limits judge it. A browser with a strong pass is served whatever the
 * load, as browsers always were; a weak pass (the no-JavaScript path) and a browser claim without a pass that the
 * check lets by (not a page, so not challenged) wait behind the load gate like bots ({@link ClientInfo.Pass}).
 *
 * <p>Requests in flight per network: beside its hit stacks, a network may have {@code maxConcurrentWithoutPass}
 * browser claims without a pass and {@code maxConcurrentWithPass} requests on passes in flight at once, counted on
 * the same states as its hit stacks (this node's; like a client's in-flight count, never forgotten while a request
 * runs, whatever eviction does). Over it, a page is challenged (a pass stays good: it is the network that is busy)
 * and anything else refused {@link Reason#NETWORK_CONCURRENCY}. The slot is taken here, before the client rules,
 * and travels with the decision ({@link #holding}): the admission gives it back when it completes, a wait when it is
 * cancelled or refused, and a refusal at once; a {@link NetworkSlot} is given back once whichever path comes first.
 *
 * <p>Autonomous systems, with the operator's IP-to-ASN file ({@link #asns(AsnTable)}): a browser claim without a pass
 * is pushed on its AS's hit stack too ({@code networks.asnWithoutPass}), and over it is treated as over its network's
 * budget; the policy's {@code alwaysChallengeAsns} are asked like its {@code alwaysChallenge} networks. The AS is
 * looked up (a binary search, no allocation) only when a file is loaded and the policy uses one of the two.
 *
 * <p>Cluster mode ({@link #decideInCluster}): the network's hit stacks, and a pass's own, are the cluster's. The gate
 * answers at once what it can answer without them (a page challenged while the check asks anyway, a request over this
 * node's concurrency limit), counting the network's hit for the shared store's next flush; anything else goes to the
 * cluster's client rules with a {@link NetworkAsk}, asked of the shared store in the same call as the client's rules,
 * and the gate's answer follows the store's verdict. This node's own stacks are pushed too, with the budgets (and a
 * pass's pace) divided by the nodes last seen: they decide when the store cannot answer. Concurrency per network and
 * the cooldowns stay this node's.
 *
 * <p>State: four bounded tables of hit stacks (two keyed by network, without and with a pass, which count its
 * requests in flight too; one by pass; one by autonomous system, used only with a budget per AS), the IP-to-ASN table
 * (immutable, swapped whole), the moment pressure was last seen (one AtomicLong), and counters. Nothing here blocks
 * or reads a clock.
 */
final class BrowserGate {

    /** Bits added to the proof-of-work of a pass dropped while the site is under pressure: 16 times the work. */
    static final int HARDER_BITS = 4;
    /** The hardest proof-of-work ever asked, whatever is added. */
    static final int MAX_BITS = 24;
    /** A pass's hit stack is keyed by an address of the discard prefix 100::/64 (RFC 6666) made from its id. */
    private static final long PASS_PREFIX = 0x0100_0000_0000_0000L;
    /** An AS's hit stack is keyed by an address of 100:0:0:1::/64 (beside the passes') made from its number. */
    private static final long ASN_PREFIX = 0x0100_0000_0000_0001L;

    private final BrowserPasses passes;
    private final LoadGate load;
    private final Outcomes outcomes;
    /** Each network's hit stack of browser claims without a pass, and those of them in flight. */
    private final ClientStateStore<?, ?> claimsWithoutPass;
    /** Each network's hit stack of requests on a pass, and those of them in flight. */
    private final ClientStateStore<?, ?> requestsOnPass;
    /** Each pass's hit stack, whatever address it comes from. */
    private final ClientStateStore<?, ?> passStacks;
    /** Until when the site counts as under pressure (epoch millis). */
    private final AtomicLong pressureUntil = new AtomicLong(Long.MIN_VALUE);
    private final LongAdder onPass = new LongAdder();
    private final LongAdder passesDropped = new LongAdder();
    private final LongAdder passesEarned = new LongAdder();
    private final LongAdder weakPassesEarned = new LongAdder();
    private final LongAdder answersRefused = new LongAdder();
    private final LongAdder passesWithheld = new LongAdder();
    private final LongAdder overConcurrency = new LongAdder();
    private final PassCooldowns cooldowns;
    /** Each autonomous system's hit stack of browser claims without a pass (with an IP-to-ASN file); null: none. */
    private final ClientStateStore<?, ?> asnClaims;
    /** The operator's IP-to-ASN file, or {@link AsnTable#EMPTY}; replaced whole when the server reloads it. */
    private volatile AsnTable asns = AsnTable.EMPTY;
    /** The cluster's per-client store, which keeps the networks' hit stacks too; null on a single node. */
    private final SharedClientStore<?> cluster;
    /** The live budgets as this node applies them alone (a cluster's node), made once per policy and node count. */
    private volatile Shares shares;

    /** A network's budgets, and a pass's pace, as one of {@code nodes} nodes applies them alone. */
    private record Shares(BrowserCheck of, int nodes, Policy.HitStack withoutPass, Policy.HitStack withPass,
                          Policy.HitStack perPass) {
    }

    BrowserGate(BrowserPasses passes, LoadGate load, Outcomes outcomes, ClientStateStore<?, ?> claimsWithoutPass,
                ClientStateStore<?, ?> requestsOnPass, ClientStateStore<?, ?> passStacks, PassCooldowns cooldowns) {
        this(passes, load, outcomes, claimsWithoutPass, requestsOnPass, passStacks, cooldowns, null, null);
    }

    /**
     * @param cluster   the cluster's per-client store (a node of a cluster), or null for a single node
     * @param asnClaims each autonomous system's hit stack (this node's, in a cluster too), or null for no budget per AS
     */
    BrowserGate(BrowserPasses passes, LoadGate load, Outcomes outcomes, ClientStateStore<?, ?> claimsWithoutPass,
                ClientStateStore<?, ?> requestsOnPass, ClientStateStore<?, ?> passStacks, PassCooldowns cooldowns,
                SharedClientStore<?> cluster, ClientStateStore<?, ?> asnClaims) {
        this.cluster = cluster;
        this.passes = passes;
        this.load = load;
        this.outcomes = outcomes;
        this.claimsWithoutPass = claimsWithoutPass;
        this.requestsOnPass = requestsOnPass;
        this.passStacks = passStacks;
        this.cooldowns = cooldowns;
        this.asnClaims = asnClaims;
    }

    /** Looks addresses up in {@code table} from the next request on ({@link AsnTable#EMPTY}: no AS at all). */
    void asns(AsnTable table) {
        asns = table == null ? AsnTable.EMPTY : table;
    }

    AsnTable asns() {
        return asns;
    }

    Decision decide(CompiledPolicy compiled, Request request, ClientInfo client, ClientKey key, IpAddress address,
                    RouteTable.Compiled route, long now, Prelude.Next next) {
        return decide(claimsWithoutPass, requestsOnPass, compiled, request, client, key, address, route, now, next);
    }

    /** {@link #decide}, with the two network stores' handle and lease types named. */
    private <A, L, B, M> Decision decide(ClientStateStore<A, L> claimsWithoutPass,
                                         ClientStateStore<B, M> requestsOnPass, CompiledPolicy compiled,
                                         Request request, ClientInfo client, ClientKey key, IpAddress address,
                                         RouteTable.Compiled route, long now, Prelude.Next next) {
        Policy policy = compiled.policy();
        BrowserCheck check = policy.browserCheck();
        if (check.mode() == BrowserCheck.Mode.OFF || client.requestClass() != RequestClass.BROWSER
                || client.allowListed() || compiled.exemptFromBrowserCheck(request.path())) {
            return next.afterPrelude(compiled, client, key, address, route, now);
        }
        boolean pressure = underPressure(check, policy.load(), now);
        BrowserCheck.Networks budgets = check.networks();
        ClientKey network = ClientKey.ofAddress(address, budgets.ipv4Prefix(), budgets.ipv6Prefix());
        int weight = route.weight();
        long asn = asnOf(compiled, budgets, address);
        Pass pass = request.pass() == null ? null : passes.check(request.pass(), address, client.userAgent(), now);
        if (cluster != null) {
            return decideInCluster(claimsWithoutPass, requestsOnPass, compiled, request, client, key, address, route,
                    now, next, pressure, network, pass, asn);
        }
        if (pass != null) {
            HitStackState<?> own = passStacks.pushHit(passKey(pass), client, now, check.perPass(), weight);
            HitStackState<B> shared = requestsOnPass.pushHit(network, client, now,
                    budgets.withPass(), weight);
            boolean overPace = own.hitsInWindow() > check.perPass().maxHits();
            boolean overBudget = shared.hitsInWindow() > budgets.withPass().maxHits();
            if (!overPace && !overBudget) {
                M slot = requestsOnPass.acquireInFlight(network, shared.client(), budgets.maxConcurrentWithPass());
                if (slot == null) {
                    // the network is busy, not the pass: it stays good, and a page is asked again all the same
                    return overConcurrency(requestsOnPass, network, request, route, client, key, policy, true, now);
                }
                onPass.increment();
                outcomes.funnel(address, FunnelStep.SERVED_ON_PASS, now);
                ClientInfo passed = client.withPass(pass.weak() ? ClientInfo.Pass.WEAK : ClientInfo.Pass.STRONG);
                return holding(new NetworkSlot<>(requestsOnPass, slot), next, compiled, passed, key, address, route,
                        now);
            }
            passesDropped.increment();
            // the request that took the pass (or its network) over is the drop the network is remembered for; the
            // fleet behind a shared pass keeps sending it, and each of those is not another drop
            if (weight > 0 && (overPace && own.hitsInWindow() - weight <= check.perPass().maxHits()
                    || overBudget && shared.hitsInWindow() - weight <= budgets.withPass().maxHits())) {
                cooldowns.dropped(network, now);
            }
            if (navigation(request, route) && asking(check, compiled, address, asn, route, pressure)) {
                int bits = Math.min(MAX_BITS, check.difficulty() + (pressure ? HARDER_BITS : 0));
                return passDropped(client, key, bits, overPace, now);
            }
            // not asked (a quiet day): the pass buys nothing more, and the client's own limits judge it
            return next.afterPrelude(compiled, client.withPass(ClientInfo.Pass.MISSING), key, address, route, now);
        }
        HitStackState<A> claims = claimsWithoutPass.pushHit(network, client, now,
                budgets.withoutPass(), weight);
        boolean overBudget = claims.hitsInWindow() > budgets.withoutPass().maxHits();
        HitStackState<?> systemClaims = systemClaims(budgets, asn, client, weight, now);
        boolean systemOver = systemClaims != null && systemClaims.hitsInWindow() > budgets.asnWithoutPass().maxHits();
        if (!overBudget && !systemOver && !asking(check, compiled, address, asn, route, pressure)) {
            L slot = claimsWithoutPass.acquireInFlight(network, claims.client(), budgets.maxConcurrentWithoutPass());
            if (slot == null) {
                return overConcurrency(claimsWithoutPass, network, request, route, client, key, policy, false, now);
            }
            return holding(new NetworkSlot<>(claimsWithoutPass, slot), next, compiled, client, key, address, route,
                    now);
        }
        if (!isRead(request.method())) {
            return passRequired(client, key, now);
        }
        if (navigation(request, route)) {
            return checkPage(client, key, check.difficulty(), now);
        }
        if (overBudget) {
            return overNetworkBudget(client, key, claims.millisUntilBelow(), budgets.withoutPass().maxHits(),
                    budgets, now);
        }
        if (systemOver) {
            return overSystem(client, key, budgets, asn, systemClaims, now);
        }
        // not a page: never challenged, but no longer served whatever the load
        L slot = claimsWithoutPass.acquireInFlight(network, claims.client(), budgets.maxConcurrentWithoutPass());
        if (slot == null) {
            return overConcurrency(claimsWithoutPass, network, request, route, client, key, policy, false, now);
        }
        return holding(new NetworkSlot<>(claimsWithoutPass, slot), next, compiled,
                client.withPass(ClientInfo.Pass.MISSING), key, address, route, now);
    }

    /**
     * {@link #decide} on a node of a cluster: the same answers, the network's budgets judged by the shared store with
     * the client's rules (see the class comment). A network's hit the gate answers for alone is counted for the
     * store's next flush ({@link SharedClientStore#countNetwork}).
     */
    private <A, L, B, M> Decision decideInCluster(ClientStateStore<A, L> claimsWithoutPass,
                                                  ClientStateStore<B, M> requestsOnPass, CompiledPolicy compiled,
                                                  Request request, ClientInfo client, ClientKey key,
                                                  IpAddress address, RouteTable.Compiled route, long now,
                                                  Prelude.Next next, boolean pressure, ClientKey network, Pass pass,
                                                  long asn) {
        Policy policy = compiled.policy();
        BrowserCheck check = policy.browserCheck();
        BrowserCheck.Networks budgets = check.networks();
        Shares share = shares(check, Math.max(1, cluster.nodes()));
        int weight = route.weight();
        boolean page = navigation(request, route);
        boolean asked = asking(check, compiled, address, asn, route, pressure);
        if (pass != null) {
            // the pass's own stack and its network's on passes: both the cluster's, judged in one call
            Policy.HitStack paceAlone = share.perPass();
            HitStackState<?> own = passStacks.pushHit(passKey(pass), client, now, paceAlone, weight);
            Policy.HitStack alone = share.withPass();
            HitStackState<B> shared = requestsOnPass.pushHit(network, client, now, alone, weight);
            M slot = requestsOnPass.acquireInFlight(network, shared.client(), budgets.maxConcurrentWithPass());
            if (slot == null) {
                countNetwork(compiled, address, network, true, weight);
                return overConcurrency(requestsOnPass, network, request, route, client, key, policy, true, now);
            }
            boolean overPace = own.hitsInWindow() > paceAlone.maxHits();
            boolean overBudget = shared.hitsInWindow() > alone.maxHits();
            boolean tookOver = weight > 0 && (overPace && own.hitsInWindow() - weight <= paceAlone.maxHits()
                    || overBudget && shared.hitsInWindow() - weight <= alone.maxHits());
            NetworkAsk question = new NetworkAsk(network, new SharedClientStore.NetworkBudget(true,
                    budgets.withPass(), page && asked, pass.id(), check.perPass()), overPace || overBudget, tookOver,
                    overPace, shared.millisUntilBelow(), alone.maxHits(),
                    new OnPass(client, key, network, harder(check, pressure)));
            ClientInfo passed = client.withPass(pass.weak() ? ClientInfo.Pass.WEAK : ClientInfo.Pass.STRONG);
            return holdingInCluster(new NetworkSlot<>(requestsOnPass, slot), next, compiled, passed, key, address,
                    route, now, question);
        }
        Policy.HitStack alone = share.withoutPass();
        HitStackState<A> claims = claimsWithoutPass.pushHit(network, client, now, alone, weight);
        // the budget per AS is this node's (the cluster's store keeps none): over it, as a network over its own
        HitStackState<?> systemClaims = systemClaims(budgets, asn, client, weight, now);
        boolean systemOver = systemClaims != null && systemClaims.hitsInWindow() > budgets.asnWithoutPass().maxHits();
        if (systemOver && isRead(request.method()) && !page) {
            countNetwork(compiled, address, network, false, weight);
            return overSystem(client, key, budgets, asn, systemClaims, now);
        }
        if ((asked || systemOver) && (!isRead(request.method()) || page)) {
            // asked for a pass whatever the budget: answered here, the network's hit counted all the same
            countNetwork(compiled, address, network, false, weight);
            if (!isRead(request.method())) {
                return passRequired(client, key, now);
            }
            return checkPage(client, key, check.difficulty(), now);
        }
        L slot = claimsWithoutPass.acquireInFlight(network, claims.client(), budgets.maxConcurrentWithoutPass());
        if (slot == null) {
            countNetwork(compiled, address, network, false, weight);
            return overConcurrency(claimsWithoutPass, network, request, route, client, key, policy, false, now);
        }
        boolean overAlone = claims.hitsInWindow() > alone.maxHits();
        NetworkAsk question = new NetworkAsk(network,
                new SharedClientStore.NetworkBudget(false, budgets.withoutPass(), true), overAlone,
                overAlone && weight > 0 && claims.hitsInWindow() - weight <= alone.maxHits(), false,
                claims.millisUntilBelow(), alone.maxHits(),
                new WithoutPass(request, route, client, key, budgets, check.difficulty()));
        // not a page while the check asks: never challenged, but no longer served whatever the load
        return holdingInCluster(new NetworkSlot<>(claimsWithoutPass, slot), next, compiled,
                asked ? client.withPass(ClientInfo.Pass.MISSING) : client, key, address, route, now, question);
    }

    /** The gate's answers to a network's verdict for a browser claim without a pass. */
    private final class WithoutPass implements NetworkAsk.Answer {
        private final Request request;
        private final RouteTable.Compiled route;
        private final ClientInfo client;
        private final ClientKey key;
        private final BrowserCheck.Networks budgets;
        private final int bits;

        WithoutPass(Request request, RouteTable.Compiled route, ClientInfo client, ClientKey key,
                    BrowserCheck.Networks budgets, int bits) {
            this.request = request;
            this.route = route;
            this.client = client;
            this.key = key;
            this.budgets = budgets;
            this.bits = bits;
        }

        @Override
        public Decision over(boolean tookOver, boolean passOver, long retryMillis, int budget, long now) {
            if (!isRead(request.method())) {
                return passRequired(client, key, now);
            }
            if (navigation(request, route)) {
                return checkPage(client, key, bits, now);
            }
            return overNetworkBudget(client, key, retryMillis, budget, budgets, now);
        }

        @Override
        public ClientInfo judged(ClientInfo judged, boolean over, boolean tookOver, long now) {
            return judged; // a budget without a pass always decides: under it, the client goes on as it came
        }
    }

    /** The gate's answers to a network's verdict for a request on a pass (the pass itself within its pace). */
    private final class OnPass implements NetworkAsk.Answer {
        private final ClientInfo client;
        private final ClientKey key;
        private final ClientKey network;
        private final int bits;

        OnPass(ClientInfo client, ClientKey key, ClientKey network, int bits) {
            this.client = client;
            this.key = key;
            this.network = network;
            this.bits = bits;
        }

        @Override
        public Decision over(boolean tookOver, boolean passOver, long retryMillis, int budget, long now) {
            dropped(tookOver, now);
            return passDropped(client, key, bits, passOver, now);
        }

        @Override
        public ClientInfo judged(ClientInfo judged, boolean over, boolean tookOver, long now) {
            if (!over) {
                onPass.increment();
                return judged;
            }
            // not asked (a quiet day): the pass buys nothing more, and the client's own limits judge it
            dropped(tookOver, now);
            return judged.withPass(ClientInfo.Pass.MISSING);
        }

        private void dropped(boolean tookOver, long now) {
            passesDropped.increment();
            if (tookOver) {
                cooldowns.dropped(network, now); // the drop the network is remembered for (see decide)
            }
        }
    }

    /** A network's hit the gate answered for alone, added to the cluster's stack with the store's next flush. */
    private void countNetwork(CompiledPolicy compiled, IpAddress address, ClientKey network, boolean onPass,
                              int weight) {
        if (weight > 0 && cluster.available()) {
            cluster.countNetwork(ClientRules.addressKey(compiled, address), network, onPass, weight);
        }
    }

    /** The proof-of-work asked of a pass dropped: harder while the site is under pressure. */
    private static int harder(BrowserCheck check, boolean pressure) {
        return Math.min(MAX_BITS, check.difficulty() + (pressure ? HARDER_BITS : 0));
    }

    /** {@code check}'s budgets as one of {@code nodes} nodes applies them alone; once per policy and node count. */
    private Shares shares(BrowserCheck check, int nodes) {
        Shares known = shares;
        if (known != null && known.of() == check && known.nodes() == nodes) {
            return known;
        }
        BrowserCheck.Networks budgets = check.networks();
        Shares fresh = new Shares(check, nodes, divided(budgets.withoutPass(), nodes),
                divided(budgets.withPass(), nodes), divided(check.perPass(), nodes));
        shares = fresh;
        return fresh;
    }

    /** A network's budget as one of {@code nodes} nodes applies it alone (rounded up, as the client's limits). */
    private static Policy.HitStack divided(Policy.HitStack budget, int nodes) {
        return nodes == 1 ? budget : new Policy.HitStack(budget.windowSeconds(), Outcomes.ceilDiv(budget.maxHits(),
                nodes));
    }

    /** {@link #holding}, the cluster's client rules asked with the network's question. */
    private static Decision holdingInCluster(NetworkSlot<?> slot, Prelude.Next next, CompiledPolicy compiled,
                                             ClientInfo client, ClientKey key, IpAddress address,
                                             RouteTable.Compiled route, long now, NetworkAsk network) {
        Decision decision;
        try {
            decision = next.afterGate(compiled, client, key, address, route, now, network);
        } catch (RuntimeException | Error failure) {
            slot.release();
            throw failure;
        }
        return holding(decision, slot);
    }

    /**
     * A request over its network's concurrency limit ({@code onPass}: the limit on passes): a page is challenged (a
     * person behind a busy network can still pass), a form without a pass refused {@link Reason#PASS_REQUIRED} as
     * under any challenge, anything else refused {@link Reason#NETWORK_CONCURRENCY}. Counted, and on the network's
     * row ({@code store}'s refusals) for the snapshot.
     */
    private Decision overConcurrency(ClientStateStore<?, ?> store, ClientKey network, Request request,
                                     RouteTable.Compiled route, ClientInfo client, ClientKey key, Policy policy,
                                     boolean onPass, long now) {
        overConcurrency.increment();
        BrowserCheck check = policy.browserCheck();
        store.recordLimited(network, now, true);
        BrowserCheck.Networks budgets = check.networks();
        int limit = onPass ? budgets.maxConcurrentWithPass() : budgets.maxConcurrentWithoutPass();
        String busy = "This network already has " + limit + " requests " + (onPass ? "on passes " : "")
                + "in progress";
        if (navigation(request, route)) {
            return challenge(client, key, check.difficulty(), false, now,
                    busy + ": checking that this is a browser before serving the page.");
        }
        if (!onPass && !isRead(request.method())) {
            return outcomes.refuse(client, key, Reason.PASS_REQUIRED, -1, null, now,
                    busy + ": load a page first, then try again.");
        }
        return outcomes.refuse(client, key, Reason.NETWORK_CONCURRENCY,
                policy.refusal().retryAfterSeconds(), null, now, busy + ".");
    }

    /** The client rules' decision, holding {@code slot}: given back if they throw, else as {@link #holding} says. */
    static Decision holding(NetworkSlot<?> slot, Prelude.Next next, CompiledPolicy compiled,
                                    ClientInfo client, ClientKey key, IpAddress address, RouteTable.Compiled route,
                                    long now) {
        Decision decision;
        try {
            decision = next.afterPrelude(compiled, client, key, address, route, now);
        } catch (RuntimeException | Error failure) {
            slot.release();
            throw failure;
        }
        return holding(decision, slot);
    }

    /**
     * Hands {@code slot} to the request {@code decision} admits or parks, which gives it back when it ends (see
     * {@link Pending#holdNetworkSlot}); gives it back now when the decision refuses (the client rules' own slots went
     * back already). A cluster's decision made later gets it when it is made.
     */
    static Decision holding(Decision decision, NetworkSlot<?> slot) {
        if (decision instanceof Decision.Admit admit) {
            ((Pending<?, ?>) admit.admission()).holdNetworkSlot(slot);
        } else if (decision instanceof Decision.Wait wait) {
            ((Parked) wait.deferral()).pending.holdNetworkSlot(slot);
        } else if (decision instanceof Decision.Pending later) {
            CompletionStage<Decision> made = later.decision().thenApply(decided -> holding(decided, slot));
            // never exceptional (Decision.Pending's contract); if it were, the request would hold the slot for ever
            made.whenComplete((decided, failed) -> {
                if (failed != null) {
                    slot.release();
                }
            });
            return new Decision.Pending(later.client(), made);
        } else {
            slot.release();
        }
        return decision;
    }

    /** Whether the check asks for a pass here, whatever the network's budget: see the class comment. */
    private static boolean asking(BrowserCheck check, CompiledPolicy compiled, IpAddress address, long asn,
                                  RouteTable.Compiled route, boolean pressure) {
        return check.mode() == BrowserCheck.Mode.ALWAYS || pressure
                || route.route() != null && route.route().challenges() || compiled.alwaysChallenges(address)
                || asn != AsnTable.NONE && compiled.alwaysChallengesAs(asn);
    }

    /** The AS of {@code address} when a file is loaded and the policy uses it, else {@link AsnTable#NONE}. */
    private long asnOf(CompiledPolicy compiled, BrowserCheck.Networks budgets, IpAddress address) {
        AsnTable table = asns;
        if (table.isEmpty() || budgets.asnWithoutPass() == null && !compiled.challengesAsns()) {
            return AsnTable.NONE;
        }
        return table.lookup(address);
    }

    /** A form without a pass while the check asks its network: refused, never challenged (it cannot be replayed). */
    private Decision passRequired(ClientInfo client, ClientKey key, long now) {
        return outcomes.refuse(client, key, Reason.PASS_REQUIRED, -1, null, now,
                "This network is asked to prove it runs a browser: load a page first, then try again.");
    }

    /** A page without a pass while the check asks: the interstitial at {@code bits}. */
    private Decision checkPage(ClientInfo client, ClientKey key, int bits, long now) {
        return challenge(client, key, bits, false, now, "Checking that this is a browser before serving the page.");
    }

    /** A page whose pass was dropped (over its own pace, or its network over the budget on passes): asked again. */
    private Decision passDropped(ClientInfo client, ClientKey key, int bits, boolean overPace, long now) {
        return challenge(client, key, bits, true, now, overPace
                ? "This pass was used faster than one person browses: prove again that this is a browser."
                : "This network asked for more pages than its budget: prove again that this is a browser.");
    }

    /** Neither a page nor a form, without a pass, over its network's budget of {@code budget} (this node's share). */
    private Decision overNetworkBudget(ClientInfo client, ClientKey key, long retryMillis, int budget,
                                       BrowserCheck.Networks budgets, long now) {
        return outcomes.refuse(client, key, Reason.NETWORK_BUDGET, Outcomes.ceilSeconds(retryMillis), null, now,
                "More than " + budget + " requests without a pass from this network in "
                        + budgets.withoutPass().windowSeconds() + " s.");
    }

    /** {@code asn}'s hit stack with this claim pushed on it, or null without a budget per AS (or an AS). */
    private HitStackState<?> systemClaims(BrowserCheck.Networks budgets, long asn, ClientInfo client, int weight,
                                          long now) {
        if (asn == AsnTable.NONE || budgets.asnWithoutPass() == null || asnClaims == null) {
            return null;
        }
        return asnClaims.pushHit(asnKey(asn), client, now, budgets.asnWithoutPass(), weight);
    }

    /** What is not a page nor a form, over its AS's budget: refused as over its network's. */
    private Decision overSystem(ClientInfo client, ClientKey key, BrowserCheck.Networks budgets, long asn,
                                HitStackState<?> systemClaims, long now) {
        return outcomes.refuse(client, key, Reason.NETWORK_BUDGET,
                Outcomes.ceilSeconds(systemClaims.millisUntilBelow()), null, now, "More than "
                        + budgets.asnWithoutPass().maxHits() + " requests without a pass from this network's "
                        + "autonomous system (AS " + asn + ") in " + budgets.asnWithoutPass().windowSeconds() + " s.");
    }

    private static ClientKey asnKey(long asn) {
        return new ClientKey(IpAddress.ofIpv6(ASN_PREFIX, asn), "");
    }

    /**
     * Whether the network of {@code address} may earn a pass now: 0 when it may (counted as earned), otherwise how
     * long it waits ({@link PassCooldowns}; counted as withheld).
     */
    long earn(BrowserCheck check, IpAddress address, boolean weak, long now) {
        BrowserCheck.Networks budgets = check.networks();
        long wait = cooldowns.earn(ClientKey.ofAddress(address, budgets.ipv4Prefix(), budgets.ipv6Prefix()),
                budgets.passCooldownSeconds(), now);
        if (wait > 0) {
            passesWithheld.increment();
        } else {
            (weak ? weakPassesEarned : passesEarned).increment();
            outcomes.funnel(address, weak ? FunnelStep.WEAK_PASS_EARNED : FunnelStep.PASS_EARNED, now);
        }
        return wait;
    }

    private Decision challenge(ClientInfo client, ClientKey key, int bits, boolean dropPass, long now, String detail) {
        return outcomes.challenge(client, key, bits, dropPass, now, detail);
    }

    /**
     * Under pressure once the requests in flight (this node's and, in a cluster, the others' as last read) reach the
     * threshold, and for {@code pressureHoldSeconds} after the last time they did.
     */
    private boolean underPressure(BrowserCheck check, Policy.Load limits, long now) {
        int threshold = check.pressureInFlight() > 0 ? check.pressureInFlight() : limits.maxActive();
        if ((long) load.inFlight() + load.elsewhere() >= threshold) {
            long until = now + check.pressureHoldSeconds() * 1000L;
            if (until > pressureUntil.get()) {
                pressureUntil.set(until);
            }
            return true;
        }
        return now < pressureUntil.get();
    }

    /** Whether the site counts as under pressure at {@code now} (for the snapshot). */
    boolean underPressure(long now) {
        return now < pressureUntil.get();
    }

    /**
     * A page navigation: a read that weighs something (the default route gives assets weight 0), that the browser
     * does not say is a fetch, an XHR, an image or a script ({@code Sec-Fetch-Mode}, {@code Sec-Fetch-Dest}), and that
     * accepts HTML. A client that sends no such header at all (a plain HTTP client) is asked like a browser would be.
     */
    static boolean navigation(Request request, RouteTable.Compiled route) {
        if (!isRead(request.method()) || route.weight() == 0) {
            return false;
        }
        String mode = request.secFetchMode();
        if (mode != null && !mode.equalsIgnoreCase("navigate")) {
            return false;
        }
        String dest = request.secFetchDest();
        if (dest != null && !dest.equalsIgnoreCase("document")) {
            return false;
        }
        String accept = request.accept();
        if (accept == null) {
            return true;
        }
        String lower = accept.toLowerCase(Locale.ROOT);
        return lower.contains("text/html") || lower.contains("*/*");
    }

    private static boolean isRead(String method) {
        return "GET".equals(method) || "HEAD".equals(method);
    }

    private static ClientKey passKey(Pass pass) {
        long hash = 0xcbf2_9ce4_8422_2325L;
        String id = pass.id();
        for (int i = 0; i < id.length(); i++) {
            hash = (hash ^ id.charAt(i)) * 0x100_0000_01b3L;
        }
        return new ClientKey(IpAddress.ofIpv6(PASS_PREFIX, hash), "");
    }

    /** An answer to a challenge from {@code address} was refused at the pass endpoint. */
    void refusedAnswer(IpAddress address, long now) {
        answersRefused.increment();
        outcomes.funnel(address, FunnelStep.ANSWER_REFUSED, now);
    }

    /** The check's counters since the engine started, and whether the site is under pressure now. */
    BrowserCheckCounts counts(BrowserCheck check, long now) {
        return new BrowserCheckCounts(check.mode(), underPressure(now), outcomes.challenged(),
                passesEarned.sum(), weakPassesEarned.sum(), answersRefused.sum(), onPass.sum(), passesDropped.sum(),
                passStacks.tracked(), passesWithheld.sum(), check.alwaysChallenge(), overConcurrency.sum(),
                busiestNetworks(now), new ClientTableStats(claimsWithoutPass.tracked() + requestsOnPass.tracked(),
                claimsWithoutPass.capacity() + requestsOnPass.capacity(),
                claimsWithoutPass.evicted() + requestsOnPass.evicted()), check.alwaysChallengeAsns());
    }

    /**
     * The networks with the most requests in flight now, or over a concurrency limit in the last minute, from both
     * stores (one row per network), the most in flight first.
     */
    private List<NetworkInFlight> busiestNetworks(long now) {
        int limit = BrowserCheckCounts.BUSIEST_NETWORKS;
        long since = now - Policy.HitStack.MAX_WINDOW_SECONDS * 1000L;
        Map<ClientKey, int[]> rows = new HashMap<>();
        for (ClientSample sample : claimsWithoutPass.mostInFlight(limit, now, since)) {
            int[] row = rows.computeIfAbsent(sample.key(), k -> new int[3]);
            row[0] += sample.inFlight();
            row[2] += sum(sample.refusedPerSecond());
        }
        for (ClientSample sample : requestsOnPass.mostInFlight(limit, now, since)) {
            int[] row = rows.computeIfAbsent(sample.key(), k -> new int[3]);
            row[1] += sample.inFlight();
            row[2] += sum(sample.refusedPerSecond());
        }
        return rows.entrySet().stream()
                .map(e -> new NetworkInFlight(e.getKey().ip() + "/" + (e.getKey().prefixBits() & 0xFF),
                        e.getValue()[0], e.getValue()[1], e.getValue()[2]))
                .sorted(Comparator.comparingInt((NetworkInFlight row) -> row.withoutPass() + row.onPass()).reversed()
                        .thenComparing(Comparator.comparingLong(NetworkInFlight::limitedLastMinute).reversed())
                        .thenComparing(NetworkInFlight::network))
                .limit(limit).toList();
    }

    private static int sum(int[] values) {
        int total = 0;
        for (int value : values) {
            total += value;
        }
        return total;
    }
}
