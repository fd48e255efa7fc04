package io.sluice.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.Servers;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped alert rules in a real Prometheus scraping a real front end (docs/manual/monitoring.md): quiet
 * traffic leaves every alert silent, and browsers refused (the BROWSER class paused) make SluiceBrowsersRefused
 * fire. The rules' {@code for:} durations are cut to 1 s, as an operator trying them would; the expressions are
 * the shipped ones.
 */
@RealParts
class AlertsFireTest {
    /** A rule's {@code for:} line (a whole line: runbook text may say "for:" too). */
    private static final Pattern FOR = Pattern.compile("(?m)^(\\s+)for: \\S+$");
    static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

    @TempDir
    Path dir;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ScheduledExecutorService browser = Executors.newSingleThreadScheduledExecutor();
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    private SluiceServer server;
    private LocalPrometheus prometheus;

    @AfterEach
    void stop() throws Exception {
        browser.shutdownNow();
        browser.awaitTermination(10, TimeUnit.SECONDS);
        if (prometheus != null) {
            prometheus.close();
        }
    }

    @Test
    void promtoolAcceptsTheShippedRules() throws Exception {
        assertThat(LocalPrometheus.PROMTOOL).as(LocalPrometheus.MISSING).isExecutable();
        Process check = new ProcessBuilder(LocalPrometheus.PROMTOOL.toString(), "check", "rules",
                MonitoringFiles.rules().toString()).redirectErrorStream(true).start();
        String output = new String(check.getInputStream().readAllBytes());

        assertThat(check.waitFor()).as(output).isZero();
        assertThat(output).contains("SUCCESS");
    }

    @Test
    void quietTrafficLeavesEveryAlertSilentAndRefusedBrowsersFire() throws Exception {
        assertThat(LocalPrometheus.PROMETHEUS).as(LocalPrometheus.MISSING).isExecutable();
        server = servers.start(ServerConfig.demo(dir.resolve("state")));
        Path rules = dir.resolve("sluice-alerts.yml");
        Files.writeString(rules, FOR.matcher(Files.readString(MonitoringFiles.rules())).replaceAll("$1for: 1s"));
        prometheus = LocalPrometheus.start(dir, rules,
                server.adminUri().getHost() + ":" + server.adminUri().getPort(), server.adminToken());
        // A page every 2 s: a person reading, inside the default hit stack (10 pages in 15 s). A fixed delay, so
        // a stalled run is not made up for with a burst.
        browser.scheduleWithFixedDelay(this::browse, 0, 2, TimeUnit.SECONDS);

        // Quiet: a browser reading pages, scraped for a few seconds and every rule evaluated after that.
        waitFor("six scrapes of the front end", Duration.ofSeconds(30),
                () -> query("count_over_time(up{job=\"sluice\"}[1m])") >= 6 && query("up") == 1);
        Instant scraped = Instant.now();
        waitFor("every rule evaluated after the scrapes", Duration.ofSeconds(15),
                () -> rules().stream().allMatch(r -> Instant.parse(r.path("lastEvaluation").asText())
                        .isAfter(scraped)));

        long shipped = Files.readString(MonitoringFiles.rules()).lines().filter(l -> l.trim().startsWith("- alert:"))
                .count();
        assertThat(rules()).hasSize((int) shipped).allSatisfy(rule -> assertThat(rule.path("health").asText())
                .as(rule.path("name").asText() + ": " + rule.path("lastError").asText()).isEqualTo("ok"));
        assertThat(prometheus.alerts()).as("alerts in a quiet minute").isEmpty();
        assertThat(query("sum(sluice_requests_total{class=\"BROWSER\",outcome=\"ADMITTED\"})"))
                .as("browser requests Prometheus saw admitted").isPositive();
        assertThat(statuses).containsOnlyKeys(200);

        // Attack, as a browser sees it: the BROWSER class paused, its requests refused.
        HttpResponse<String> paused = http.send(HttpRequest.newBuilder(server.adminUri().resolve("/api/v1/pause"))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + server.adminToken())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"class\":\"BROWSER\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);

        waitFor("SluiceBrowsersRefused firing", Duration.ofSeconds(40),
                () -> firing().contains("SluiceBrowsersRefused"));
        assertThat(statuses).containsKey(503);
    }

    private void browse() {
        try {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(server.frontUri().resolve("/"))
                    .timeout(Duration.ofSeconds(10)).header("User-Agent", FIREFOX).build(),
                    HttpResponse.BodyHandlers.discarding());
            statuses.computeIfAbsent(response.statusCode(), s -> new AtomicInteger()).incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            statuses.computeIfAbsent(-1, s -> new AtomicInteger()).incrementAndGet();
        }
    }

    private List<String> firing() {
        List<String> names = new ArrayList<>();
        for (JsonNode alert : call(() -> prometheus.alerts())) {
            if ("firing".equals(alert.path("state").asText())) {
                names.add(alert.path("labels").path("alertname").asText());
            }
        }
        return names;
    }

    private List<JsonNode> rules() {
        JsonNode data = call(() -> prometheus.get("/api/v1/rules"));
        List<JsonNode> rules = new ArrayList<>();
        if (data != null) {
            data.path("groups").forEach(group -> group.path("rules").forEach(rules::add));
        }
        return rules;
    }

    private double query(String promql) {
        return call(() -> prometheus.query(promql));
    }

    private interface Call<T> {
        T get() throws InterruptedException;
    }

    private static <T> T call(Call<T> call) {
        try {
            return call.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls {@code condition} until it holds; fails naming it, with Prometheus's log, at the deadline. */
    private void waitFor(String what, Duration deadline, BooleanSupplier condition) throws InterruptedException {
        if (!Await.within(deadline, condition::getAsBoolean)) {
            throw new AssertionError("no " + what + " within " + deadline + "; alerts " + prometheus.alerts()
                    + "; browser statuses " + statuses + "\nprometheus log:\n" + prometheus.logTail());
        }
    }
}
