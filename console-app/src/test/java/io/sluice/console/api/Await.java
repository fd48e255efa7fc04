package io.sluice.console.api;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.testfx.util.WaitForAsyncUtils;

/** Polls a server until it says what a test waits for (real servers, real I/O: no clock to advance). */
final class Await {
    private Await() {
    }

    /** A call that may fail while the server is still getting there. */
    interface Call<T> {
        Optional<T> get() throws Exception;
    }

    /** Polls with the console tests' one await, TestFX's {@link WaitForAsyncUtils#waitFor}. */
    static <T> T value(Duration patience, Call<T> call, String what) throws Exception {
        AtomicReference<T> value = new AtomicReference<>();
        AtomicReference<AdminException> last = new AtomicReference<>();
        try {
            WaitForAsyncUtils.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS, () -> {
                try {
                    call.get().ifPresent(value::set);
                } catch (AdminException e) {
                    last.set(e);
                }
                return value.get() != null;
            });
        } catch (TimeoutException e) {
            throw new AssertionError("waited " + patience + " for " + what, last.get());
        }
        return value.get();
    }
}
