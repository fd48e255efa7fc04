package io.sluice.server.cluster;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One connection to Redis that never makes its caller wait for an outage:
 * <ul>
 *   <li>every command has a deadline ({@code timeout}); past it the command fails, Redis is not waited for;</li>
 *   <li>while disconnected, commands are rejected at once (Lettuce's {@code REJECT_COMMANDS}) instead of
 *       buffered, and commands in flight when the connection drops fail instead of being replayed after the
 *       reconnect: a change is applied once or reported unknown, never sent twice behind the caller's back;</li>
 *   <li>it reconnects by itself (Lettuce's watchdog after the first connection; before it, this class retries
 *       the first connect in the background, so a node starts while Redis is down).</li>
 * </ul>
 * Thread-safe: Lettuce pipelines the commands of every thread on the one connection.
 */
final class RedisLink implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisLink.class.getName());
    private static final Duration FIRST_RETRY = Duration.ofMillis(50);
    private static final Duration MAX_RETRY = Duration.ofSeconds(1);

    private final String name;
    private final RedisClient client;
    private final RedisURI uri;
    private final ScheduledExecutorService scheduler;
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile boolean closed;

    /**
     * @param name      what the link is for, in Redis's {@code CLIENT LIST} and our messages
     * @param timeout   the deadline of every command on this link
     * @param resources shared event loops and the timer that fires the deadlines
     * @param scheduler runs the retries of the first connect
     */
    RedisLink(String name, RedisEndpoint endpoint, Duration timeout, ClientResources resources,
              ScheduledExecutorService scheduler) {
        this.name = name;
        this.scheduler = scheduler;
        this.uri = endpoint.toRedisUri();
        uri.setClientName(name);
        // The handshake (HELLO, AUTH, SELECT) after a (re)connect: short, so a hung server does not hold the
        // reconnect for the default minute.
        uri.setTimeout(timeout.multipliedBy(10).compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1)
                : timeout.multipliedBy(10));
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).keepAlive(true)
                        .tcpNoDelay(true).build())
                .build());
    }

    /** Connects in the background, retrying until it succeeds or the link is closed. */
    RedisLink open() {
        attempt(FIRST_RETRY);
        return this;
    }

    private void attempt(Duration nextDelay) {
        if (closed) {
            return;
        }
        client.connectAsync(StringCodec.UTF8, uri).whenComplete((opened, failure) -> {
            if (failure != null) {
                if (!closed) {
                    LOG.log(System.Logger.Level.DEBUG, () -> name + ": cannot connect to Redis yet: " + failure);
                    Duration after = nextDelay.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY
                            : nextDelay.multipliedBy(2);
                    scheduler.schedule(() -> attempt(after), nextDelay.toMillis(), TimeUnit.MILLISECONDS);
                }
                return;
            }
            if (closed) {
                opened.closeAsync();
            } else {
                connection = opened;
            }
        });
    }

    /** True once connected and while the connection is up (Lettuce reconnects it in the background). */
    boolean connected() {
        StatefulRedisConnection<String, String> current = connection;
        return current != null && current.isOpen();
    }

    /**
     * Sends one command (or one script). The future fails with {@link RedisUnavailableException} at once
     * when the link is not connected, and with Lettuce's timeout exception at the deadline.
     */
    <T> CompletableFuture<T> call(Function<RedisAsyncCommands<String, String>, RedisFuture<T>> command) {
        StatefulRedisConnection<String, String> current = connection;
        if (current == null || closed) {
            return CompletableFuture.failedFuture(new RedisUnavailableException(name + ": not connected to Redis"));
        }
        try {
            return command.apply(current.async()).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        closed = true;
        StatefulRedisConnection<String, String> current = connection;
        if (current != null) {
            current.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    @Override
    public String toString() {
        return name;
    }
}
