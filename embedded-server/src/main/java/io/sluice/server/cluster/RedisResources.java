package io.sluice.server.cluster;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What every Redis link of a node shares: Lettuce's event loops, the timer that fires command deadlines,
 * and one scheduler thread for the cluster's periodic work (probes, publishing, reconnect retries).
 *
 * <p>Lettuce's default timer ticks every 100 ms, so a 50 ms deadline would fire after up to 200 ms; ours
 * ticks every 5 ms. Lettuce's default reconnect delay grows to 30 s; ours is capped at 500 ms, so a node is
 * back within half a second of Redis.
 */
final class RedisResources implements AutoCloseable {
    private static final Duration TICK = Duration.ofMillis(5);

    private final HashedWheelTimer timer;
    private final ClientResources lettuce;
    private final ScheduledExecutorService scheduler;

    RedisResources(String nodeName) {
        this.timer = new HashedWheelTimer(new DefaultThreadFactory("sluice-redis-deadlines", true), TICK.toMillis(),
                TimeUnit.MILLISECONDS);
        this.lettuce = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .timer(timer)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(20), Duration.ofMillis(500), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-cluster-" + nodeName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** A new link, connecting in the background; close it before this. */
    RedisLink link(String name, RedisEndpoint endpoint, Duration timeout) {
        return new RedisLink(name, endpoint, timeout, lettuce, scheduler).open();
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        lettuce.shutdown(0, 2, TimeUnit.SECONDS);
        timer.stop();
    }
}
