package io.sluice.server.cluster;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The cluster's browser pass key ring in Redis: one hash, {@code sluice:{fleet}:pass-keys} by default, beside the
 * policy in the fleet's hash tag (one Redis Cluster slot), with the fields {@code ring} (the text
 * {@code PassKeyFile} writes), {@code node} and {@code at} (who published it, when). Written only by
 * {@code pass-keys-publish.lua}, a compare-and-set on the ring's text.
 */
final class RedisRingStore implements RingStore {
    private static final LuaScript PUBLISH = LuaScript.load("pass-keys-publish");

    private final RedisLink link;
    private final String[] keys;
    private final Duration deadline;

    /** @param link the operator's link (deadline {@link ClusterSettings#adminDeadline()}): no request waits on it */
    RedisRingStore(RedisLink link, ClusterSettings settings) {
        this.link = link;
        this.keys = new String[] {key(settings)};
        this.deadline = settings.adminDeadline();
    }

    /** The hash that holds the ring. */
    static String key(ClusterSettings settings) {
        return settings.fleetKey("pass-keys");
    }

    @Override
    public SharedRing read() {
        link.awaitConnected(deadline); // at start, the link is still connecting: "Redis down" only when it is
        List<KeyValue<String, String>> fields = await(link.call(c -> c.hmget(keys[0], "ring", "node", "at")));
        return ring(fields.get(0).getValueOrElse(null), fields.get(1).getValueOrElse(null),
                fields.get(2).getValueOrElse(null));
    }

    @Override
    public Published publish(String expected, String text, String node, long atMillis) {
        List<Object> reply = await(PUBLISH.<List<Object>>run(link, ScriptOutputType.MULTI, keys,
                expected == null ? "" : expected, text, node, Long.toString(atMillis)));
        return new Published((Long) reply.get(0) == 1, ring(text(reply, 1), text(reply, 2), text(reply, 3)));
    }

    private static String text(List<Object> reply, int index) {
        return index < reply.size() && reply.get(index) != null ? reply.get(index).toString() : null;
    }

    private static SharedRing ring(String text, String node, String at) {
        if (text == null) {
            return SharedRing.NONE;
        }
        long millis;
        try {
            millis = at == null ? 0 : Long.parseLong(at);
        } catch (NumberFormatException e) {
            millis = 0; // only shown in a log line; the ring itself is judged by its text
        }
        return new SharedRing(text, node, millis);
    }

    /** Waits for Redis's answer: the link's deadline (twice, for EVALSHA then EVAL), and a margin. */
    private <T> T await(CompletableFuture<T> reply) {
        try {
            return reply.get(deadline.multipliedBy(2).plusMillis(50).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new RedisUnavailableException(ConnectionMonitor.describe(e.getCause()));
        } catch (TimeoutException e) {
            reply.cancel(false);
            throw new RedisUnavailableException("Redis did not answer within the deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisUnavailableException("interrupted");
        }
    }
}
