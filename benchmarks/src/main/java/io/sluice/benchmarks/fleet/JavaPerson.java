package io.sluice.benchmarks.fleet;

import io.sluice.engine.check.BrowserPasses;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Java client that behaves like a browser with JavaScript, for when a real Chromium is not at hand or too noisy to
 * time: it sends a navigation's headers ({@code Sec-Fetch-Mode: navigate}, {@code Sec-Fetch-Dest: document}), keeps
 * the pass cookie, and on an interstitial solves the proof-of-work natively ({@link Challenge}, confirmed with
 * {@code ProofOfWork.meets}), goes to {@code /.sluice/pass} and follows its redirect back to the page; then it fetches
 * the page's {@value PageSite#ASSETS} assets with their own {@code Sec-Fetch-Dest}, six at a time as a browser's six
 * connections to a host fetch them.
 *
 * <p>The cookie is kept by hand, as a browser sends it ({@code sluice_pass=VALUE}): Java's {@code CookieManager}
 * takes a {@code Max-Age} for an RFC 2965 cookie and sends it back quoted, with {@code $Version} and {@code $Path},
 * which no browser does. Redirects are followed by hand for the same reason.
 */
final class JavaPerson implements Person {
    private static final Pattern ASSET = Pattern.compile("(?:href|src)=\"(/static/[^\"]+)\"");

    /** A browser's connections to one host over HTTP/1.1, at most: its assets come six at a time. */
    private static final int CONNECTIONS = 6;

    private final URI front;
    private final HttpClient http;
    private final ExecutorService connections = Executors.newFixedThreadPool(CONNECTIONS, work -> {
        Thread thread = new Thread(work, "person-connection");
        thread.setDaemon(true);
        return thread;
    });
    private volatile String pass;

    JavaPerson(URI front) {
        this.front = front;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public String describe() {
        return "a Java client behaving like a browser with JavaScript (native proof-of-work), user agent of a "
                + "person's Chrome";
    }

    @Override
    public Load load(String path, long timeoutMillis) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        int interstitials = 0;
        try {
            HttpResponse<String> page = navigate(path, deadline);
            for (Challenge challenge = challenge(page); challenge != null && interstitials < 3;
                    challenge = challenge(page)) {
                interstitials++;
                page = navigate(challenge.answerPath(challenge.solve().nonce()), deadline);
            }
            if (page.statusCode() != 200 || !page.body().contains("<title>Page ")) {
                return new Load(start, millisSince(start), false, interstitials, "page answered "
                        + page.statusCode());
            }
            List<CompletableFuture<HttpResponse<Void>>> assets = new ArrayList<>();
            Matcher asset = ASSET.matcher(page.body());
            while (asset.find()) {
                String url = asset.group(1);
                String dest = url.endsWith(".css") ? "style" : url.endsWith(".js") ? "script" : "image";
                HttpRequest request = request(url, deadline).header("Sec-Fetch-Mode", "no-cors")
                        .header("Sec-Fetch-Dest", dest).header("Accept", "*/*").build();
                assets.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return http.send(request, HttpResponse.BodyHandlers.discarding());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }, connections));
            }
            int good = 0;
            Map<String, Integer> bad = new TreeMap<>();
            for (CompletableFuture<HttpResponse<Void>> answer : assets) {
                long left = deadline - System.nanoTime();
                try {
                    int status = answer.get(Math.max(1, left), TimeUnit.NANOSECONDS).statusCode();
                    if (status == 200) {
                        good++;
                    } else {
                        bad.merge(Integer.toString(status), 1, Integer::sum);
                    }
                } catch (java.util.concurrent.ExecutionException e) {
                    bad.merge(e.getCause().toString(), 1, Integer::sum);
                }
            }
            boolean ok = good == PageSite.ASSETS;
            return new Load(start, millisSince(start), ok, interstitials, ok ? "" : good + " assets of "
                    + assets.size() + ", the others " + bad);
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            return new Load(start, millisSince(start), false, interstitials, e.toString());
        }
    }

    /** A navigation to {@code path}, its redirects followed (at most five), the pass cookie kept. */
    private HttpResponse<String> navigate(String path, long deadline) throws IOException, InterruptedException {
        HttpResponse<String> answer = null;
        String next = path;
        for (int hops = 0; hops < 6 && next != null; hops++) {
            answer = http.send(request(next, deadline).header("Sec-Fetch-Mode", "navigate")
                    .header("Sec-Fetch-Dest", "document")
                    .header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8").build(),
                    HttpResponse.BodyHandlers.ofString());
            for (String cookie : answer.headers().allValues("set-cookie")) {
                if (cookie.startsWith(BrowserPasses.COOKIE + "=")) {
                    String value = cookie.substring(BrowserPasses.COOKIE.length() + 1).split(";", 2)[0];
                    pass = value.isEmpty() ? null : value;
                }
            }
            int status = answer.statusCode();
            next = status >= 300 && status < 400 ? answer.headers().firstValue("location").orElse(null) : null;
        }
        return answer;
    }

    private HttpRequest.Builder request(String path, long deadline) {
        long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        HttpRequest.Builder request = HttpRequest.newBuilder(front.resolve(path)).timeout(Duration.ofMillis(left))
                .header("User-Agent", ChromiumPerson.PERSONS_CHROME).header("Accept-Language", "en-US,en;q=0.9");
        String cookie = pass;
        return cookie == null ? request : request.header("Cookie", BrowserPasses.COOKIE + "=" + cookie);
    }

    private static Challenge challenge(HttpResponse<String> page) {
        return page.statusCode() == 403 ? Challenge.of(page.body()) : null;
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Override
    public void close() {
        connections.shutdownNow(); // HttpClient closes with the JVM (Java 17 has no close)
    }
}
