package io.sluice.benchmarks.governor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Runs worker threads to their end; the first failure of any is the run's. */
final class WorkerThreads {
    /** One worker's crawl. */
    interface Worker {
        void crawl(int index) throws Exception;
    }

    private WorkerThreads() {
    }

    static void run(int count, String name, Worker worker) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int w = 0; w < count; w++) {
            int index = w;
            Thread thread = new Thread(() -> {
                try {
                    worker.crawl(index);
                } catch (Throwable failure) {
                    failures.add(failure);
                }
            }, name + "-worker-" + w);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a worker failed: " + failures.get(0), failures.get(0));
        }
    }
}
