package io.sluice.console.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.sluice.console.api.AdminException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class FeedTest {
    /** The UI thread's queue, run by hand so the test decides when the UI catches up. */
    private final Queue<Runnable> uiQueue = new ArrayDeque<>();
    private final List<String> shown = new ArrayList<>();
    private final List<AdminException> failures = new ArrayList<>();
    private final AtomicInteger fetches = new AtomicInteger();

    /** Background work at once, the UI's share queued until {@link #uiCatchesUp()}. */
    private final UiExecutor slowUi = new UiExecutor() {
        private final CurrentThreadUiExecutor direct = new CurrentThreadUiExecutor();

        @Override
        public <T> void run(Work<T> work, Consumer<? super T> onDone, Consumer<? super AdminException> onFailure) {
            direct.run(work, onDone, onFailure);
        }

        @Override
        public void onUiThread(Runnable action) {
            uiQueue.add(action);
        }

        @Override
        public Periodic every(Duration period, Runnable work) {
            return direct.every(period, work);
        }

        @Override
        public void background(Runnable work) {
            direct.background(work);
        }

        @Override
        public void close() {
            direct.close();
        }
    };

    private Feed<String> feed(UiExecutor.Work<String> source) {
        Feed<String> feed = new Feed<>(source, Duration.ofHours(1), slowUi);
        feed.subscribe(shown::add, failures::add);
        return feed;
    }

    private void uiCatchesUp() {
        while (!uiQueue.isEmpty()) {
            uiQueue.poll().run();
        }
    }

    @Test
    void aSlowUiGetsOneHandOverWithOnlyTheNewestValue() {
        try (Feed<String> feed = feed(() -> "snapshot " + fetches.incrementAndGet())) {
            feed.fetch();
            feed.fetch();
            feed.fetch();

            assertThat(uiQueue).hasSize(1);
            uiCatchesUp();
            assertThat(shown).containsExactly("snapshot 3");

            feed.fetch();
            uiCatchesUp();
            assertThat(shown).containsExactly("snapshot 3", "snapshot 4");
            assertThat(feed.lastValue()).isEqualTo("snapshot 4");
        }
    }

    @Test
    void aFailedFetchIsReportedAndTheNextSuccessReplacesIt() {
        AdminException down = new AdminException(AdminException.Kind.UNREACHABLE, "connection refused");
        try (Feed<String> feed = feed(() -> {
            if (fetches.incrementAndGet() == 1) {
                throw down;
            }
            return "back";
        })) {
            feed.fetch();
            uiCatchesUp();
            feed.fetch();
            uiCatchesUp();

            assertThat(failures).containsExactly(down);
            assertThat(shown).containsExactly("back");
        }
    }

    @Test
    void theScheduleFetchesEveryPeriodAndEverySubscriberIsTold() {
        CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
        List<String> second = new ArrayList<>();
        try (Feed<String> feed = new Feed<>(() -> "snapshot " + fetches.incrementAndGet(), Duration.ofSeconds(1), ui)) {
            feed.subscribe(shown::add, failures::add);
            feed.subscribe(second::add, failures::add);
            feed.start();
            ui.tick();
            ui.tick();

            assertThat(shown).containsExactly("snapshot 1", "snapshot 2");
            assertThat(second).isEqualTo(shown);
        }
    }

    @Test
    void aSlowServerIsNotAskedTwiceAtOnceAndWhatWasAskedMeanwhileIsOneMoreFetch() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicReference<Feed<String>> self = new AtomicReference<>();
        try (Feed<String> feed = feed(() -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                if (fetches.incrementAndGet() == 1) {
                    // while the server is slow to answer, the schedule comes round and an action asks for a refresh
                    self.get().fetch();
                    self.get().fetch();
                }
                return "snapshot " + fetches.get();
            } finally {
                running.decrementAndGet();
            }
        })) {
            self.set(feed);
            feed.fetch();
            uiCatchesUp();

            assertThat(most).as("fetches at once").hasValue(1);
            assertThat(fetches).as("the two asked meanwhile are answered by one more").hasValue(2);
            assertThat(shown).containsExactly("snapshot 2");

            feed.fetch();
            assertThat(fetches).as("nothing under way: fetched at once").hasValue(3);
        }
    }

    @Test
    void aStoppedFeedFetchesNothingUntilStartedAgain() {
        CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
        try (Feed<String> feed = new Feed<>(() -> "snapshot " + fetches.incrementAndGet(), Duration.ofSeconds(1), ui)) {
            feed.subscribe(shown::add, failures::add);
            feed.start();
            ui.tick();
            feed.stop();
            ui.tick();
            ui.tick();
            assertThat(shown).containsExactly("snapshot 1");

            feed.start();
            ui.tick();
            assertThat(shown).containsExactly("snapshot 1", "snapshot 2");
        }
    }

    @Test
    void anActionFinishingAfterTheRoomClosedAsksForARefreshThatIsQuietlyDropped() {
        CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
        Feed<String> feed = new Feed<>(() -> "snapshot " + fetches.incrementAndGet(), Duration.ofSeconds(1), ui);
        feed.subscribe(shown::add, failures::add);
        feed.close();
        ui.close();

        assertThatCode(feed::refreshSoon).doesNotThrowAnyException();
        assertThat(fetches).hasValue(0);
        assertThat(shown).isEmpty();
    }
}
