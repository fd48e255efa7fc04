package io.sluice.engine.store;

import io.sluice.engine.Reason;
import io.sluice.engine.policy.Policy;
import java.util.concurrent.CompletableFuture;

/**
 * Rules 3-5 (crawler spacing, the hit stacks, per-client and per-address concurrency) decided by a store that
 * several nodes share (Redis, in cluster mode), in one asynchronous call per request. The engine asks it through
 * {@link #admit} and returns a {@link io.sluice.engine.Decision.Pending} that completes when the answer arrives:
 * no thread waits on the store.
 *
 * <p>It is the other strategy beside the engine's own local store ({@code ClientStateStore}), chosen when the
 * engine is built, not a replacement of it: a node with a shared store keeps its local stores for its own
 * telemetry (the heatmap shows this node's view of its clients) and for deciding alone, with limits divided by the
 * nodes it last saw, while the shared store is unavailable ({@link #available()} false, or a call failed or missed
 * its deadline).
 *
 * @param <S> the store's record of the slots one admitted request holds (its lease), handed back once to
 *            {@link #release}
 */
public interface SharedClientStore<S> {

    /**
     * One request's per-client rules, as the live policy states them.
     *
     * @param client            the client (address and user agent)
     * @param address           its address aggregate's key
     * @param route             the matched route's id when that route has limits of its own, else null
     * @param weight            what the request weighs in the hit stacks (0 for a static asset)
     * @param clientLimits      the client's hit stack
     * @param routeLimits       the route's hit stack, or null
     * @param addressLimits     the address aggregate's hit stack
     * @param maxConcurrent     the client's requests in flight at most
     * @param addressMaxConcurrent the address's requests in flight at most
     * @param crawler           the crawler's identity (its crawler-list entry) for a {@code CRAWLER}, else null
     * @param perCrawlerMillis  rule 3's gap for one crawler
     * @param allCrawlersMillis rule 3's gap for any crawler
     * @param policyVersion     the policy version the limits come from (a cached answer is only reused under it)
     * @param nowMillis         the engine's time of the decision (the store judges windows on its own clock)
     * @param network           the client's network (the browser check's prefixes; null only from a caller that
     *                          knows none): a store spread over shards keeps a client's keys with its network's
     * @param networkBudget     the browser check's question about that network's budget, judged in the same call
     *                          before the client's rules, or null when the check asks none
     */
    record Ask(ClientKey client, ClientKey address, String route, int weight, Policy.HitStack clientLimits,
               Policy.HitStack routeLimits, Policy.HitStack addressLimits, int maxConcurrent,
               int addressMaxConcurrent, String crawler, long perCrawlerMillis, long allCrawlersMillis,
               long policyVersion, long nowMillis, ClientKey network, NetworkBudget networkBudget) {

        /** An ask with no network (a store's own tests). */
        public Ask(ClientKey client, ClientKey address, String route, int weight, Policy.HitStack clientLimits,
                   Policy.HitStack routeLimits, Policy.HitStack addressLimits, int maxConcurrent,
                   int addressMaxConcurrent, String crawler, long perCrawlerMillis, long allCrawlersMillis,
                   long policyVersion, long nowMillis) {
            this(client, address, route, weight, clientLimits, routeLimits, addressLimits, maxConcurrent,
                    addressMaxConcurrent, crawler, perCrawlerMillis, allCrawlersMillis, policyVersion, nowMillis,
                    null, null);
        }
    }

