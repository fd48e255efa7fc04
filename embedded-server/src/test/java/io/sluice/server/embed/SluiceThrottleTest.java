package io.sluice.server.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Embedded mode: the throttle inside a site's own Jetty server, the admin API beside it, over real HTTP. */
class SluiceThrottleTest {
    private static final String CURL = "curl/8.5.0";

    private final AtomicInteger siteHits = new AtomicInteger();
    private HttpClient client;
    private Server site;
    private SluiceThrottle sluice;
    private URI siteUri;

    @BeforeEach
    void startSiteWithSluiceInside(@TempDir Path state) throws Exception {
        sluice = SluiceThrottle.builder().stateDirectory(state).admin("127.0.0.1", 0).build();
        site = new Server();
        ServerConnector connector = new ServerConnector(site);
        connector.setHost("127.0.0.1");
        site.addConnector(connector);
        site.setHandler(sluice.protect(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                siteHits.incrementAndGet();
                Content.Sink.write(response, true, "the site's own page", callback);
                return true;
            }
        }));
        site.addBean(sluice);
        site.start();
        siteUri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
        client = new HttpClient();
        client.start();
    }

    @AfterEach
    void stop() throws Exception {
        client.stop();
        site.stop();
    }

    @Test
    void anAdmittedRequestIsAnsweredByTheSitesOwnHandler() throws Exception {
        ContentResponse page = get(siteUri, CURL);

        assertThat(page.getStatus()).isEqualTo(200);
        assertThat(page.getContentAsString()).isEqualTo("the site's own page");
        assertThat(page.getHeaders().get("RateLimit-Policy")).as("a bot's answer carries its quota").isNotNull();
    }

    @Test
    void aBanMadeThroughTheAdminApiStopsTheNextRequestBeforeTheSite() throws Exception {
        assertThat(get(siteUri, CURL).getStatus()).isEqualTo(200);

        ContentResponse ban = client.newRequest(sluice.adminUri().resolve("/api/v1/bans")).method(HttpMethod.POST)
                .headers(h -> h.put(HttpHeader.AUTHORIZATION, "Bearer " + sluice.adminToken()))
                .body(new StringRequestContent("application/json",
                        "{\"type\": \"agent\", \"value\": \"curl\", \"reason\": \"test\"}"))
                .timeout(10, TimeUnit.SECONDS).send();

        assertThat(ban.getStatus()).isEqualTo(201);
        assertThat(get(siteUri, CURL).getStatus()).isEqualTo(403);
        assertThat(siteHits).hasValue(1);
    }

    @Test
    void theAdminApiAnswersTheConsolesSnapshotWithTheTokenOnly() throws Exception {
        ContentResponse withToken = client.newRequest(sluice.adminUri().resolve("/api/v1/snapshot"))
                .headers(h -> h.put(HttpHeader.AUTHORIZATION, "Bearer " + sluice.adminToken()))
                .timeout(10, TimeUnit.SECONDS).send();
        ContentResponse without = client.newRequest(sluice.adminUri().resolve("/api/v1/snapshot"))
                .timeout(10, TimeUnit.SECONDS).send();

        assertThat(withToken.getStatus()).isEqualTo(200);
        assertThat(withToken.getContentAsString()).contains("\"load\"");
        assertThat(withToken.getHeaders().get(HttpHeader.SERVER)).as("no server software named").isNull();
        assertThat(without.getStatus()).isEqualTo(401);
    }

    @Test
    void theAdminListenerStopsWithTheSitesServer() throws Exception {
        URI admin = sluice.adminUri();
        site.stop();

        assertThatThrownBy(() -> client.newRequest(admin.resolve("/api/v1/snapshot"))
                .timeout(5, TimeUnit.SECONDS).send()).hasRootCauseInstanceOf(java.net.ConnectException.class);
    }

    @Test
    void aStateDirectoryIsRequired() {
        assertThatThrownBy(() -> SluiceThrottle.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("state directory");
    }

    private ContentResponse get(URI uri, String userAgent) throws Exception {
        return client.newRequest(uri).headers(h -> h.put(HttpHeader.USER_AGENT, userAgent))
                .timeout(10, TimeUnit.SECONDS).send();
    }
}
