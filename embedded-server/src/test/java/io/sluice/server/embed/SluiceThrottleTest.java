package io.sluice.server.embed;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.RequestClass;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClientRow;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
    private static final String GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    /** Not in Google's published ranges (as a Googlebot address newer than the shipped ones): only DNS can tell. */
    private static final IpAddress GOOGLEBOTS_ADDRESS = IpAddress.parse("192.0.2.10");
    private static final String GOOGLEBOTS_NAME = "crawl-192-0-2-10.googlebot.com";

    /** Forward-confirmed reverse DNS that knows one Googlebot address; every other address has no name. */
    private static final SearchEngineVerifier.Resolver DNS = new SearchEngineVerifier.Resolver() {
        @Override
        public List<String> reverse(IpAddress address) {
            return address.equals(GOOGLEBOTS_ADDRESS) ? List.of(GOOGLEBOTS_NAME) : List.of();
        }

        @Override
        public List<IpAddress> forward(String hostName) {
            return hostName.equals(GOOGLEBOTS_NAME) ? List.of(GOOGLEBOTS_ADDRESS) : List.of();
        }
    };

    private final AtomicInteger siteHits = new AtomicInteger();
    private HttpClient client;
    private Server site;
    private SluiceThrottle sluice;
    private URI siteUri;
    private Path state;

    @BeforeEach
    void startSiteWithSluiceInside(@TempDir Path state) throws Exception {
        this.state = state;
        sluice = SluiceThrottle.builder().stateDirectory(state).admin("127.0.0.1", 0).searchEngineResolver(DNS)
                .build();
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
    void startingAgainAfterAStopIsRefusedWithAClearErrorInsteadOfDecidingWithoutItsRecorder() throws Exception {
        site.stop();

        assertThatThrownBy(site::start).hasMessageContaining("cannot start again once stopped");
    }

    @Test
    void theAdminListenerStopsWithTheSitesServer() throws Exception {
        URI admin = sluice.adminUri();
        site.stop();

        assertThatThrownBy(() -> client.newRequest(admin.resolve("/api/v1/snapshot"))
                .timeout(5, TimeUnit.SECONDS).send()).hasRootCauseInstanceOf(ConnectException.class);
    }

    @Test
    void anAutomaticBanIsPersistedAndAuditedInTheStateDirectory() throws Exception {
        sluice.engine().updatePolicy(p -> p.withEscalation(List.of(
                new Escalation(Escalation.Scope.CLIENT, 3, 60, 600, 2.0, 3_600))));
        for (int i = 0; i < 14; i++) {
            get(siteUri, CURL); // the default hit stack refuses the 11th on: three refusals are an offence
        }

        assertThat(get(siteUri, CURL).getStatus()).isEqualTo(403);
        Ban ban = sluice.engine().snapshot().bans().get(0); // in force at once, written a moment later
        assertThat(ban.author()).isEqualTo("sluice");
        Path policyFile = state.resolve("policy.json");
        Path audit = state.resolve("audit.log");
        // the policy writer writes on a thread of its own
        await(() -> contains(policyFile, ban.id()) && contains(audit, ban.id()), "the ban written and audited");
        assertThat(Files.readString(policyFile)).contains(ban.id(), "\"author\" : \"sluice\"");
        assertThat(Files.readString(audit)).contains("\"who\":\"sluice\"", "\"action\":\"ban.add\"", ban.id());
    }

    @Test
    void aSearchEngineWhoseAddressIsConfirmedByDnsIsACrawlerWhenThePolicyAsksForVerification() throws Exception {
        sluice.engine().updatePolicy(p -> p.withTrustedProxies(List.of("127.0.0.1"))
                .withCrawlers(new Policy.Crawlers(1, 1, true)));
        // the first request starts the lookup, off the request thread; until it is confirmed the claimant is a bot
        await(() -> {
            get(siteUri, GOOGLEBOT, "X-Forwarded-For", "192.0.2.10");
            return classOf("192.0.2.10") == RequestClass.CRAWLER;
        }, "192.0.2.10 confirmed as Googlebot");
        get(siteUri, GOOGLEBOT, "X-Forwarded-For", "192.0.2.11");

        assertThat(classOf("192.0.2.10")).isEqualTo(RequestClass.CRAWLER);
        assertThat(classOf("192.0.2.11")).as("no name in googlebot.com: it only claims to be Googlebot")
                .isEqualTo(RequestClass.BOT);
    }

    private RequestClass classOf(String ip) {
        return sluice.engine().snapshot().topClients().stream().filter(row -> row.ip().equals(ip) && !row.address())
                .map(ClientRow::requestClass).findFirst().orElse(null);
    }

    private static boolean contains(Path file, String text) throws IOException {
        return Files.exists(file) && Files.readString(file).contains(text);
    }

    @Test
    void aFresherCopyOfTheCrawlersRangesIsReadAndSavedInTheStateDirectory(@TempDir Path dir) throws Exception {
        Path source = dir.resolve("ranges.json");
        Files.writeString(source, "{\"crawlers\": [{\"names\": [\"PartnerBot\"], \"prefixes\": [\"192.0.2.0/24\"]}]}");
        SluiceThrottle embedded = SluiceThrottle.builder().stateDirectory(dir.resolve("state")).admin("127.0.0.1", 0)
                .crawlerRanges(source.toString(), Duration.ofHours(1)).build();
        embedded.start();
        try {
            await(() -> embedded.engine().crawlerRanges().inRanges("PartnerBot", IpAddress.parse("192.0.2.9")),
                    "the operator's copy of the ranges in use");
            assertThat(dir.resolve("state").resolve("crawler-ranges.json")).exists();
        } finally {
            embedded.stop();
        }
        assertThatThrownBy(() -> SluiceThrottle.builder().crawlerRanges("ftp://example/r.json", Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a file or an http(s) URL");
    }

    @Test
    void aStateDirectoryIsRequired() {
        assertThatThrownBy(() -> SluiceThrottle.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("state directory");
    }

    private ContentResponse get(URI uri, String userAgent, String... headers) throws Exception {
        return client.newRequest(uri).headers(h -> {
            h.put(HttpHeader.USER_AGENT, userAgent);
            for (int i = 0; i < headers.length; i += 2) {
                h.put(headers[i], headers[i + 1]);
            }
        }).timeout(10, TimeUnit.SECONDS).send();
    }
}
