package io.sluice.benchmarks.fleet;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Java client that behaves like a browser with JavaScript, for when a real Chromium is not at hand or too noisy to
 * time: it sends a navigation's headers ({@code Sec-Fetch-Mode: navigate}, {@code Sec-Fetch-Dest: document}), keeps
 * cookies, and on an interstitial solves the proof-of-work natively ({@link Challenge}, confirmed with
 * {@code ProofOfWork.meets}), goes to {@code /.sluice/pass} and follows its redirect back to the page; then it fetches
 * the page's {@value PageSite#ASSETS} assets at once with their own {@code Sec-Fetch-Dest}.
 */
final class JavaPerson implements Person {
    private static final Pattern ASSET = Pattern.compile("(?:href|src)=\"(/static/[^\"]+)\"");

    private final URI front;
    private final HttpClient http;

    JavaPerson(URI front) {
        this.front = front;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(Duration.ofSeconds(10)).build();
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
                assets.add(http.sendAsync(request(url, deadline).header("Sec-Fetch-Mode", "no-cors")
                        .header("Sec-Fetch-Dest", dest).header("Accept", "*/*").build(),
                        HttpResponse.BodyHandlers.discarding()));
            }
            int good = 0;
            for (CompletableFuture<HttpResponse<Void>> answer : assets) {
                long left = deadline - System.nanoTime();
                if (answer.get(Math.max(1, left), TimeUnit.NANOSECONDS).statusCode() == 200) {
                    good++;
                }
            }
            boolean ok = good == PageSite.ASSETS;
            return new Load(start, millisSince(start), ok, interstitials, ok ? "" : good + " assets of "
                    + assets.size());
        } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return new Load(start, millisSince(start), false, interstitials, e.toString());
        }
    }

    private HttpResponse<String> navigate(String path, long deadline) throws IOException, InterruptedException {
        return http.send(request(path, deadline).header("Sec-Fetch-Mode", "navigate")
                .header("Sec-Fetch-Dest", "document")
                .header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path, long deadline) {
        long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        return HttpRequest.newBuilder(front.resolve(path)).timeout(Duration.ofMillis(left))
                .header("User-Agent", ChromiumPerson.PERSONS_CHROME).header("Accept-Language", "en-US,en;q=0.9");
    }

    private static Challenge challenge(HttpResponse<String> page) {
        return page.statusCode() == 403 ? Challenge.of(page.body()) : null;
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Override
    public void close() {
        // HttpClient closes with the JVM (Java 17 has no close)
    }
}
