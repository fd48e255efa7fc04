package io.sluice.engine;

import java.util.concurrent.CompletionStage;

/**
 * The engine's answer about one request: admit it, wait and ask again, or refuse it.
 * Every admitted request must later be completed exactly once through its {@link Admission};
 * every wait must be resumed or cancelled exactly once through its {@link Deferral}.
 */
public sealed interface Decision permits Decision.Admit, Decision.Wait, Decision.Refuse, Decision.Pending {

    ClientInfo client();

    /** Send the request upstream; call {@code admission.complete(...)} when it finishes. */
    record Admit(ClientInfo client, Admission admission, RateLimitStatus rateLimit) implements Decision {
    }

    /**
     * Hold the request for {@code waitMillis} without holding a thread, then call
     * {@code deferral.resume()} for the final answer (or {@code deferral.cancel()} if the client left).
     *
     * @param reason {@link Reason#LOAD} for load deferral, {@link Reason#DELAYED} for progressive delay
     */
    record Wait(ClientInfo client, Reason reason, long waitMillis, Deferral deferral) implements Decision {
    }

    /**
     * Answer with {@code status} (403 or 503) and, when {@code retryAfterSeconds >= 0}, a
     * {@code Retry-After} header.
     *
     * @param rateLimit      the client's quota when it is known, else null
     * @param detail         one human sentence on why, for the refusal page
     * @param challengeBits  for {@link Reason#CHALLENGE}: the proof-of-work's difficulty the interstitial asks for;
     *                       0 otherwise
     * @param dropPass       for {@link Reason#CHALLENGE}: the request's pass is no longer good (over its limits, its
     *                       network over budget): the answer clears the cookie
     */
    record Refuse(ClientInfo client, Reason reason, int status, long retryAfterSeconds,
                  RateLimitStatus rateLimit, String detail, int challengeBits, boolean dropPass) implements Decision {

        /** A refusal that is not a challenge. */
        public Refuse(ClientInfo client, Reason reason, int status, long retryAfterSeconds, RateLimitStatus rateLimit,
                      String detail) {
            this(client, reason, status, retryAfterSeconds, rateLimit, detail, 0, false);
        }
    }

    /**
     * Not decided yet: the engine shares its per-client state with other nodes (cluster mode) and asked the shared
     * store, which answers within its deadline (tens of milliseconds) or is given up on. Park the request without
     * holding a thread and act on the decision {@code decision} completes with: an {@link Admit}, a {@link Wait} or a
     * {@link Refuse}, never another {@code Pending}. It completes on the thread the store answers on (the server's
     * Redis store: Redis's I/O thread, several answers in a row), so hand long or blocking work to a thread of its
     * own. It never completes exceptionally. Only an engine built with a
     * shared store answers this; a single node's engine never does.
     */
    record Pending(ClientInfo client, CompletionStage<Decision> decision) implements Decision {
    }

    /** The in-flight slot of an admitted request. */
    interface Admission {
        /**
         * The request finished (or failed); frees its load and concurrency slots. Idempotent.
         *
         * @param status              the status sent to the client
         * @param upstreamLatencyNanos time spent waiting for the upstream, or -1 if it was never reached
         */
        void complete(int status, long upstreamLatencyNanos);

        /**
         * {@link #complete(int, long)} with what the request cost the upstream (time, bytes), counted per client,
         * address, network, class and route in the snapshot. A front end that measures cost calls this one instead;
         * an admission that does not count costs (the default) only completes.
         *
         * @param cost as measured at the front end, or null when unknown
         */
        default void complete(int status, long upstreamLatencyNanos, RequestCost cost) {
            complete(status, upstreamLatencyNanos);
        }
    }

    /** A request parked by a {@link Wait}. */
    interface Deferral {
        /** The wait is over: the final decision (never another wait for load deferral). */
        Decision resume();

        /** The client went away while waiting; frees the waiting slot. Idempotent. */
        void cancel();
    }
}
