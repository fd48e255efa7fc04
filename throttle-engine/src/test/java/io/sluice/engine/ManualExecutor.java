package io.sluice.engine;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/** Runs queued tasks only when told: a test decides when a background lookup answers. */
public final class ManualExecutor implements Executor {
    private final Queue<Runnable> tasks = new ArrayDeque<>();

    public ManualExecutor() {
        // nothing queued yet
    }

    @Override
    public synchronized void execute(Runnable command) {
        tasks.add(command);
    }

    /** Runs every task queued so far, and those they queue. */
    public void runAll() {
        Runnable next;
        while ((next = poll()) != null) {
            next.run();
        }
    }

    private synchronized Runnable poll() {
        return tasks.poll();
    }
}
