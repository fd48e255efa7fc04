package io.sluice.engine;

import io.sluice.engine.policy.Policy;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A request parked in a wait ({@link Decision.Wait}): resume and cancel bookkeeping, exactly one of them taking
 * effect, once. On resume a pause or ban installed meanwhile refuses it; else what is left of the rules decides,
 * under the policy live then.
 */
abstract sealed class Parked implements Decision.Deferral {
    private static final int WAITING = 0;
    private static final int RESUMED = 1;
    private static final int CANCELLED = 2;
    final Outcomes outcomes;
    final Pending<?, ?> pending;
    private final AtomicInteger state = new AtomicInteger(WAITING);

    Parked(Outcomes outcomes, Pending<?, ?> pending) {
        this.outcomes = outcomes;
        this.pending = pending;
    }

    @Override
    public final Decision resume() {
        if (!state.compareAndSet(WAITING, RESUMED)) {
            throw new IllegalStateException("this wait was already " + (state.get() == RESUMED
                    ? "resumed" : "cancelled"));
        }
        leaveWait();
        return outcomes.resumed(pending, this);
    }

    @Override
    public final void cancel() {
        if (state.compareAndSet(WAITING, CANCELLED)) {
            leaveWait();
            pending.release();
        }
    }

    abstract void leaveWait();

    abstract Decision proceed(Policy policy, long now);

    /** Rule 7's wait: afterwards the remaining rule (load deferral) decides. */
    static final class Delay extends Parked {
        Delay(Outcomes outcomes, Pending<?, ?> pending) {
            super(outcomes, pending);
        }

        @Override
        void leaveWait() {
            // a progressive delay holds no waiting place
        }

        @Override
        Decision proceed(Policy policy, long now) {
            return outcomes.loadStage(pending, policy, now, true);
        }
    }

    /** Rule 6's wait: holds a waiting place; afterwards admitted if the load allows, else refused. */
    static final class Load extends Parked {
        Load(Outcomes outcomes, Pending<?, ?> pending) {
            super(outcomes, pending);
        }

        @Override
        void leaveWait() {
            outcomes.load().endWait();
        }

        @Override
        Decision proceed(Policy policy, long now) {
            if (outcomes.load().tryEnter(policy.load().maxActive())) {
                return outcomes.admit(pending, now, true);
            }
            pending.release();
            return outcomes.refuse(pending.client, pending.key, Reason.LOAD, policy.refusal().retryAfterSeconds(),
                    pending.rate, now, "The site is busy: " + policy.load().maxActive()
                            + " requests are in progress.");
        }
    }
}
