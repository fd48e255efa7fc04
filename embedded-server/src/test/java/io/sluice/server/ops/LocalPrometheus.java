package io.sluice.server.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.localredis.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus (Debian's {@code prometheus} package, which {@code scripts/test-real-parts.sh} installs) on a
 * free loopback port with its own data directory, scraping and evaluating every second.
 */
final class LocalPrometheus implements AutoCloseable {
    static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
    static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    static final String MISSING = "needs Debian's prometheus package (/usr/bin/prometheus, /usr/bin/promtool): "
            + "scripts/test-real-parts.sh installs it (apt-get install -y --no-install-recommends prometheus)";

    private final Process process;
    private final Path log;
    private final URI uri;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    private LocalPrometheus(Process process, Path log, URI uri) {
        this.process = process;
        this.log = log;
        this.uri = uri;
    }

    /**
     * Starts Prometheus in {@code dir} with {@code rules}, scraping {@code target} ({@code host:port} of an admin
     * listener) at {@code /metrics} with {@code token} as bearer credentials.
     */
    static LocalPrometheus start(Path dir, Path rules, String target, String token) throws IOException {
        Path tokenFile = dir.resolve("token");
        Files.writeString(tokenFile, token);
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  scrape_timeout: 1s",
                "  evaluation_interval: 1s",
                "rule_files:",
                "  - " + rules.toAbsolutePath(),
                "scrape_configs:",
                "  - job_name: sluice",
                "    metrics_path: /metrics",
                "    authorization:",
                "      type: Bearer",
                "      credentials_file: " + tokenFile.toAbsolutePath(),
                "    static_configs:",
                "      - targets: [\"" + target + "\"]",
                ""));
        int port = FreePorts.forAProcess();
        Path log = dir.resolve("prometheus.log");
        Process process = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new LocalPrometheus(process, log, URI.create("http://127.0.0.1:" + port));
    }

    /** {@code GET path} of the HTTP API, its {@code data}; null while Prometheus is not answering yet. */
    JsonNode get(String path) throws InterruptedException {
        if (!process.isAlive()) {
            throw new IllegalStateException("prometheus exited with " + process.exitValue() + ":\n" + logTail());
        }
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri.resolve(path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return null;
            }
            return json.readTree(response.body()).path("data");
        } catch (IOException e) {
            return null;
        }
    }

    /** The value of an instant query's first result, or NaN without one (or before Prometheus answers). */
    double query(String promql) throws InterruptedException {
        JsonNode data = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        if (data == null || data.path("result").isEmpty()) {
            return Double.NaN;
        }
        return Double.parseDouble(data.path("result").get(0).path("value").get(1).asText());
    }

    /** Every alert pending or firing, as Prometheus's {@code /api/v1/alerts} lists them (empty before it answers). */
    List<JsonNode> alerts() throws InterruptedException {
        JsonNode data = get("/api/v1/alerts");
        List<JsonNode> alerts = new ArrayList<>();
        if (data != null) {
            data.path("alerts").forEach(alerts::add);
        }
        return alerts;
    }

    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
