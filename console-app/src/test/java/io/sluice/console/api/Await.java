package io.sluice.console.api;

import java.time.Duration;
import java.util.Optional;

/** Polls a server until it says what a test waits for (real servers, real I/O: no clock to advance). */
final class Await {
    private Await() {
    }

    /** A call that may fail while the server is still getting there. */
    interface Call<T> {
        Optional<T> get() throws Exception;
    }

    static <T> T value(Duration patience, Call<T> call, String what) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                Optional<T> value = call.get();
                if (value.isPresent()) {
                    return value.get();
                }
            } catch (AdminException e) {
                last = e;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("waited " + patience + " for " + what, last);
    }
}
