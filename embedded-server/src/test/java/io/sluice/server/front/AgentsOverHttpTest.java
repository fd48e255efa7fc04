package io.sluice.server.front;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Category;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.AgentRow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Agents end to end, over loopback through the front end to an upstream (docs/manual/policy.md, "Agents"): each
 * category gets its action, robots.txt is read from the upstream and served with the trap, a crawler that breaks it
 * is counted and banned by the escalation rule while one that keeps it never is, and the trap marks a plain client
 * but never a verified crawler. Any 127/8 address is this machine's: the policy's verified ranges hold
 * {@link #VERIFIED}, so a claim from {@link #ELSEWHERE} is unverified.
 */
class AgentsOverHttpTest {

    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-22T12:00:00Z"));
    private static final String VERIFIED = "127.0.0.2";
    private static final String ELSEWHERE = "127.0.0.3";

    /** A user agent of each category, from the shipped list's examples. */
    private static final Map<Category, String> AGENTS = new LinkedHashMap<>();

    static {
        AGENTS.put(Category.SEARCH_ENGINE, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
        AGENTS.put(Category.AI_TRAINING, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; "
                + "+https://openai.com/gptbot)");
        AGENTS.put(Category.AI_SEARCH, "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; "
                + "ChatGPT-User/1.0; +https://openai.com/bot");
        AGENTS.put(Category.ARCHIVE, "ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)");
        AGENTS.put(Category.SEO, "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)");
        AGENTS.put(Category.FEED_READER, "Feedly/1.0 (+http://www.feedly.com/fetcher.html; like FeedFetcher-Google)");
        AGENTS.put(Category.MONITOR, "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)");
        AGENTS.put(Category.OTHER, "curl/8.5.0");
    }

    private static final String FIREFOX =
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0";
    private static final String ROBOTS = "User-agent: *\nDisallow: /private\n\nUser-agent: Googlebot\nAllow: /\n";

    private final List<Server> servers = new ArrayList<>();
    private final List<String> upstreamSaw = new CopyOnWriteArrayList<>();
    private ThrottleEngine engine;
    private RobotsReader robots;
    private int port;

    @AfterEach
    void stop() throws Exception {
        for (Server server : servers) {
            server.stop();
        }
    }

    @Test
    void eachCategoryGetsItsAction() throws Exception {
        Map<Category, Agents.CategoryRule> rules = Map.of(
                Category.AI_TRAINING, new Agents.CategoryRule(Agents.Action.REFUSE, null, 402, "Licence at /licence"),
                Category.AI_SEARCH, new Agents.CategoryRule(Agents.Action.ALLOW, null, null, null),
                Category.ARCHIVE, new Agents.CategoryRule(Agents.Action.CHALLENGE, null, null, null),
                Category.SEO, new Agents.CategoryRule(Agents.Action.REFUSE, null, null, null),
                Category.FEED_READER, new Agents.CategoryRule(Agents.Action.ALLOW, null, null, null),
                Category.MONITOR, new Agents.CategoryRule(Agents.Action.REFUSE, null, null, "No monitors here."));
        start(new Agents(rules, null, null));
        Map<Category, Integer> expected = Map.of(Category.SEARCH_ENGINE, 200, Category.AI_TRAINING, 402,
                Category.AI_SEARCH, 200, Category.ARCHIVE, 403, Category.SEO, 403, Category.FEED_READER, 200,
                Category.MONITOR, 403, Category.OTHER, 200);
        for (Map.Entry<Category, String> agent : AGENTS.entrySet()) {
            Answer answer = get(VERIFIED, "/page/1", agent.getValue());
            assertThat(answer.status()).as(agent.getKey().wire()).isEqualTo(expected.get(agent.getKey()));
        }
        assertThat(get(VERIFIED, "/page/2", AGENTS.get(Category.AI_TRAINING)).body()).contains("Licence at /licence");
        assertThat(get(VERIFIED, "/page/2", AGENTS.get(Category.MONITOR)).body()).contains("No monitors here.");
        assertThat(get(VERIFIED, "/page/2", AGENTS.get(Category.ARCHIVE)).body())
                .as("the browser check's interstitial").contains("<script");
        assertThat(get(ELSEWHERE, "/page/3", AGENTS.get(Category.AI_TRAINING)).status())
                .as("an unverified claim of a refused category is refused").isEqualTo(402);
        for (int i = 0; i < 5; i++) {
            assertThat(get(VERIFIED, "/page/" + i, AGENTS.get(Category.AI_SEARCH)).status())
                    .as("allowed: no crawler spacing").isEqualTo(200);
        }
        assertThat(get(VERIFIED, "/page/9", AGENTS.get(Category.SEARCH_ENGINE)).status())
                .as("crawled: today's crawler spacing").isEqualTo(503);
        assertThat(engine.snapshot().agents().agents()).extracting(AgentRow::name)
                .contains("Googlebot", "GPTBot", "ChatGPT-User", "ia_archiver", "AhrefsBot");
    }

    @Test
    void robotsTxtIsReadServedAndABreakerIsCountedThenBannedWhileAKeeperIsNot() throws Exception {
        start(new Agents(Map.of(), new Agents.Robots(new Escalation(Escalation.Scope.CLIENT, 3, 600, 3600, 2,
                86_400)), null));
        await(() -> engine.snapshot().agents().robotsReadAt() != null, "robots.txt read from the upstream");
        Answer served = get(ELSEWHERE, "/robots.txt", FIREFOX);
        assertThat(served.status()).isEqualTo(200);
        assertThat(served.body()).isEqualTo(ROBOTS);
        assertThat(upstreamSaw).as("answered by Sluice from its copy").containsExactly("/robots.txt");

        String seo = AGENTS.get(Category.SEO);
        String googlebot = AGENTS.get(Category.SEARCH_ENGINE);
        for (int i = 0; i < 3; i++) {
            assertThat(get(ELSEWHERE, "/private/" + i, seo).status()).isEqualTo(200);
            assertThat(get(VERIFIED, "/private/" + i, googlebot).status()).as("its own group allows it")
                    .isIn(200, 503);
        }
        assertThat(get(ELSEWHERE, "/public", seo).status()).as("banned by the robots.txt rule").isEqualTo(403);
        Map<String, AgentRow> rows = new LinkedHashMap<>();
        engine.snapshot().agents().agents().forEach(row -> rows.put(row.name(), row));
        assertThat(rows.get("AhrefsBot").disallowed()).isEqualTo(3);
        assertThat(rows.get("Googlebot").disallowed()).isZero();
        assertThat(engine.pendingAutomaticBans()).singleElement()
                .satisfies(ban -> assertThat(ban.value()).endsWith("|" + seo));
    }

    @Test
    void theTrapIsDisallowedInTheServedRobotsTxtAndMarksAPlainClientButNeverAVerifiedCrawler() throws Exception {
        start(new Agents(Map.of(), null, new Agents.Trap("/.hidden/", Agents.TrapAction.CHALLENGE, 600, false)));
        await(() -> engine.snapshot().agents().robotsReadAt() != null, "robots.txt read from the upstream");
        String served = get(ELSEWHERE, "/robots.txt", FIREFOX).body();
        assertThat(served).contains("User-agent: *\nDisallow: /.hidden/\n",
                "User-agent: Googlebot\nDisallow: /.hidden/\n");

        assertThat(get(ELSEWHERE, "/page", FIREFOX).status()).isEqualTo(200);
        assertThat(get(ELSEWHERE, "/.hidden/x", FIREFOX).status()).isEqualTo(403);
        Answer after = get(ELSEWHERE, "/page", FIREFOX);
        assertThat(after.status()).isEqualTo(403);
        assertThat(after.body()).as("challenged: the interstitial").contains("<script");

        String googlebot = AGENTS.get(Category.SEARCH_ENGINE);
        assertThat(get(VERIFIED, "/.hidden/x", googlebot).status()).isEqualTo(403);
        assertThat(get(VERIFIED, "/page", FIREFOX).status()).as("a verified crawler's address is never marked")
                .isEqualTo(200);
        assertThat(upstreamSaw).as("the trap never reaches the upstream")
                .noneMatch(path -> path.startsWith("/.hidden"));
    }

    private void start(Agents agents) throws Exception {
        URI upstream = upstream();
        Policy policy = FrontUnderTest.ADMIT_ALL
                .withCrawlers(new Policy.Crawlers(30, 0, true, verifiedAtLoopback()))
                .withAgents(agents);
        engine = new ThrottleEngine(EngineConfig.defaults(), CLOCK, policy, CrawlerListClassifier.bundled());
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        robots = new RobotsReader(engine, upstream, Duration.ofHours(1), Duration.ofSeconds(5));
        server.addBean(robots);
        server.setHandler(new ThrottleHandler(engine, CLOCK, null, UpstreamProxy.to(upstream, Duration.ofSeconds(5)),
                robots));
        server.start();
        servers.add(server);
        port = connector.getLocalPort();
    }

    private static Map<String, List<String>> verifiedAtLoopback() {
        Map<String, List<String>> ranges = new LinkedHashMap<>();
        for (String name : List.of("Googlebot", "GPTBot", "ChatGPT-User", "ia_archiver", "AhrefsBot", "Feedly",
                "UptimeRobot")) {
            ranges.put(name, List.of(VERIFIED));
        }
        return ranges;
    }

    private URI upstream() throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                String path = request.getHttpURI().getPath();
                upstreamSaw.add(path);
                Content.Sink.write(response, true, path.equals("/robots.txt") ? ROBOTS : "page " + path, callback);
                return true;
            }
        });
        server.start();
        servers.add(server);
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }

    private record Answer(int status, String body) {
    }

    /** {@code path} as {@code agent}, sent from {@code localAddress}. */
    private Answer get(String localAddress, String path, String agent) throws IOException {
        try (Socket socket = new Socket(InetAddress.getByName("127.0.0.1"), port, InetAddress.getByName(localAddress),
                0)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUser-Agent: " + agent
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String response = all.toString(StandardCharsets.UTF_8);
            int status = Integer.parseInt(response.substring(9, 12));
            int bodyStart = response.indexOf("\r\n\r\n");
            String body = bodyStart < 0 ? "" : response.substring(bodyStart + 4);
            if (response.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
                body = unchunk(body);
            }
            return new Answer(status, body);
        }
    }

    private static String unchunk(String chunked) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int lineEnd = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, lineEnd).trim(), 16);
            if (size == 0) {
                return out.toString();
            }
            out.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
    }
}
