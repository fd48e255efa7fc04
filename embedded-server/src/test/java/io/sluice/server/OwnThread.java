package io.sluice.server;

import java.util.concurrent.Executor;

/**
 * Runs each of a test's tasks on a new daemon thread of its own. Never CompletableFuture's default executor for a
 * task that blocks: on JDK 25 with two cores that is a ForkJoinPool of one thread, where a task waiting for another
 * queued behind it waits for ever (a fresh-clone CI run timed out so).
 */
public final class OwnThread implements Executor {
    public static final OwnThread EACH = new OwnThread();

    private OwnThread() {
    }

    @Override
    public void execute(Runnable task) {
        Thread thread = new Thread(task, "test-task");
        thread.setDaemon(true);
        thread.start();
    }
}
