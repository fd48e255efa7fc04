package io.sluice.server.demo;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Demo traffic: named actors sending real HTTP to the front end, each from its own loopback address
 * (Linux routes all of 127.0.0.0/8 to the loopback device) so the engine sees distinct clients.
 * Requests are sent asynchronously at a bounded rate and stop on {@link #close()}.
 */
public final class DemoTraffic implements AutoCloseable {

    /** One simulated client. */
    public record Actor(String name, String ip, String userAgent, List<String> paths, long periodMillis) {
    }

    /** The demo cast: a few browsers, two search engines, a feed reader, an API client and a site copier. */
    public static List<Actor> defaultActors() {
        String firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
        String chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                + "Chrome/126.0.0.0 Safari/537.36";
        String safari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                + "Version/17.5 Safari/605.1.15";
        List<String> pages = List.of("/", "/page/1", "/page/2", "/page/3", "/page/42", "/page/77");
        return List.of(
                new Actor("browser (Firefox)", "127.0.0.11", firefox, pages, 1_500),
                new Actor("browser (Chrome)", "127.0.0.12", chrome, pages, 2_000),
                new Actor("browser (Safari)", "127.0.0.13", safari, pages, 2_500),
                new Actor("Googlebot", "127.0.0.21",
                        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", pages, 4_000),
                new Actor("bingbot", "127.0.0.22",
                        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", pages, 6_000),
                new Actor("RSS reader", "127.0.0.31", "Feedly/1.0 (+http://www.feedly.com/fetcher.html)",
                        List.of("/feed.xml"), 5_000),
                new Actor("API client", "127.0.0.32", "python-requests/2.32.3", List.of("/api/items"), 700),
                new Actor("site copier", "127.0.0.66",
                        "Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)", pages, 60));
    }

    private final ScheduledExecutorService scheduler;
    private final List<HttpClient> clients = new ArrayList<>();
    private final Map<String, AtomicLong> statuses = new ConcurrentHashMap<>();

    private DemoTraffic(URI front, List<Actor> actors) throws Exception {
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "sluice-demo-traffic");
            thread.setDaemon(true);
            return thread;
        });
        for (Actor actor : actors) {
            HttpClient client = new HttpClient();
            client.setUserAgentField(null);
            client.setMaxConnectionsPerDestination(8);
            if (canBind(actor.ip())) {
                client.setBindAddress(new InetSocketAddress(actor.ip(), 0));
            }
            client.start();
            clients.add(client);
            AtomicInteger next = new AtomicInteger();
            scheduler.scheduleAtFixedRate(() -> send(client, front, actor, next), 100, actor.periodMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Starts the default cast against {@code front}. */
    public static DemoTraffic start(URI front) throws Exception {
        return new DemoTraffic(front, defaultActors());
    }

    public static DemoTraffic start(URI front, List<Actor> actors) throws Exception {
        return new DemoTraffic(front, actors);
    }

    /** Responses received so far, keyed {@code "actor name status"}. */
    public Map<String, Long> statusCounts() {
        Map<String, Long> copy = new TreeMap<>();
        statuses.forEach((k, v) -> copy.put(k, v.get()));
        return copy;
    }

    private void send(HttpClient client, URI front, Actor actor, AtomicInteger next) {
        String path = actor.paths().get(Math.floorMod(next.getAndIncrement(), actor.paths().size()));
        client.newRequest(front.resolve(path))
                .headers(h -> h.put(HttpHeader.USER_AGENT, actor.userAgent()))
                .timeout(10, TimeUnit.SECONDS)
                .send(result -> {
                    int status = result.getResponse() == null ? 0 : result.getResponse().getStatus();
                    statuses.computeIfAbsent(actor.name() + " " + status, k -> new AtomicLong()).incrementAndGet();
                });
    }

    private static boolean canBind(String ip) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(ip), 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        for (HttpClient client : clients) {
            try {
                client.stop();
            } catch (Exception e) {
                // Best effort: the demo is going away anyway.
            }
        }
    }
}
