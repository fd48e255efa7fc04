package io.sluice.server.demo.testkit;

import java.time.Duration;

/**
 * The one way a test waits for something asynchronous: it polls the condition until it holds, and fails after its
 * patience saying what it waited for. No test sleeps a fixed time for what it can ask. (A copy of the server tests'
 * {@code io.sluice.server.testkit.Await}: the demo's tests cannot see the server's.)
 */
public final class Await {
    /** Generous (real I/O, real processes on a loaded two-core machine): only a failing test waits it out. */
    public static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final long POLL_MILLIS = 10;

    private Await() {
    }

    /** What a test waits for. An exception it throws ends the wait and fails the test. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** Polls until the condition holds; fails after {@link #PATIENCE}. */
    public static void await(Condition condition, String what) {
        await(PATIENCE, condition, what);
    }

    /** Polls until the condition holds; fails after {@code patience}. */
    public static void await(Duration patience, Condition condition, String what) {
        if (!within(patience, condition)) {
            throw new AssertionError("waited " + patience + " for " + what);
        }
    }

    /** Whether the condition held within {@code bound}, polled: for a test whose claim is the bound. */
    public static boolean within(Duration bound, Condition condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            if (holds(condition)) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting", e);
            }
        }
    }

    private static boolean holds(Condition condition) {
        try {
            return condition.holds();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
