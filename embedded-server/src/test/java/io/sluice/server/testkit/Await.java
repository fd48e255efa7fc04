package io.sluice.server.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for something another thread or process does (a line written, a server up): polls the condition, never a
 * fixed sleep, and fails naming what did not happen and what was seen meanwhile.
 */
public final class Await {
    /** Long enough for a loaded build machine; a condition that holds returns at once. */
    public static final Duration PATIENCE = Duration.ofSeconds(20);

    private Await() {
    }

    /** Polls {@code condition} until it holds; fails after {@link #PATIENCE}. */
    public static void until(BooleanSupplier condition, String what) {
        until(condition, what, () -> "");
    }

    /** Polls {@code condition} until it holds; fails after {@link #PATIENCE}, with {@code seen} in the message. */
    public static void until(BooleanSupplier condition, String what, Supplier<String> seen) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                String context = seen.get();
                throw new AssertionError("waited " + PATIENCE.toSeconds() + " s for " + what
                        + (context.isEmpty() ? "" : "; seen: " + context));
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
