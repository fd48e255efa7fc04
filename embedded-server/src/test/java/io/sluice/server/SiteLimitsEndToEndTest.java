package io.sluice.server;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.server.testkit.HeadlessChromium;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.Servers;
import io.sluice.server.testkit.TestSite;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The limits of issue 13 through the real front end (the server as {@code ./sluice server --demo} runs it: throttle
 * handler, Jetty's reverse proxy, the demo site), over loopback; the browser test with a real headless Chromium
 * (the real-parts tier).
 */
class SiteLimitsEndToEndTest {
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/";
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();
    private SluiceServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
    }

    private void policy(UnaryOperator<Policy> change) {
        server.engine().updatePolicy(change);
    }

    private HttpResponse<String> get(String path, String userAgent, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.frontUri().resolve(path))
                .timeout(DEADLINE).header("User-Agent", userAgent).header("Accept", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String reason(HttpResponse<String> response) {
        return response.statusCode() == 200 ? "ADMIT"
                : response.body().replaceAll(".*\"reason\":\"([A-Z_]+)\".*", "$1");
    }

    @Test
    @RealParts // Chromium
    void aBrowserLoadingAPageWithAStylesheetAScriptAndTwentyFourImagesIsServedInFull() throws Exception {
        // the default policy's browser check is adaptive: on a quiet day it asks no one, Chromium included
        String dom = new HeadlessChromium(state).dumpDom(server.frontUri().resolve("/gallery"), true, 10_000);
        assertThat(dom).contains("images " + TestSite.GALLERY_IMAGES + "/" + TestSite.GALLERY_IMAGES
                + " stylesheet true");
        // whichever class headless Chromium's user agent falls in: every request it made was admitted
        long admitted = 0;
        for (ClassCounts counts : server.engine().snapshot().totals().values()) {
            admitted += counts.admitted();
            assertThat(counts.refused()).isEmpty();
        }
        assertThat(admitted).isGreaterThanOrEqualTo(1 + 2 + TestSite.GALLERY_IMAGES);
    }

    @Test
    void aCopierFetchingPagesIsRefused() throws Exception {
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            answers.add(reason(get("/page/" + i, "HTTrack 3.0")));
        }
        assertThat(answers.subList(0, 10)).containsOnly("ADMIT");
        assertThat(answers.subList(10, 12)).containsOnly("HIT_STACK");
    }

    @Test
    void rotatingUserAgentsAndIpv6AddressesWithinOneSlash64AreRefusedByTheAddress() throws Exception {
        policy(p -> p.withTrustedProxies(List.of("127.0.0.1", "::1")));
        List<String> answers = new ArrayList<>();
        for (int i = 1; i <= 60; i++) {
            answers.add(reason(get("/page/" + i, FIREFOX + (100 + i),
                    "X-Forwarded-For", "2001:db8:42:1:" + Integer.toHexString(i) + "::7")));
        }
        assertThat(answers.subList(0, 50)).containsOnly("ADMIT"); // every one a new client with one hit
        assertThat(answers.subList(50, 60)).containsOnly("ADDRESS_HIT_STACK");
        ClientRow top = server.engine().snapshot().topClients().get(0);
        assertThat(top.address()).isTrue();
        assertThat(top.ip()).isEqualTo("2001:db8:42:1::/64");
        assertThat(reason(get("/page/1", FIREFOX + "1", "X-Forwarded-For", "2001:db8:42:2::7"))).isEqualTo("ADMIT");
    }

    @Test
    void aRouteLimitCannotBeDodgedByPercentEncodingThePath() throws Exception {
        policy(p -> p.withRoutes(List.of(new Route(Route.Match.PREFIX, "/search", null, List.of(), List.of(), List.of(),
                1, new Policy.HitStack(15, 3), "searches are costly"))));
        List<String> answers = new ArrayList<>();
        for (String path : List.of("/search?q=1", "/%73earch?q=2", "/se%61rch?q=3", "/%73earch?q=4", "/search?q=5")) {
            answers.add(reason(get(path, "python-requests/2.32.3")));
        }
        assertThat(answers.subList(0, 3)).doesNotContain("ROUTE_LIMIT");
        assertThat(answers.subList(3, 5)).containsOnly("ROUTE_LIMIT");
    }

    @Test
    void aSecondForwardingHeaderThatDisagreesChangesNothing() throws Exception {
        Ban ban = new Ban("b1", BanType.IP, "203.0.113.9", "copier", "alice", Instant.now(), null);
        policy(p -> p.withTrustedProxies(List.of("127.0.0.1", "::1")).withBans(List.of(ban)));
        assertThat(get("/page/1", "curl/8.5.0", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(403);
        assertThat(get("/page/1", "curl/8.5.0", "X-Forwarded-For", "203.0.113.9",
                "Forwarded", "for=198.51.100.1").statusCode()).isEqualTo(403);

        policy(p -> p.withForwardedHeader("Forwarded"));
        assertThat(get("/page/1", "curl/8.5.0", "Forwarded", "for=203.0.113.9",
                "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(403);
        assertThat(get("/page/1", "curl/8.5.0", "Forwarded", "for=198.51.100.1",
                "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(200);
    }

    @Test
    void aPathologicalRegularExpressionBanAgainstALongUserAgentAnswersInMilliseconds() throws Exception {
        policy(p -> p.withBans(List.of(new Ban("r1", BanType.AGENT, "/(a+)+$/", "exponential for backtracking",
                "alice", Instant.now(), null))));
        // cut to 511 a's and "!": (a+)+$ fails, which a backtracking engine takes 2^511 steps to find out
        String agent = "a".repeat(511) + "!" + "a".repeat(6_000);
        long started = System.nanoTime();
        HttpResponse<String> answer = get("/page/1", agent);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(millis).as("generous for a loaded machine; backtracking would never finish").isLessThan(5_000);
        assertThat(get("/page/1", "aaaa").statusCode()).isEqualTo(403);
    }

    @Test
    void anEscalationBanIsPersistedAndAuditedLikeAnOperatorsAndTheReasonIsNotPublished() throws Exception {
        policy(p -> p.withEscalation(List.of(new Escalation(Escalation.Scope.CLIENT, 3, 60, 600, 2.0, 3_600))));
        for (int i = 0; i < 14; i++) {
            get("/page/" + i, "HTTrack 3.0");
        }
        HttpResponse<String> banned = get("/page/1", "HTTrack 3.0");
        assertThat(reason(banned)).isEqualTo("BANNED");
        assertThat(banned.body()).doesNotContain("escalation");
        Ban ban = server.engine().snapshot().bans().get(0); // in force at once, written a moment later
        assertThat(ban.author()).isEqualTo("sluice");
        Path policyFile = state.resolve("policy.json");
        Path audit = state.resolve("audit.log");
        await(() -> contains(policyFile, ban.id()) && contains(audit, ban.id()), "the ban written and audited");
        assertThat(Files.readString(policyFile)).contains(ban.id(), "\"author\" : \"sluice\"");
        assertThat(Files.readString(audit)).contains("\"who\":\"sluice\"", "\"action\":\"ban.add\"", ban.id());
    }

    private static boolean contains(Path file, String text) throws IOException {
        return Files.exists(file) && Files.readString(file).contains(text);
    }
}
