package io.sluice.server.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainSettings;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.policy.GovernorPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DomainSettingsWriterTest {
    @TempDir
    Path dir;

    @Test
    void manyThreadsChangingSettingsLeaveTheNewestFileAndEveryFileOnTheWayIsWhole() throws Exception {
        StateDirectory state = StateDirectory.open(dir, null);
        CrawlGovernor governor = CrawlGovernor.create(InstantSource.system(), () -> GovernorPolicy.DEFAULTS);
        governor.onSettingsChanged(new DomainSettingsWriter(state, governor::settings)::save);

        int threads = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger reads = new AtomicInteger();
        try {
            Future<?> reader = pool.submit(() -> {
                while (writing.get()) {
                    // Throws (and fails the test) on a mixed or torn file.
                    state.loadDomainSettings();
                    reads.incrementAndGet();
                }
                return null;
            });
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                writers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 1; i <= 60; i++) {
                        governor.setMinDelay("site" + thread + ".example", i * 100L);
                        if (i % 20 == 0) {
                            String dead = "dead" + thread + "-" + i + ".example";
                            for (int e = 0; e < GovernorPolicy.DEFAULTS.giveUpAfterErrors(); e++) {
                                governor.report(Feedback.of(dead, 502, 5));
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> writer : writers) {
                writer.get(60, TimeUnit.SECONDS);
            }
            writing.set(false);
            reader.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        Map<String, DomainSettings> onDisk = state.loadDomainSettings();
        assertThat(onDisk).isEqualTo(governor.settings()).hasSize(threads * 4);
        assertThat(onDisk.get("site3.example").minDelayMillis()).isEqualTo(6_000);
        assertThat(reads.get()).isPositive();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(path -> path.getFileName().toString())).as("temp files left behind")
                    .noneMatch(name -> name.endsWith(".tmp"));
        }
    }
}
