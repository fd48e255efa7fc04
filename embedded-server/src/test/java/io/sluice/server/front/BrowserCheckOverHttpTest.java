package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.ProofOfWork;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The browser check through the front end's handler, in memory (Jetty's {@code LocalConnector}): what a plain HTTP
 * client with a browser's user agent meets, and what a native solver can and cannot do with an answer. The real
 * browser, JavaScript on and off, is {@code BrowserCheckChromiumTest}'s.
 */
class BrowserCheckOverHttpTest {

    private static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";
    private static final Pattern TOKEN = Pattern.compile("data-token=\"([^\"]+)\"");
    private static final Pattern BITS = Pattern.compile("data-bits=\"(\\d+)\"");

    private final AtomicLong now = new AtomicLong(Instant.parse("2026-12-01T10:00:00Z").toEpochMilli());
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private Server server;
    private LocalConnector connector;
    private ThrottleEngine engine;

    @BeforeEach
    void start() throws Exception {
        // the connector's own peer is trusted to report the client's address, so a test can come from any network
        Policy policy = Policy.defaults().withTrustedProxies(List.of("0.0.0.0/0", "::/0"))
                .withBrowserCheck(BrowserCheck.DEFAULTS.withMode(BrowserCheck.Mode.ALWAYS));
        engine = new ThrottleEngine(EngineConfig.defaults(), clock, policy, CrawlerListClassifier.bundled());
        server = new Server();
        connector = new LocalConnector(server);
        server.addConnector(connector);
        server.setHandler(new ThrottleHandler(engine, clock, null, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(200);
                Content.Sink.write(response, true, "the page " + request.getHttpURI().getPathQuery(), callback);
                return true;
            }
        }));
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private HttpTester.Response get(String target, String from, String... headers) throws Exception {
        StringBuilder raw = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: site\r\nUser-Agent: " + CHROME
                + "\r\nX-Forwarded-For: " + from + "\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            raw.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        return HttpTester.parseResponse(connector.getResponse(raw.append("\r\n").toString()));
    }

    private static String group(Pattern pattern, String body) {
        Matcher matcher = pattern.matcher(body);
        assertThat(matcher.find()).as("the interstitial carries its challenge: %s", body).isTrue();
        return matcher.group(1);
    }

    /** What a native solver does: the smallest nonce that meets the difficulty. */
    private static String solve(String token, int bits) {
        for (long nonce = 0; ; nonce++) {
            if (ProofOfWork.meets(token, Long.toString(nonce), bits)) {
                return Long.toString(nonce);
            }
        }
    }

    private static String passPath(String token, String nonce, String back) {
        return PassEndpoint.PATH + "?c=" + enc(token) + (nonce == null ? "" : "&n=" + nonce) + "&r=" + enc(back);
    }

    private static String enc(String text) {
        return java.net.URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static String cookie(HttpTester.Response answer) {
        String set = answer.get(HttpHeader.SET_COOKIE);
        assertThat(set).startsWith(BrowserPasses.COOKIE + "=");
        return set.substring(0, set.indexOf(';'));
    }

    @Test
    void aPageWithoutAPassIsTheInterstitialThatNoCacheOrSearchEngineKeeps() throws Exception {
        HttpTester.Response answer = get("/articles/1?x=2", "192.0.2.10");
        assertThat(answer.getStatus()).isEqualTo(403);
        assertThat(answer.get(HttpHeader.CACHE_CONTROL)).isEqualTo("no-store");
        assertThat(answer.get("X-Robots-Tag")).isEqualTo("noindex");
        assertThat(answer.getContent()).doesNotContain("the page").contains("<noscript>");
        assertThat(answer.getContent().getBytes(StandardCharsets.UTF_8).length).isLessThan(20 * 1024);
        assertThat(Integer.parseInt(group(BITS, answer.getContent()))).isEqualTo(BrowserCheck.DEFAULTS.difficulty());
    }

    @Test
    void aSolvedChallengeEarnsAPassThatServesTheNextPagesFromItsNetwork() throws Exception {
        HttpTester.Response challenge = get("/articles/1", "192.0.2.10");
        String token = URLDecoder.decode(group(TOKEN, challenge.getContent()), StandardCharsets.UTF_8);
        HttpTester.Response earned = get(passPath(token, solve(token, BrowserCheck.DEFAULTS.difficulty()),
                "/articles/1"), "192.0.2.10");
        assertThat(earned.getStatus()).isEqualTo(303);
        assertThat(earned.get(HttpHeader.LOCATION)).isEqualTo("/articles/1");
        assertThat(earned.get(HttpHeader.SET_COOKIE)).contains("HttpOnly", "SameSite=Lax", "Path=/");
        String pass = cookie(earned);

        HttpTester.Response page = get("/articles/1", "192.0.2.10", "Cookie", "theme=dark; " + pass);
        assertThat(page.getStatus()).isEqualTo(200);
        assertThat(page.getContent()).isEqualTo("the page /articles/1");
        // a phone moving within its carrier's /24 keeps it; another /24 is another network
        assertThat(get("/articles/2", "192.0.2.77", "Cookie", pass).getStatus()).isEqualTo(200);
        assertThat(get("/articles/2", "192.0.3.77", "Cookie", pass).getStatus()).isEqualTo(403);
        assertThat(engine.snapshot().browserCheck().passesEarned()).isEqualTo(1);
    }

    /** Asks for {@code path} from {@code from} without a pass and answers its challenge as a native solver would. */
    private HttpTester.Response solveFrom(String from, String path) throws Exception {
        HttpTester.Response challenge = get(path, from);
        assertThat(challenge.getStatus()).isEqualTo(403);
        String token = URLDecoder.decode(group(TOKEN, challenge.getContent()), StandardCharsets.UTF_8);
        int bits = Integer.parseInt(group(BITS, challenge.getContent()));
        return get(passPath(token, solve(token, bits), path), from);
    }

    @Test
    void aPassSharedByAFleetIsDroppedAndItsNetworkWaitsOutACooldownForTheNext() throws Exception {
        String pass = cookie(solveFrom("192.0.2.10", "/p/0"));
        int perPass = BrowserCheck.DEFAULTS.perPass().maxHits();
        for (int i = 1; i <= perPass; i++) {
            assertThat(get("/p/" + i, "192.0.2." + i, "Cookie", pass).getStatus()).isEqualTo(200);
        }
        assertThat(get("/p/more", "192.0.2.40", "Cookie", pass).getStatus()).as("one person's pace, passed")
                .isEqualTo(403);
        HttpTester.Response again = solveFrom("192.0.2.50", "/p/next");
        assertThat(again.getStatus()).isEqualTo(429);
        long cooldown = BrowserCheck.DEFAULTS.networks().passCooldownSeconds();
        assertThat(again.get(HttpHeader.RETRY_AFTER)).isEqualTo(Long.toString(cooldown));
        assertThat(again.get(HttpHeader.SET_COOKIE)).isNull();
        assertThat(again.getContent()).contains("http-equiv=\"refresh\" content=\"" + cooldown + ";url=/p/next\"");
        assertThat(solveFrom("192.0.3.50", "/p/next").getStatus()).as("another network").isEqualTo(303);

        now.addAndGet(cooldown * 1000);
        HttpTester.Response earned = solveFrom("192.0.2.50", "/p/next");
        assertThat(earned.getStatus()).isEqualTo(303);
        assertThat(get("/p/next", "192.0.2.50", "Cookie", cookie(earned)).getStatus()).isEqualTo(200);
        assertThat(engine.snapshot().browserCheck().passesWithheld()).isEqualTo(1);
    }

    @Test
    void anAnswerReplayedForAnotherPageOrNetworkIsRefused() throws Exception {
        String token = URLDecoder.decode(group(TOKEN, get("/articles/1", "192.0.2.10").getContent()),
                StandardCharsets.UTF_8);
        String nonce = solve(token, BrowserCheck.DEFAULTS.difficulty());
        assertThat(get(passPath(token, nonce, "/admin"), "192.0.2.10").getStatus()).isEqualTo(403);
        assertThat(get(passPath(token, nonce, "/articles/1"), "198.51.100.10").getStatus()).isEqualTo(403);
        assertThat(get(passPath(token, nonce + "0", "/articles/1"), "192.0.2.10").getStatus()).isEqualTo(403);
        assertThat(engine.snapshot().browserCheck().answersRefused()).isEqualTo(3);
        assertThat(engine.snapshot().browserCheck().passesEarned()).isZero();
    }

    @Test
    void theNoJavaScriptPathEarnsAWeakPassAfterItsWaitAndNotWhenTurnedOff() throws Exception {
        engine.updatePolicy(p -> p.withBrowserCheck(new BrowserCheck(BrowserCheck.Mode.ALWAYS, 12, 604_800, true, 1,
                0, 60, null, null, null, null)));
        String token = URLDecoder.decode(group(TOKEN, get("/articles/1", "192.0.2.10").getContent()),
                StandardCharsets.UTF_8);
        now.addAndGet(1_000);
        HttpTester.Response earned = get(passPath(token, null, "/articles/1"), "192.0.2.10");
        assertThat(earned.getStatus()).as("after its wait").isEqualTo(303);
        assertThat(get("/articles/1", "192.0.2.10", "Cookie", cookie(earned)).getStatus()).isEqualTo(200);
        assertThat(engine.snapshot().browserCheck().weakPassesEarned()).isEqualTo(1);

        engine.updatePolicy(p -> p.withBrowserCheck(new BrowserCheck(BrowserCheck.Mode.ALWAYS, 12, 604_800, false, 1,
                0, 60, null, null, null, null)));
        String second = URLDecoder.decode(group(TOKEN, get("/articles/2", "192.0.2.11").getContent()),
                StandardCharsets.UTF_8);
        assertThat(get("/articles/2", "192.0.2.11").getContent()).doesNotContain("http-equiv=\"refresh\"");
        now.addAndGet(60_000);
        assertThat(get(passPath(second, null, "/articles/2"), "192.0.2.11").getStatus()).isEqualTo(403);
        assertThat(engine.snapshot().browserCheck().weakPassesEarned()).isEqualTo(1);
    }

    @Test
    void anEarlyNoJavaScriptAnswerIsHeldUntilItsWaitIsOverNotTurnedAway() throws Exception {
        engine.updatePolicy(p -> p.withBrowserCheck(new BrowserCheck(BrowserCheck.Mode.ALWAYS, 12, 604_800, true, 1,
                0, 60, null, null, null, null)));
        String token = URLDecoder.decode(group(TOKEN, get("/articles/1", "192.0.2.10").getContent()),
                StandardCharsets.UTF_8);
        // the clock stands still: held for the wait, then still too early, so refused (once, not held again)
        assertThat(get(passPath(token, null, "/articles/1"), "192.0.2.10").getStatus()).isEqualTo(403);
        LocalConnector.LocalEndPoint early = connector.executeRequest("GET " + passPath(token, null, "/articles/1")
                + " HTTP/1.1\r\nHost: site\r\nUser-Agent: " + CHROME + "\r\nX-Forwarded-For: 192.0.2.10\r\n\r\n");
        now.addAndGet(1_000); // the wait passes while it is held
        HttpTester.Response answer = HttpTester.parseResponse(early.waitForResponse(false, 30, TimeUnit.SECONDS));
        assertThat(answer.getStatus()).isEqualTo(303);
        assertThat(engine.snapshot().browserCheck().weakPassesEarned()).isEqualTo(1);
    }

    @Test
    void thePassEndpointNeverRedirectsOffTheSiteAndAnswersGarbageWithA403() throws Exception {
        for (String target : List.of(PassEndpoint.PATH, PassEndpoint.PATH + "?c=x&n=1&r=//evil.example/",
                PassEndpoint.PATH + "?c=" + "A".repeat(5_000) + "&n=1&r=/", PassEndpoint.PATH + "?c=%00&n=-1&r=/\\x",
                PassEndpoint.PATH + "?n=99999999999999999999999&c=.&r=")) {
            HttpTester.Response answer = get(target, "192.0.2.10");
            assertThat(answer.getStatus()).as(target).isEqualTo(403);
            assertThat(answer.get(HttpHeader.LOCATION)).as(target).isNull();
            assertThat(answer.getContent()).doesNotContain("evil.example");
        }
    }

    @Test
    void aPassSharedAcrossTheFleetIsDroppedAndTheCookieCleared() throws Exception {
        String token = URLDecoder.decode(group(TOKEN, get("/p/0", "192.0.2.10").getContent()),
                StandardCharsets.UTF_8);
        String pass = cookie(get(passPath(token, solve(token, BrowserCheck.DEFAULTS.difficulty()), "/p/0"),
                "192.0.2.10"));
        int perPass = BrowserCheck.DEFAULTS.perPass().maxHits();
        for (int i = 0; i < perPass; i++) {
            assertThat(get("/p/" + i, "192.0.2." + (20 + i), "Cookie", pass).getStatus()).isEqualTo(200);
        }
        HttpTester.Response dropped = get("/p/x", "192.0.2.99", "Cookie", pass);
        assertThat(dropped.getStatus()).isEqualTo(403);
        assertThat(dropped.get(HttpHeader.SET_COOKIE)).startsWith(BrowserPasses.COOKIE + "=;").contains("Max-Age=0");
    }
}
