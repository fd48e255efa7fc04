package io.sluice.console.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.RequestCost;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The snapshots a console is sent, one a second, while a real engine decides a steady load: the fleet (1,000
 * addresses in 20 /24s with current browser user agents, no JavaScript) beside people and a site copier, or a quiet
 * day of a few people. The engine runs on a clock of its own, so a minute of 5,000 requests a second takes the CPU
 * seconds it takes, and each snapshot is the admin API's JSON ({@code GET /api/v1/snapshot}).
 */
final class FleetSnapshots {
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private static final String[] BROWSERS = {
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 "
                + "Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 "
                + "Safari/605.1.15",
        "Mozilla/5.0 (X11; Linux x86_64; rv:145.0) Gecko/20100101 Firefox/145.0",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 26_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                + "Version/26.1 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 "
                + "Safari/537.36 Edg/142.0.0.0"};
    private static final String[] PAGES = {"/", "/search", "/wiki/Sluice", "/history/1234", "/archive.zip"};
    private static final String[] ASSETS = {"/static/app.css", "/static/app.js", "/static/logo.png"};

    /** A steady load: requests a second, and who sends them. */
    record Load(String name, int requestsPerSecond, int fleetAddresses, int people) {
        static final Load FLEET = new Load("fleet", 5_000, 1_000, 50);
        static final Load QUIET = new Load("quiet", 40, 0, 10);
    }

    private FleetSnapshots() {
    }

    /**
     * The JSON of {@code count} snapshots, one at the end of each second of {@code load}, after {@code warmSeconds}
     * seconds of it (the hit stacks and cost windows full).
     */
    static List<String> of(Load load, int warmSeconds, int count) throws JsonProcessingException {
        long start = Instant.parse("2026-12-02T03:00:00Z").toEpochMilli();
        long[] now = {start};
        InstantSource clock = () -> Instant.ofEpochMilli(now[0]);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
                CrawlerListClassifier.bundled());
        Random random = new Random(47);
        List<String> snapshots = new ArrayList<>();
        for (int second = 0; second < warmSeconds + count; second++) {
            for (int i = 0; i < load.requestsPerSecond(); i++) {
                now[0] = start + second * 1000L + i * 1000L / load.requestsPerSecond();
                decide(engine, next(load, random));
            }
            now[0] = start + second * 1000L + 999;
            if (second >= warmSeconds) {
                snapshots.add(JSON.writeValueAsString(engine.snapshot()));
            }
        }
        return snapshots;
    }

    private static Request next(Load load, Random random) {
        int who = random.nextInt(100);
        if (load.fleetAddresses() > 0 && who < 90) { // the fleet: a page each time, no pass, no JavaScript
            int address = random.nextInt(load.fleetAddresses());
            return navigation("127.1." + address / 50 + "." + (1 + address % 50),
                    BROWSERS[address % BROWSERS.length], PAGES[random.nextInt(PAGES.length)]);
        }
        if (load.fleetAddresses() > 0 && who < 92) { // a site copier, one address, its own user agent
            return Request.get("198.51.100.66", "HTTrack 3.0", "/wiki/page" + random.nextInt(10_000));
        }
        int person = random.nextInt(load.people());
        String address = "10." + person / 200 + "." + (person / 10) % 20 + "." + (1 + person % 10);
        String agent = BROWSERS[person % BROWSERS.length];
        return random.nextInt(15) == 0 ? navigation(address, agent, PAGES[random.nextInt(PAGES.length)])
                : new Request(address, agent, null, "GET", ASSETS[random.nextInt(ASSETS.length)], null, "script",
                "no-cors", "*/*", null);
    }

    private static Request navigation(String address, String agent, String path) {
        return new Request(address, agent, null, "GET", path, null, "document", "navigate", "text/html", null);
    }

    /** Decides as a front end would, the upstream answering at once with a cost of a few milliseconds. */
    private static void decide(ThrottleEngine engine, Request request) {
        Decision decision = engine.decide(request);
        if (decision instanceof Decision.Wait wait) {
            decision = wait.deferral().resume();
        }
        if (decision instanceof Decision.Admit admit) {
            long upstream = request.path().startsWith("/search") ? 200_000_000L : 4_000_000L;
            admit.admission().complete(200, upstream, new RequestCost(upstream / 2, upstream, 0, 24_000));
        }
    }
}
