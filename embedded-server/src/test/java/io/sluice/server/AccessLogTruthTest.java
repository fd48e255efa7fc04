package io.sluice.server;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.ProofOfWork;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.NetworkFunnel;
import io.sluice.engine.telemetry.NetworkRow;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.testkit.Servers;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47's "truth kept": after a mixed run through a real front end (loopback, the access log in a file, the
 * clients' addresses reported by a trusted proxy's {@code X-Forwarded-For} in three /24s), the snapshot the admin API
 * serves agrees with the access log, line by line.
 *
 * <p>Which lines count, as the engine counts them (docs/manual/console.md, "What the rows count"):
 * <ul>
 *   <li>a <b>hit</b> on a client's row is a line of a request that reached the client's hit stack: admitted
 *       ({@code sluice=ADMIT}, {@code DELAYED}) or refused by a client rule after its hit was pushed (rule 4 counts
 *       refused requests too: {@code REFUSE:HIT_STACK}, {@code CLIENT_CONCURRENCY}, {@code LOAD}, ...), weighing its
 *       route's weight (a page 1, a static asset 0 under the default routes);</li>
 *   <li>a <b>refusal</b> on a client's row is every {@code REFUSE:} line of that client: the browser check's
 *       interstitial ({@code REFUSE:CHALLENGE}) and its other refusals ({@code PASS_REQUIRED}) are refusals, not
 *       hits;</li>
 *   <li>the pass endpoint's own lines ({@code sluice=PASS}, {@code PASS_REFUSED:...}) are the funnel's, on the
 *       network's row, and no client's hit or refusal; they are no engine decision, so not in the totals either.</li>
 * </ul>
 */
