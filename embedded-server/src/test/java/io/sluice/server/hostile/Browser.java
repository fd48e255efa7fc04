package io.sluice.server.hostile;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A person reading the demo site: a page with its stylesheet, script and images (six at a time, as a browser
 * does), then a moment to read it. Every answer must be a 200; each page's load time is kept.
 */
final class Browser {
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    private static final Pattern ASSET = Pattern.compile("(?:href|src)=\"(/(?:static|img)/[^\"]+)\"");
    /** Pages weigh 1 in the hit stack: a person reading one every two seconds stays under 10 in 15 s. */
    private static final Duration READING = Duration.ofSeconds(2);
    private static final Duration PAGE_TIMEOUT = Duration.ofSeconds(20);

    /** A browser fetches a page's assets over at most six connections to one host. */
    private static final int CONNECTIONS = 6;

    private final HttpClient http;
    private final URI front;
    private final ExecutorService connections = Executors.newFixedThreadPool(CONNECTIONS);

    Browser(HttpClient http, URI front) {
        this.http = http;
        this.front = front;
    }

    /** Reads pages for {@code period}; each page's load in milliseconds. What went wrong goes to {@code failures}. */
    List<Long> browse(Duration period, List<String> failures) throws InterruptedException {
        List<Long> pages = new ArrayList<>();
        long end = System.nanoTime() + period.toNanos();
        try {
            while (System.nanoTime() < end) {
                long start = System.nanoTime();
                if (load("/gallery", failures)) {
                    pages.add((System.nanoTime() - start) / 1_000_000);
                }
                Thread.sleep(READING.toMillis());
            }
        } finally {
            connections.shutdownNow();
        }
        return pages;
    }

    private boolean load(String page, List<String> failures) {
        try {
            HttpResponse<String> html = http.send(request(page), HttpResponse.BodyHandlers.ofString());
            if (html.statusCode() != 200) {
                failures.add("browser: " + page + " answered " + html.statusCode() + ": " + html.body());
                return false;
            }
            List<Future<HttpResponse<Void>>> assets = new ArrayList<>();
            Matcher asset = ASSET.matcher(html.body());
            while (asset.find()) {
                HttpRequest request = request(asset.group(1));
                assets.add(connections.submit(() -> http.send(request, HttpResponse.BodyHandlers.discarding())));
            }
            for (Future<HttpResponse<Void>> answer : assets) {
                HttpResponse<Void> response = answer.get();
                if (response.statusCode() != 200) {
                    failures.add("browser: " + response.uri().getPath() + " answered " + response.statusCode());
                    return false;
                }
            }
            return true;
        } catch (Exception e) {
            failures.add("browser: " + page + " failed: " + e);
            return false;
        }
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(front.resolve(path)).timeout(PAGE_TIMEOUT).header("User-Agent", FIREFOX)
                .header("Accept", "text/html,*/*").build();
    }
}
