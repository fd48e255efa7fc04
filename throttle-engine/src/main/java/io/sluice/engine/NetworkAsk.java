package io.sluice.engine;

import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;

/**
 * The browser check's question about a network's budget on a node of a cluster ({@link BrowserGate}), carried to the
 * cluster's client rules ({@link SharedRules}), which ask it of the shared store in the same call as the client's
 * rules: one round trip decides both, and a fleet spread over the nodes meets its network's budget once, not once per
 * node. The answer comes back to the gate through {@link Answer}: a network over a decisive budget is the gate's to
 * answer (a page challenged, anything else refused), one under it (or over a budget that does not decide) goes on to
 * the client's rules.
 *
 * <p>The gate pushed the request on this node's own stack of the network too, against the budget divided by the nodes
 * last seen: {@code overAlone} and the rest are that stack's verdict, which decides when the shared store cannot
 * answer, as a client's local stacks do.
 *
 * @param network        the client's network (the browser check's prefixes)
 * @param budget         the question, as the shared store asks it: which stack, the policy's budget, decisive or not
 * @param overAlone      this node's own stack is over its share of the budget (or, on a pass, the pass's own stack
 *                       over its share of the pace)
 * @param tookOverAlone  and this request took it over
 * @param passOverAlone  on a pass, the pass's own stack is over its share of the pace
 * @param retryAlone     when this node's own stack is below its share again (ms)
 * @param shareAlone     this node's share of the budget (its most hits in the window)
 * @param answer         the gate's answers
 */
record NetworkAsk(ClientKey network, SharedClientStore.NetworkBudget budget, boolean overAlone, boolean tookOverAlone,
                  boolean passOverAlone, long retryAlone, int shareAlone, Answer answer) {

    /** What the browser check answers once the network's stack is judged. */
    interface Answer {
        /**
         * A decisive budget went over: the request's decision (a challenge or a refusal), nothing of it counted by the
         * client's rules.
         *
         * @param tookOver    this request took the network (or the pass) over
         * @param passOver    the pass itself was over its pace
         * @param retryMillis when the network is below its budget again
         * @param budget      the budget that judged (the policy's, or this node's share of it when alone)
         */
        Decision over(boolean tookOver, boolean passOver, long retryMillis, int budget, long now);

        /** The client as the client's rules judge it, the network over its budget or not (a decisive one: not). */
        ClientInfo judged(ClientInfo client, boolean over, boolean tookOver, long now);
    }
}
