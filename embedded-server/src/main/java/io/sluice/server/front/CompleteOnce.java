package io.sluice.server.front;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.eclipse.jetty.util.Callback;

/**
 * A request's callback that takes effect once: the first {@code succeeded} or {@code failed} runs
 * {@code first} and then reaches the delegate (even if {@code first} throws); later ones are ignored.
 *
 * <p>Why: a request can be finished from several places (the proxy when the upstream answers, a failure
 * listener when the connection breaks while parked, the error path when a handler throws after it
 * already took the callback). Completing Jetty's callback twice is a bug, and an admission must be
 * reported to the engine exactly once or its load slot leaks.
 */
final class CompleteOnce implements Callback {
    private static final Runnable NOTHING = () -> { };
    private static final VarHandle DONE;

    static {
        try {
            DONE = MethodHandles.lookup().findVarHandle(CompleteOnce.class, "done", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Callback delegate;
    private final Runnable first;
    /** 1 once completed; only through {@link #DONE}. */
    @SuppressWarnings("unused")
    private volatile int done;

    CompleteOnce(Callback delegate) {
        this(delegate, NOTHING);
    }

    /**
     * @param first runs before the delegate is completed, on the first completion only
     */
    CompleteOnce(Callback delegate, Runnable first) {
        this.delegate = delegate;
        this.first = first;
    }

    @Override
    public void succeeded() {
        if (DONE.compareAndSet(this, 0, 1)) {
            try {
                first.run();
            } finally {
                delegate.succeeded();
            }
        }
    }

    @Override
    public void failed(Throwable failure) {
        if (DONE.compareAndSet(this, 0, 1)) {
            try {
                first.run();
            } finally {
                delegate.failed(failure);
            }
        }
    }

    @Override
    public InvocationType getInvocationType() {
        return delegate.getInvocationType();
    }
}
