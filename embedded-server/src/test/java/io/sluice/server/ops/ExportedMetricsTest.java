package io.sluice.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric the shipped Grafana dashboard and alert rules read is one a real front end exports on
 * {@code /metrics}: renaming a metric breaks the build here, not an operator's dashboard months later.
 */
class ExportedMetricsTest {
    /** Made by Prometheus for each target, not by Sluice. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up");

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private SluiceServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
    }

    @Test
    void everyMetricTheRulesReadIsExported() throws Exception {
        Set<String> used = MonitoringFiles.metricNames(MonitoringFiles.ruleExpressions());

        assertThat(used).contains("sluice_requests_total", "sluice_cluster_degraded",
                "sluice_access_log_dropped_lines_total", "sluice_automatic_bans_not_made_total",
                "sluice_upstream_errors_total", "up");
        assertThat(exported()).containsAll(without(used, PROMETHEUS_OWN));
    }

    @Test
    void everyMetricTheDashboardReadsIsExported() throws Exception {
        Set<String> used = MonitoringFiles.metricNames(MonitoringFiles.dashboardExpressions());

        assertThat(used).contains("sluice_requests_total", "sluice_upstream_latency_seconds",
                "sluice_governor_domains", "sluice_front_connections_shed_total", "sluice_upstream_errors_total");
        assertThat(exported()).containsAll(used);
    }

    @Test
    void theEvictionsCounterStandsBesideTheOldGauge() throws Exception {
        String body = scrape();

        assertThat(body).contains("# TYPE sluice_clients_evicted_total counter\n",
                "# TYPE sluice_clients_evicted gauge\n");
        assertThat(exported()).contains("sluice_clients_evicted_total", "sluice_clients_evicted");
    }

    @Test
    void costIsExportedPerClassAndNothingFiner() throws Exception {
        String body = scrape();

        assertThat(exported()).contains("sluice_cost_requests_total", "sluice_cost_weight_total",
                "sluice_cost_upstream_seconds_total", "sluice_cost_upstream_first_byte_seconds_total",
                "sluice_cost_request_bytes_total", "sluice_cost_response_bytes_total", "sluice_cost_networks_tracked",
                "sluice_cost_networks_capacity", "sluice_cost_networks_evicted_total");
        for (String line : body.split("\n")) {
            if (line.startsWith("sluice_cost_") && line.contains("{")) {
                assertThat(line).as("a cost series is labelled by its class only").matches(
                        "sluice_cost_[a-z_]+\\{class=\"(BROWSER|CRAWLER|BOT)\"\\} .*");
            }
        }
    }

    @Test
    void signedRequestsAreCountedByOutcome() throws Exception {
        assertThat(scrape()).contains("# TYPE sluice_signed_agent_requests_total counter\n",
                "sluice_signed_agent_requests_total{outcome=\"invalid\"} 0.0\n",
                "sluice_signed_agent_directory_fetches_total{outcome=\"fetched\"} 0.0\n",
                "sluice_signed_agent_directory_fetches_total{outcome=\"not_started\"} 0.0\n");

        // Two signed requests whose signatures cannot be checked: a header missing, then one that does not parse.
        for (String input : new String[] {"sig1=(\"@authority\");tag=\"web-bot-auth\"", "sig1=((("}) {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(server.frontUri().resolve("/"))
                    .timeout(Duration.ofSeconds(10)).header("User-Agent", AlertsFireTest.FIREFOX)
                    .header("Signature-Input", input).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(response.statusCode()).as("a refused signature is a claim refused, never an error")
                    .isEqualTo(200);
        }

        String body = scrape();
        assertThat(body).contains("sluice_signed_agent_requests_total{outcome=\"invalid\"} 2.0\n",
                "sluice_signed_agent_requests_total{outcome=\"verified\"} 0.0\n",
                "sluice_signed_agent_requests_total{outcome=\"unverified\"} 0.0\n",
                "sluice_signed_agent_directory_fetches_total{outcome=\"failed\"} 0.0\n");
    }

    /** The names of the samples of one scrape. */
    private Set<String> exported() throws Exception {
        Set<String> names = new TreeSet<>();
        for (String line : scrape().split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** One scrape of {@code /metrics}, after a request so that the per-class counters have series. */
    private String scrape() throws Exception {
        http.send(HttpRequest.newBuilder(server.frontUri().resolve("/")).timeout(Duration.ofSeconds(10))
                .header("User-Agent", AlertsFireTest.FIREFOX).build(), HttpResponse.BodyHandlers.discarding());
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.statusCode()).isEqualTo(200);
        return metrics.body();
    }

    private static Set<String> without(Set<String> names, Set<String> others) {
        Set<String> rest = new TreeSet<>(names);
        rest.removeAll(others);
        return rest;
    }
}
