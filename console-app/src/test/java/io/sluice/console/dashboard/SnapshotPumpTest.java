package io.sluice.console.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.sluice.console.api.AdminException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SnapshotPumpTest {
    /** The UI thread's queue, run by hand so the test decides when the UI catches up. */
    private final Queue<Runnable> uiQueue = new ArrayDeque<>();
    private final List<String> shown = new ArrayList<>();
    private final List<AdminException> failures = new ArrayList<>();
    private final AtomicInteger fetches = new AtomicInteger();

    private SnapshotPump<String> pump(SnapshotPump.Fetch<String> source) {
        return new SnapshotPump<>(String.class, source, Duration.ofHours(1), uiQueue::add, shown::add, failures::add);
    }

    private void uiCatchesUp() {
        while (!uiQueue.isEmpty()) {
            uiQueue.poll().run();
        }
    }

    @Test
    void aSlowUiGetsOneHandOverWithOnlyTheNewestValue() {
        try (SnapshotPump<String> pump = pump(() -> "snapshot " + fetches.incrementAndGet())) {
            pump.fetch();
            pump.fetch();
            pump.fetch();

            assertThat(uiQueue).hasSize(1);
            uiCatchesUp();
            assertThat(shown).containsExactly("snapshot 3");

            pump.fetch();
            uiCatchesUp();
            assertThat(shown).containsExactly("snapshot 3", "snapshot 4");
        }
    }

    @Test
    void aFailedFetchIsReportedAndTheNextSuccessReplacesIt() {
        AdminException down = new AdminException(AdminException.Kind.UNREACHABLE, "connection refused");
        try (SnapshotPump<String> pump = pump(() -> {
            if (fetches.incrementAndGet() == 1) {
                throw down;
            }
            return "back";
        })) {
            pump.fetch();
            uiCatchesUp();
            pump.fetch();
            uiCatchesUp();

            assertThat(failures).containsExactly(down);
            assertThat(shown).containsExactly("back");
        }
    }

    @Test
    void anActionFinishingAfterTheViewClosedAsksForARefreshThatIsQuietlyDropped() {
        SnapshotPump<String> pump = pump(() -> "snapshot " + fetches.incrementAndGet());
        pump.close();

        assertThatCode(pump::refreshSoon).doesNotThrowAnyException();
        assertThat(fetches).hasValue(0);
        assertThat(uiQueue).isEmpty();
    }
}