class AccessLogTruthTest {
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "truth test");
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    private static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";
    private static final String SAFARI = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 "
            + "(KHTML, like Gecko) Version/17.5 Safari/605.1.15";
    private static final String CURL = "curl/8.5.0";
    /** Served on a quiet day. */
    private static final String QUIET = "127.0.21.";
    /** Several user agents behind one address. */
    private static final String SHARED = "127.0.22.";
    /** Always asked by the browser check. */
    private static final String ASKED = "127.0.23.";
    /** The hostile minute's networks. */
    private static final String FLEET_A = "127.0.31.";
    private static final String FLEET_B = "127.0.32.";
    private static final String FLEET_C = "127.0.33.";
    private static final Pattern LINE = Pattern.compile(
            "^(\\S+) \\S+ \\S+ \\[[^]]+] \"(\\S+) (\\S+) [^\"]*\" (\\d{3}) \\d+ \"[^\"]*\" \"([^\"]*)\""
                    + " sluice=(\\S+)$");
    private static final Pattern TOKEN = Pattern.compile("data-token=\"([^\"]+)\"");
    private static final Pattern BITS = Pattern.compile("data-bits=\"(\\d+)\"");

    @TempDir
    Path dir;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private SluiceServer server;
    /** Requests sent to the front end (each is one line of the log). */
    private final AtomicInteger sent = new AtomicInteger();
    /** Of them, those sent with a pass and served, by network (a prefix such as {@code "127.0.21."}). */
    private final Map<String, Integer> onPass = new ConcurrentHashMap<>();
    private Snapshot snapshot;

    /** One line of the access log. */
    record Line(String ip, String method, String target, int status, String userAgent, String decision) {
        String client() {
            return ip + " " + userAgent;
        }

        /** What the line weighs on its client's hit stack (see the class comment); 0 when it is no hit. */
        int hit() {
            boolean reachedTheStack = decision.equals("ADMIT") || decision.equals("DELAYED")
                    || decision.startsWith("REFUSE:") && !BEFORE_THE_CLIENT_RULES.contains(decision.substring(7));
            return reachedTheStack && !target.startsWith("/static/") ? 1 : 0;
        }

        boolean refusal() {
            return decision.startsWith("REFUSE:");
        }

        /** Admitted, at once or after a wait: its cost is counted when it completes. */
        boolean served() {
            return decision.equals("ADMIT") || decision.equals("DELAYED");
        }
    }

    /** Refusals made before a request's hit is pushed: no hit on its client's stack. */
    private static final Set<String> BEFORE_THE_CLIENT_RULES = Set.of("PAUSED", "BANNED", "CHALLENGE",
            "PASS_REQUIRED", "NETWORK_BUDGET", "NETWORK_CONCURRENCY", "TRAP", "CATEGORY");

    /** On either front-end path: each writes its own lines (the lean path its admitted requests'). */
    @ParameterizedTest
    @EnumSource(ForwardingPath.class)
    void afterAMixedRunEveryRowAndTotalOfTheSnapshotAgreesWithTheAccessLog(ForwardingPath path) throws Exception {
        Path log = start(path);
        server.policyChanges().edit(OPERATOR, p -> p.withTrustedProxies(List.of("127.0.0.1/32"))
                .withBrowserCheck(p.browserCheck().withAlwaysChallenge(List.of(ASKED + "0/24"))));

        // a quiet /24: four browsers reading a few pages and their assets, and a copier over its hit stack
        for (int host = 1; host <= 4; host++) {
            for (int page = 1; page <= host; page++) {
                expect(get(QUIET + host, FIREFOX, "/page/" + page, null), 200);
                expect(get(QUIET + host, FIREFOX, "/static/site.css", null), 200);
            }
        }
        for (int page = 1; page <= 14; page++) {
            expect(get(QUIET + 9, CURL, "/page/" + page, null), page <= 10 ? 200 : 503);
        }
        // three user agents behind one address (an office), and two neighbours
        for (String agent : List.of(FIREFOX, CHROME, SAFARI)) {
            expect(get(SHARED + 5, agent, "/", null), 200);
            expect(get(SHARED + 5, agent, "/page/7", null), 200);
        }
        expect(get(SHARED + 6, CHROME, "/page/8", null), 200);
        expect(get(SHARED + 7, CURL, "/api/items", null), 200);
        // a /24 the check always asks: one browser earns its pass and reads on it, one answers wrong, one only asks,
        // one posts a form without a pass (refused before any rule tracked it); a command-line client is never asked
        String pass = earnPass(ASKED + 1, "/page/1");
        for (int page = 1; page <= 3; page++) {
            expect(get(ASKED + 1, CHROME, "/page/" + page, pass), 200);
        }
        answerWrong(ASKED + 2, "/page/2");
        expect(get(ASKED + 3, SAFARI, "/page/3", null), 403);
        expect(get(ASKED + 3, SAFARI, "/page/4", null), 403);
        expect(send(ASKED + 4, FIREFOX, "POST", "/comment", null), 403);
        expect(get(ASKED + 9, CURL, "/page/5", null), 200);

        JsonNode wire = agreesWithTheLog(log, List.of(QUIET, SHARED, ASKED));
        ClientRow office = snapshot.topClients().stream().filter(row -> row.address()
                && row.ip().equals(SHARED + 5)).findFirst().orElseThrow();
        assertThat(sum(office.hitsPerSecond())).as("the office's address row").isEqualTo(6);
        JsonNode askedRow = null;
        for (JsonNode row : wire.get("networks")) {
            if (row.get("network").asText().equals(ASKED + "0/24")) {
                askedRow = row;
            }
        }
        assertThat(askedRow).isNotNull();
        assertThat(askedRow.get("funnel").get("challenged").asLong()).as("on the wire").isEqualTo(4);
        assertThat(askedRow.get("funnel").get("passesEarned").asLong()).isEqualTo(1);
        assertThat(askedRow.get("funnel").get("answersRefused").asLong()).isEqualTo(1);
        assertThat(askedRow.get("funnel").get("servedOnPass").asLong()).isEqualTo(3);
    }

    /**
     * The hostile minute: a small site (three requests at once, two waiting places) under browsers of three /24s
     * and command-line clients all at once, the check adaptive: the site is soon under pressure, browsers without a
     * pass are asked, the clients the load defers wait or are refused, a person with a pass reads on. Whatever the
     * interleaving, the snapshot agrees with the log.
     */
    @Test
    void duringAHostileMinuteTheSnapshotStillAgreesWithTheAccessLog() throws Exception {
        Path log = start(ForwardingPath.LEAN);
        server.policyChanges().edit(OPERATOR, p -> p.withTrustedProxies(List.of("127.0.0.1/32"))
                .withLoad(new Policy.Load(3, 2, 200)));
        String pass = earnPassUnderPressure();
        List<Callable<Void>> clients = new ArrayList<>();
        for (String network : List.of(FLEET_A, FLEET_B, FLEET_C)) {
            for (int host = 1; host <= 7; host++) {
                String ip = network + host;
                String agent = List.of(FIREFOX, CHROME, SAFARI).get(host % 3);
                int first = host * 10;
                clients.add(() -> {
                    for (int page = 1; page <= 6; page++) {
                        get(ip, agent, "/page/" + (first + page), null);
                    }
                    return null;
                });
            }
            for (int bot = 97; bot <= 99; bot++) {
                String ip = network + bot;
                clients.add(() -> {
                    for (int page = 1; page <= 8; page++) {
                        get(ip, CURL, "/api/items/" + page, null);
                    }
                    return null;
                });
            }
        }
        clients.add(() -> {
            for (int page = 1; page <= 6; page++) {
                expect(get(FLEET_A + 200, CHROME, "/page/" + page, pass), 200);
            }
            return null;
        });
        ExecutorService pool = Executors.newFixedThreadPool(clients.size());
        try {
            for (Future<Void> done : pool.invokeAll(clients)) {
                done.get();
            }
        } finally {
            pool.shutdownNow();
        }

        agreesWithTheLog(log, List.of(FLEET_A, FLEET_B, FLEET_C));
        List<Line> lines = Files.readAllLines(log).stream().map(AccessLogTruthTest::parse).toList();
        assertThat(count(lines, "REFUSE:CHALLENGE")).as("pages asked under pressure: %s", byOutcome(lines))
                .isPositive();
        assertThat(count(lines, "REFUSE:LOAD") + count(lines, "DELAYED"))
                .as("requests the load deferred: %s", byOutcome(lines)).isPositive();
    }

    /** A server with the test site behind it and its access log in a file; the log's path. */
    private Path start(ForwardingPath path) throws Exception {
        Path log = dir.resolve("access.log");
        server = servers.start(new ServerConfig(new HostPort("127.0.0.1", 0), null, new HostPort("127.0.0.1", 0),
                dir.resolve("state"), null, true, false, log.toString(), ServerConfig.DEFAULT_UPSTREAM_TIMEOUT, null)
                .withFrontPath(path));
        return log;
    }

    /** A pass for a browser of {@code FLEET_A}.200, earned while the check asks everyone (then back to adaptive). */
    private String earnPassUnderPressure() throws Exception {
        server.policyChanges().edit(OPERATOR, p -> p.withBrowserCheck(p.browserCheck()
                .withMode(BrowserCheck.Mode.ALWAYS)));
        String pass = earnPass(FLEET_A + 200, "/page/1");
        server.policyChanges().edit(OPERATOR, p -> p.withBrowserCheck(p.browserCheck()
                .withMode(BrowserCheck.Mode.ADAPTIVE)));
        return pass;
    }

    /**
     * Waits for the log's lines (written by its own thread) and the costs of the requests served (counted when each
     * completes, just after its answer), then holds the snapshot the admin API serves against the log: the totals,
     * each client's row, each address row, each network's row of {@code networks} (prefixes such as
     * {@code "127.0.21."}) with its funnel. Returns the snapshot as it came on the wire.
     */
    private JsonNode agreesWithTheLog(Path log, List<String> networks) throws Exception {
        await(() -> Files.exists(log) && Files.readAllLines(log).size() == sent.get(),
                sent.get() + " lines in the access log");
        List<Line> lines = Files.readAllLines(log).stream().map(AccessLogTruthTest::parse).toList();
        long served = lines.stream().filter(Line::served).count();
        await(() -> snapshot().networks().stream().mapToLong(row -> row.cost().requests()).sum() == served,
                "the snapshot's costs of the " + served + " requests served");
        JsonNode wire = PolicyJson.mapper().readTree(admin("/api/v1/snapshot"));
        snapshot = PolicyJson.mapper().treeToValue(wire, Snapshot.class);

        // the totals: one engine decision per line, by outcome (the pass endpoint's lines are no decision)
        assertThat(totals(snapshot)).as("the totals by outcome").isEqualTo(byOutcome(lines));

        // each client's row: its hits and refusals are its lines'
        Map<String, int[]> expected = new TreeMap<>();
        for (Line line : lines) {
            if (!line.decision().startsWith("PASS")) {
                int[] counts = expected.computeIfAbsent(line.client(), c -> new int[2]);
                counts[0] += line.hit();
                counts[1] += line.refusal() ? 1 : 0;
            }
        }
        List<ClientRow> clients = snapshot.topClients().stream().filter(row -> !row.address()).toList();
        assertThat(snapshot.topClients()).as("fewer rows than the snapshot lists at most: none left out")
                .hasSizeLessThan(EngineConfig.defaults().topClients());
        Map<String, int[]> rows = new TreeMap<>();
        clients.forEach(row -> rows.put(row.ip() + " " + row.userAgent(), new int[] {sum(row.hitsPerSecond()),
                sum(row.refusedPerSecond())}));
        assertThat(describe(rows)).as("each client's row (hits, refusals)").isEqualTo(describe(expected));

        // an address row is its clients' rows together
        for (ClientRow address : snapshot.topClients()) {
            if (address.address()) {
                assertThat(sum(address.hitsPerSecond())).as("the address row of " + address.ip())
                        .isEqualTo(clients.stream().filter(row -> row.ip().equals(address.ip()))
                                .mapToInt(row -> sum(row.hitsPerSecond())).sum());
            }
        }

        // each network's row is its addresses' rows together; its costs are its requests served; its funnel is the
        // check's lines of it
        for (String network : networks) {
            NetworkRow row = snapshot.networks().stream().filter(r -> r.network().equals(network + "0/24"))
                    .findFirst().orElseThrow(() -> new AssertionError("no row for " + network + "0/24"));
            List<ClientRow> members = clients.stream().filter(client -> client.ip().startsWith(network)).toList();
            assertThat(row.hits()).as(network + "0/24's hits").isEqualTo(members.stream()
                    .mapToLong(client -> sum(client.hitsPerSecond())).sum());
            assertThat(row.refused()).as(network + "0/24's refusals").isEqualTo(members.stream()
                    .mapToLong(client -> sum(client.refusedPerSecond())).sum());
            assertThat(row.addresses()).isEqualTo((int) members.stream().map(ClientRow::ip).distinct().count());
            assertThat(row.userAgents()).isEqualTo((int) members.stream().map(ClientRow::userAgent).distinct()
                    .count());
            List<Line> own = lines.stream().filter(line -> line.ip().startsWith(network)).toList();
            assertThat(row.cost().requests()).as(network + "0/24's requests served")
                    .isEqualTo(own.stream().filter(Line::served).count());
            NetworkFunnel funnel = new NetworkFunnel(count(own, "REFUSE:CHALLENGE"), count(own, "PASS"),
                    count(own, "PASS_WEAK"), own.stream().filter(line -> line.decision().startsWith("PASS_REFUSED"))
                    .count(), onPass.getOrDefault(network, 0));
            assertThat(row.funnel()).as(network + "0/24's funnel").isEqualTo(funnel);
        }
        return wire;
    }

    /** A browser of {@code ip} asked for {@code page}, solving the interstitial's proof-of-work: its pass cookie. */
    private String earnPass(String ip, String page) throws Exception {
        HttpResponse<String> asked = expect(get(ip, CHROME, page, null), 403);
        String token = URLDecoder.decode(group(TOKEN, asked.body()), StandardCharsets.UTF_8);
        int bits = Integer.parseInt(group(BITS, asked.body()));
        String nonce = null;
        for (long n = 0; nonce == null; n++) {
            if (ProofOfWork.meets(token, Long.toString(n), bits)) {
                nonce = Long.toString(n);
            }
        }
        HttpResponse<String> earned = expect(get(ip, CHROME, answer(token, nonce, page), null), 303);
        String cookie = earned.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(cookie).startsWith(BrowserPasses.COOKIE + "=");
        return cookie.substring(0, cookie.indexOf(';'));
    }

    /** A browser of {@code ip} asked for {@code page}, answering with a nonce that does not meet the difficulty. */
    private void answerWrong(String ip, String page) throws Exception {
        HttpResponse<String> asked = expect(get(ip, FIREFOX, page, null), 403);
        String token = URLDecoder.decode(group(TOKEN, asked.body()), StandardCharsets.UTF_8);
        int bits = Integer.parseInt(group(BITS, asked.body()));
        long wrong = 0;
        while (ProofOfWork.meets(token, Long.toString(wrong), bits)) {
            wrong++;
        }
        expect(get(ip, FIREFOX, answer(token, Long.toString(wrong), page), null), 403);
    }

    private static String answer(String token, String nonce, String page) {
        return "/.sluice/pass?c=" + URLEncoder.encode(token, StandardCharsets.UTF_8) + "&n=" + nonce + "&r="
                + URLEncoder.encode(page, StandardCharsets.UTF_8);
    }

    private HttpResponse<String> get(String ip, String agent, String target, String cookie) throws Exception {
        return send(ip, agent, "GET", target, cookie);
    }

    /** A request from {@code ip}, as the trusted proxy in front (this test, from 127.0.0.1) reports it. */
    private HttpResponse<String> send(String ip, String agent, String method, String target, String cookie)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.frontUri().resolve(target))
                .header("User-Agent", agent).header("X-Forwarded-For", ip)
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("text=hello"));
        if (cookie != null) {
            request.header("Cookie", cookie);
        }
        sent.incrementAndGet();
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (cookie != null && response.statusCode() == 200) {
            onPass.merge(ip.substring(0, ip.lastIndexOf('.') + 1), 1, Integer::sum);
        }
        return response;
    }

    private static HttpResponse<String> expect(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as("%s %s", response.request().method(), response.request().uri())
                .isEqualTo(status);
        return response;
    }

    private String admin(String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.adminUri().resolve(path))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    private Snapshot snapshot() throws Exception {
        return PolicyJson.mapper().readValue(admin("/api/v1/snapshot"), Snapshot.class);
    }

    private static Line parse(String text) {
        Matcher matcher = LINE.matcher(text);
        assertThat(matcher.matches()).as("an access log line: %s", text).isTrue();
        return new Line(matcher.group(1), matcher.group(2), matcher.group(3), Integer.parseInt(matcher.group(4)),
                matcher.group(5), matcher.group(6));
    }

    /** The snapshot's totals as the log writes outcomes: ADMIT, DELAYED, REFUSE:REASON; none left out at 0. */
    private static Map<String, Long> totals(Snapshot snapshot) {
        Map<String, Long> totals = new TreeMap<>();
        for (ClassCounts counts : snapshot.totals().values()) {
            add(totals, "ADMIT", counts.admitted());
            add(totals, "DELAYED", counts.delayed());
            counts.refused().forEach((reason, count) -> add(totals, "REFUSE:" + reason, count));
        }
        return totals;
    }

    /** The log's lines by outcome, the pass endpoint's left out (no engine decision). */
    private static Map<String, Long> byOutcome(List<Line> lines) {
        Map<String, Long> outcomes = new TreeMap<>();
        lines.stream().filter(line -> !line.decision().startsWith("PASS"))
                .forEach(line -> add(outcomes, line.decision(), 1));
        return outcomes;
    }

    private static void add(Map<String, Long> into, String key, long count) {
        if (count > 0) {
            into.merge(key, count, Long::sum);
        }
    }

    private static long count(List<Line> lines, String decision) {
        return lines.stream().filter(line -> line.decision().equals(decision)).count();
    }

    private static int sum(int[] values) {
        return Arrays.stream(values).sum();
    }

    /** Client to "hits/refusals", comparable as text so a failure lists every row. */
    private static Map<String, String> describe(Map<String, int[]> counts) {
        Map<String, String> text = new TreeMap<>();
        counts.forEach((client, pair) -> text.put(client, pair[0] + " hits / " + pair[1] + " refused"));
        return text;
    }

    private static String group(Pattern pattern, String body) {
        Matcher matcher = pattern.matcher(body);
        assertThat(matcher.find()).as("the interstitial carries its challenge: %s", body).isTrue();
        return matcher.group(1);
    }
}