    /**
     * The browser check's question about the network of an {@link Ask} (docs/manual/browser-check.md, "Networks"):
     * the request's weight is pushed on the network's hit stack of requests without a pass, or of requests on a pass,
     * before the client's rules are judged, and the answer says whether that stack went over {@code limits}.
     *
     * @param onPass   the stack of requests on a pass (else of claims without one)
     * @param limits   the network's budget, as the policy states it (the store counts every node's requests)
     * @param decisive whether a network over its budget ends the decision: the answer is then
     *                 {@link Reason#NETWORK_BUDGET}, with no client rule judged and nothing else counted (the browser
     *                 check turns it into a challenge or a refusal); else the client's rules are judged all the same
     * @param pass     on a pass, its id: the pass's own hit stack (an identity, whatever address it comes from) is
     *                 pushed and judged with its network's, over {@code perPass} as over the budget; else null
     * @param perPass  a pass's pace (the policy's {@code perPass}), or null without a pass
     */
    record NetworkBudget(boolean onPass, Policy.HitStack limits, boolean decisive, String pass,
                         Policy.HitStack perPass) {

        /** A budget asked about without a pass's own stack. */
        public NetworkBudget(boolean onPass, Policy.HitStack limits, boolean decisive) {
            this(onPass, limits, decisive, null, null);
        }
    }

    /**
     * The store's answer.
     *
     * @param refusal          the first rule that refuses, in the order of docs/architecture.md ("Rules"); null when
     *                         every rule passed and {@code lease} holds the request's slots
     * @param retryAfterMillis when refused by a rule with a known end (spacing, hit stacks), the time until it ends
     * @param hitsInWindow     the client's hits in its window, this one included (every node's)
     * @param millisUntilReset time until the oldest of those hits leaves the window
     * @param lease            the slots taken when admitted (give back once with {@link #release}), else null
     * @param networkOver      the ask's network was over its budget ({@link Ask#networkBudget}), or its pass over its
     *                         pace; a decisive budget then answers {@link Reason#NETWORK_BUDGET} with the time until
     *                         the network is below it
     * @param networkTookOver  this request's weight is what took the network (or the pass) over
     * @param passOver         the pass itself was over its pace
     */
    record Verdict<S>(Reason refusal, long retryAfterMillis, int hitsInWindow, long millisUntilReset, S lease,
                      boolean networkOver, boolean networkTookOver, boolean passOver) {

        /** A verdict about a client whose network was not asked about, or was under its budget. */
        public Verdict(Reason refusal, long retryAfterMillis, int hitsInWindow, long millisUntilReset, S lease) {
            this(refusal, retryAfterMillis, hitsInWindow, millisUntilReset, lease, false, false, false);
        }

        public boolean admitted() {
            return refusal == null;
        }
    }

    /**
     * Whether to ask the store at all: false while it is known to be unreachable or slow, so the engine decides
     * alone at once instead of waiting for a deadline on every request.
     */
    boolean available();

    /** The nodes sharing the limits as last seen, this one included (at least 1): what local limits divide by. */
    int nodes();

    /**
     * Pushes the request's hits and judges rules 3-5 atomically for every node; takes the concurrency slots and
     * the crawler's turn only when all of them pass. Never blocks. The future completes with the verdict (at once
     * when the store answers from what it already knows, such as a client refused until a known time), or
     * exceptionally when the store did not answer within its deadline: the engine then decides alone.
     */
    CompletableFuture<Verdict<S>> admit(Ask ask);

    /**
     * Gives an admitted request's slots back, once; never blocks.
     *
     * @param served false when the request was not served after all (a later rule refused it, or it was cancelled
     *               while waiting): the crawler's turn is given back too, unless another was served since
     */
    void release(S lease, boolean served);

    /**
     * An allow-listed request: exempt from the rules, so nothing is judged, but its weight counts on its client's own
     * hit stack as it does on a single node's, so that a client taken off the allow-list is limited at once by what
     * it sent meanwhile, on whichever node it lands. Never blocks; the store may add it up and send it later (within
     * a heartbeat).
     */
    void countExempt(Ask ask);

    /**
     * A hit on a network's budget that the browser check decided on without asking (a page challenged while the check
     * asks for a pass anyway, a request over the network's concurrency on this node), counted as {@link #countExempt}
     * counts: added to the network's shared stack within a heartbeat, so the budget stays exact across nodes. A store
     * that keeps no networks ignores it.
     *
     * @param address the client's address aggregate ({@link Ask#address})
     * @param network the client's network ({@link Ask#network})
     */
    default void countNetwork(ClientKey address, ClientKey network, boolean onPass, int weight) {
    }
}
