package io.sluice.benchmarks.governor;

import java.net.URI;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A real local web site on 127.0.0.1 with a rate limiter in front, as many sites have: it serves at
 * most {@code capacity} requests in any sliding second and answers 429 (with {@code Retry-After}
 * when configured) to anything above. Arrivals are counted as they come in; the answer then takes a
 * latency drawn evenly from {@code [latencyMinMillis, latencyMaxMillis]} (a refusal a quarter of
 * one: the limiter answers before the application), on Jetty's scheduler, so no thread sleeps.
 */
public final class LimitedSite implements AutoCloseable {
    private static final long SECOND_NANOS = 1_000_000_000L;

    private final Server server;
    private final URI uri;

    private LimitedSite(Server server, URI uri) {
        this.server = server;
        this.uri = uri;
    }

    /** Starts the site on a free port. */
    public static LimitedSite start(double capacity, long latencyMinMillis, long latencyMaxMillis,
            Long retryAfterSeconds) throws Exception {
        Server server = new Server(new QueuedThreadPool(16, 2));
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Limiter(capacity, latencyMinMillis, latencyMaxMillis, retryAfterSeconds));
        server.start();
        return new LimitedSite(server, URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/"));
    }

    public URI uri() {
        return uri;
    }

    /** The domain a crawler paces this site under: host and port. */
    public String domain() {
        return uri.getHost() + ":" + uri.getPort();
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the site did not stop: " + e.getMessage(), e);
        }
    }

    private static final class Limiter extends Handler.Abstract {
        private final double capacity;
        private final long latencyMin;
        private final long latencyMax;
        private final Long retryAfter;
        private final Deque<Long> served = new ArrayDeque<>();

        Limiter(double capacity, long latencyMin, long latencyMax, Long retryAfter) {
            this.capacity = capacity;
            this.latencyMin = latencyMin;
            this.latencyMax = latencyMax;
            this.retryAfter = retryAfter;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            boolean admitted = admit(System.nanoTime());
            long latency = ThreadLocalRandom.current().nextLong(latencyMin, latencyMax + 1);
            Runnable answer = () -> {
                if (admitted) {
                    response.setStatus(200);
                    Content.Sink.write(response, true, "a page\n", callback);
                    return;
                }
                response.setStatus(429);
                if (retryAfter != null) {
                    response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(retryAfter));
                }
                Content.Sink.write(response, true, "too many requests\n", callback);
            };
            long delay = admitted ? latency : latency / 4;
            if (delay <= 0) {
                answer.run();
            } else {
                request.getComponents().getScheduler().schedule(answer, delay, TimeUnit.MILLISECONDS);
            }
            return true;
        }

        private synchronized boolean admit(long now) {
            while (!served.isEmpty() && served.peekFirst() <= now - SECOND_NANOS) {
                served.removeFirst();
            }
            if (served.size() >= capacity) {
                return false;
            }
            served.addLast(now);
            return true;
        }
    }
}
