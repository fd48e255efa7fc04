package io.sluice.benchmarks.fleet;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
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
 * A small site that can render about {@code workers / meanMillis} pages a second (issue 46's site: about 80), as an
 * application server with a fixed pool of workers does: a page takes a worker for a render time drawn from a
 * log-normal distribution (jittered, with a heavy tail, capped at ten times the mean), and pages that find every
 * worker busy wait in a queue, first come first served, however long it grows (nothing refuses: the queue is where a
 * flood's time goes, as on issue 46's site). Static assets ({@code /static/...}, the favicon) are served at once by
 * the web server in front of the workers and take none of them. No thread sleeps: renders end on Jetty's scheduler.
 *
 * <p>Every page served is counted by who asked for it, from the {@code X-Forwarded-For} the front end sends (the
 * address Sluice decided on): the fleet's addresses are in {@code 127.1.0.0/16}, anything else is the person. The
 * counts are kept per tenth of a second since the site started, by when the page was served.
 *
 * <p>A page ({@code /anything}) is HTML titled {@code Page <path>} with {@value #ASSETS} assets: two stylesheets,
 * two scripts (each adds one to {@code window.sluiceBenchScripts}) and ten images, all {@code Cache-Control:
 * no-store}, so a browser fetches them again on every load.
 */
public final class PageSite implements AutoCloseable {
    /** Assets on every page. */
    public static final int ASSETS = 14;
    /** Counts are kept per this many milliseconds. */
    public static final int BUCKET_MILLIS = 100;
    private static final int BUCKETS = 36_000; // an hour
    private static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");

    private final Server server;
    private final URI uri;
    private final Renderer renderer;

    private PageSite(Server server, URI uri, Renderer renderer) {
        this.server = server;
        this.uri = uri;
        this.renderer = renderer;
    }

    /**
     * Starts the site on a free loopback port.
     *
     * @param workers    pages rendered at once
     * @param meanMillis mean render time; capacity is {@code workers * 1000 / meanMillis} pages a second
     * @param sigma      the log-normal's shape: 0.8 gives a p99 about 4.5 times the mean
     */
    public static PageSite start(int workers, double meanMillis, double sigma, long seed) throws Exception {
        Server server = new Server(new QueuedThreadPool(32, 4));
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        connector.setAcceptQueueSize(4096);
        server.addConnector(connector);
        Renderer renderer = new Renderer(workers, meanMillis, sigma, seed, System.nanoTime());
        server.setHandler(renderer);
        server.start();
        return new PageSite(server, URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/"), renderer);
    }

    public URI uri() {
        return uri;
    }

    /** Pages rendered a second at most, on average. */
    public double capacity() {
        return renderer.workers * 1000.0 / renderer.meanMillis;
    }

    /** Pages being rendered or waiting for a worker now. */
    public int pagesInHand() {
        return renderer.inHand.get();
    }

    /** The bucket ({@value #BUCKET_MILLIS} ms) that {@code nanoTime} falls in. */
    public int bucket(long nanoTime) {
        return renderer.bucket(nanoTime);
    }

    /** Pages served to the fleet in the buckets {@code [from, to)}. */
    public long fleetPages(int from, int to) {
        return sum(renderer.fleet, from, to);
    }

    /** Pages the fleet asked for that reached the site in the buckets {@code [from, to)}, served or not. */
    public long fleetArrivals(int from, int to) {
        return sum(renderer.fleetArrivals, from, to);
    }

    /** Pages served to anyone else (the person) in the buckets {@code [from, to)}. */
    public long otherPages(int from, int to) {
        return sum(renderer.others, from, to);
    }

    private static long sum(AtomicLongArray counts, int from, int to) {
        long total = 0;
        for (int i = Math.max(0, from); i < Math.min(BUCKETS, to); i++) {
            total += counts.get(i);
        }
        return total;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the site did not stop: " + e.getMessage(), e);
        }
    }

    private static final class Renderer extends Handler.Abstract {
        private final int workers;
        private final double meanMillis;
        private final double mu;
        private final double sigma;
        private final long startNanos;
        private final Random random;
        private final AtomicInteger inHand = new AtomicInteger();
        private final AtomicLongArray fleet = new AtomicLongArray(BUCKETS);
        private final AtomicLongArray fleetArrivals = new AtomicLongArray(BUCKETS);
        private final AtomicLongArray others = new AtomicLongArray(BUCKETS);
        // Guarded by this.
        private final Deque<Runnable> waiting = new ArrayDeque<>();
        private int busy;

        Renderer(int workers, double meanMillis, double sigma, long seed, long startNanos) {
            this.workers = workers;
            this.meanMillis = meanMillis;
            this.sigma = sigma;
            this.mu = Math.log(meanMillis) - sigma * sigma / 2; // the log-normal's mean is exp(mu + sigma^2 / 2)
            this.random = new Random(seed);
            this.startNanos = startNanos;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String path = Request.getPathInContext(request);
            if (path.startsWith("/static/") || path.equals("/favicon.ico")) {
                asset(path, response, callback);
                return true;
            }
            boolean fromFleet = fromFleet(request.getHeaders().get("X-Forwarded-For"));
            if (fromFleet) {
                fleetArrivals.incrementAndGet(bucket(System.nanoTime()));
            }
            inHand.incrementAndGet();
            Runnable render = () -> request.getComponents().getScheduler().schedule(() -> {
                (fromFleet ? fleet : others).incrementAndGet(bucket(System.nanoTime()));
                inHand.decrementAndGet();
                finished();
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html;charset=utf-8");
                response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
                Content.Sink.write(response, true, page(path), callback);
            }, renderMillis(), TimeUnit.MILLISECONDS);
            boolean now;
            synchronized (this) {
                now = busy < workers;
                if (now) {
                    busy++;
                } else {
                    waiting.addLast(render);
                }
            }
            if (now) {
                render.run();
            }
            return true;
        }

        int bucket(long nanoTime) {
            return (int) Math.min(BUCKETS - 1, Math.max(0, (nanoTime - startNanos) / 1_000_000 / BUCKET_MILLIS));
        }

        /** A worker is free: the next waiting page takes it. */
        private void finished() {
            Runnable next;
            synchronized (this) {
                next = waiting.pollFirst();
                if (next == null) {
                    busy--;
                }
            }
            if (next != null) {
                next.run();
            }
        }

        private synchronized long renderMillis() {
            double drawn = Math.exp(mu + sigma * random.nextGaussian());
            return Math.max(1, Math.round(Math.min(drawn, 10 * meanMillis)));
        }

        private static boolean fromFleet(String forwardedFor) {
            return forwardedFor != null && forwardedFor.startsWith("127.1.");
        }

        private static void asset(String path, Response response, Callback callback) {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
            String type;
            ByteBuffer body;
            if (path.endsWith(".css")) {
                type = "text/css";
                body = utf8("main{margin:0 " + ThreadLocalRandom.current().nextInt(2) + "px}\n");
            } else if (path.endsWith(".js")) {
                type = "text/javascript";
                body = utf8("window.sluiceBenchScripts=(window.sluiceBenchScripts||0)+1;\n");
            } else {
                type = path.endsWith(".ico") ? "image/x-icon" : "image/png";
                body = ByteBuffer.wrap(PNG);
            }
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
            response.write(true, body, callback);
        }

        private static ByteBuffer utf8(String text) {
            return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        }

        private static String page(String path) {
            StringBuilder html = new StringBuilder(1024).append("<!doctype html><html><head><meta charset=\"utf-8\">")
                    .append("<title>Page ").append(path.replaceAll("[^A-Za-z0-9/_-]", "")).append("</title>")
                    .append("<link rel=\"stylesheet\" href=\"/static/site-1.css\">")
                    .append("<link rel=\"stylesheet\" href=\"/static/site-2.css\">")
                    .append("<script src=\"/static/app-1.js\"></script><script src=\"/static/app-2.js\"></script>")
                    .append("</head><body><main><h1>An article</h1><p>Some text.</p>");
            for (int i = 1; i <= ASSETS - 4; i++) {
                html.append("<img alt=\"\" width=\"1\" height=\"1\" src=\"/static/img-").append(i).append(".png\">");
            }
            return html.append("</main></body></html>").toString();
        }
    }
}
