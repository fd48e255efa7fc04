package io.sluice.crawl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class SlidingWindowGovernorTest {
    private final MutableClock clock = new MutableClock();
    /** Tasks the governor started and that have not finished yet: each holds an active place. */
    private final List<Runnable> running = new ArrayList<>();

    private SlidingWindowGovernor governor(int perWindow, int maxActive, int maxQueued) {
        return new SlidingWindowGovernor(new SlidingWindowGovernor.Limits(perWindow, Duration.ofSeconds(10),
                maxActive, maxQueued, Duration.ofMillis(100)), clock, running::add);
    }

    private void finishAll() {
        List<Runnable> now = new ArrayList<>(running);
        running.clear();
        now.forEach(Runnable::run);
    }

    @Test
    void nStartsPerWindowAndTheNextWaitsExactlyUntilTheOldestLeavesIt() {
        SlidingWindowGovernor governor = governor(3, 10, 100);
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            results.add(governor.submit(() -> n));
        }
        assertThat(governor.poll()).isEqualTo(3);
        clock.advanceMillis(4_000);
        assertThat(governor.poll()).as("still inside the window").isZero();
        assertThat(governor.untilWindowOpens()).isEqualTo(Duration.ofMillis(6_000));
        clock.advanceMillis(5_999);
        assertThat(governor.poll()).as("1 ms early").isZero();
        clock.advanceMillis(1);
        assertThat(governor.poll()).as("the first three starts leave together").isEqualTo(2);
        finishAll();
        assertThat(results).allSatisfy(result -> assertThat(result).isDone());
        assertThat(results.get(4).join()).isEqualTo(4);
    }

    @Test
    void theWindowSlidesOverStartTimesNotFixedBuckets() {
        SlidingWindowGovernor governor = governor(2, 10, 100);
        governor.submit(() -> 1);
        governor.poll();
        clock.advanceMillis(9_000);
        governor.submit(() -> 2);
        governor.submit(() -> 3);
        assertThat(governor.poll()).isEqualTo(1);
        clock.advanceMillis(1_000);
        assertThat(governor.poll()).as("the first start left; the second is still in").isEqualTo(1);
        finishAll();
    }

    @Test
    void atMostMActiveAndAFinishedTaskFreesItsPlace() {
        SlidingWindowGovernor governor = governor(100, 2, 100);
        for (int i = 0; i < 4; i++) {
            governor.submit(() -> "x");
        }
        assertThat(governor.poll()).isEqualTo(2);
        assertThat(governor.active()).isEqualTo(2);
        assertThat(governor.poll()).isZero();
        running.remove(0).run();
        assertThat(governor.poll()).isEqualTo(1);
        assertThat(governor.queued()).isEqualTo(1);
        finishAll();
    }

    @Test
    void tasksStartInTheOrderTheyCame() {
        SlidingWindowGovernor governor = governor(1, 1, 100);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int n = i;
            governor.submit(() -> order.add(n));
        }
        for (int i = 0; i < 4; i++) {
            governor.poll();
            finishAll();
            clock.advanceMillis(10_000);
        }
        assertThat(order).containsExactly(0, 1, 2, 3);
    }

    @Test
    void suspendedNothingStartsAndTheQueueIsKept() {
        SlidingWindowGovernor governor = governor(10, 10, 100);
        governor.suspend();
        governor.submit(() -> 1);
        governor.submit(() -> 2);
        assertThat(governor.poll()).isZero();
        assertThat(governor.queued()).isEqualTo(2);
        governor.resume();
        assertThat(governor.poll()).isEqualTo(2);
        finishAll();
    }

    @Test
    void aFullQueueRejectsAndAFailingTaskFailsItsFuture() {
        SlidingWindowGovernor governor = governor(10, 10, 1);
        CompletableFuture<Object> failing = governor.submit(() -> {
            throw new IllegalStateException("site down");
        });
        assertThatThrownBy(() -> governor.submit(() -> 2)).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("queue is full");
        governor.poll();
        finishAll();
        assertThat(failing).isCompletedExceptionally();
        assertThat(governor.active()).isZero();
    }

    @Test
    void closingCancelsWhatIsStillQueued() {
        SlidingWindowGovernor governor = governor(1, 1, 10);
        governor.submit(() -> 1);
        CompletableFuture<Integer> waiting = governor.submit(() -> 2);
        governor.poll();
        governor.close();
        assertThat(waiting).isCancelled();
        finishAll();
    }
}
