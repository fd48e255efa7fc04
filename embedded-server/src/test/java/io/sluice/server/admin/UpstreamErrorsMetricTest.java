package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.sluice.server.ForwardingPath;
import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code sluice_upstream_errors_total{reason}}: a 502 for an upstream nobody listens on, a 504 for one that does not
 * answer in time, on both forwarding paths; an upstream's own 502 is passed on and not counted.
 */
class UpstreamErrorsMetricTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final CountDownLatch release = new CountDownLatch(1);
    private final ExecutorService upstreamThreads = Executors.newCachedThreadPool();
    private HttpServer site;

    @AfterEach
    void stop() {
        release.countDown();
        if (site != null) {
            site.stop(0);
        }
        upstreamThreads.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(ForwardingPath.class)
    void failedUpstreamsAreCountedByReason(ForwardingPath path) throws Exception {
        site = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        site.setExecutor(upstreamThreads);
        site.createContext("/silent", exchange -> {
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        site.createContext("/own-502", exchange -> {
            exchange.sendResponseHeaders(502, -1);
            exchange.close();
        });
        site.start();
        URI siteUri = URI.create("http://127.0.0.1:" + site.getAddress().getPort() + "/");
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }

        SluiceServer toSite = start(siteUri, path, "site");
        SluiceServer toNothing = start(URI.create("http://127.0.0.1:" + closedPort + "/"), path, "nothing");
        assertThat(status(toSite, "/own-502")).isEqualTo(502);
        assertThat(status(toSite, "/silent")).isEqualTo(504);
        assertThat(status(toNothing, "/")).isEqualTo(502);

        assertThat(metrics(toSite)).contains("sluice_upstream_errors_total{reason=\"timeout\"} 1.0",
                "sluice_upstream_errors_total{reason=\"connect\"} 0.0",
                "sluice_upstream_errors_total{reason=\"broken\"} 0.0");
        assertThat(metrics(toNothing)).contains("sluice_upstream_errors_total{reason=\"connect\"} 1.0",
                "sluice_upstream_errors_total{reason=\"timeout\"} 0.0");
    }

    private SluiceServer start(URI upstream, ForwardingPath path, String name) throws Exception {
        return servers.add(SluiceServer.start(new ServerConfig(new HostPort("127.0.0.1", 0), upstream,
                new HostPort("127.0.0.1", 0), state.resolve(name), null, false, false, null, Duration.ofSeconds(1),
                null).withFrontPath(path)));
    }

    private int status(SluiceServer server, String target) throws Exception {
        return http.send(HttpRequest.newBuilder(server.frontUri().resolve(target)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private String metrics(SluiceServer server) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
