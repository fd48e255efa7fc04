package io.sluice.server.botauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fetching a key directory over the network within the draft's SSRF bounds: a local directory server on 127.0.0.1,
 * allowed only where the test's configuration allows loopback.
 */
class HttpDirectoryFetcherTest {

    private DirectoryServer site;
    private HttpDirectoryFetcher fetcher;

    @BeforeEach
    void start() throws Exception {
        site = new DirectoryServer(Signer.rfcTestKey().directory());
    }

    @AfterEach
    void stop() throws Exception {
        if (fetcher != null) {
            fetcher.close();
        }
        site.close();
    }

    private HttpDirectoryFetcher fetcher(List<String> allowed) throws Exception {
        fetcher = new HttpDirectoryFetcher(SignedAgentOptions.DEFAULTS.withAllowed(allowed, true)
                .withFetchLimits(16 * 1024, Duration.ofMillis(800)));
        return fetcher;
    }

    private static Throwable failure(java.util.concurrent.CompletableFuture<?> answer) {
        // the fetcher's own timeout bounds every fetch; this one only keeps a broken test from hanging
        return assertThatThrownBy(() -> answer.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .actual().getCause();
    }

    @Test
    void anAllowedDirectoryIsFetchedWithItsMaxAge() throws Exception {
        DirectoryFetcher.Fetched fetched = fetcher(List.of("127.0.0.1/32")).fetch(URI.create(
                site.url(AgentUrl.WELL_KNOWN))).get(30, TimeUnit.SECONDS);
        assertThat(new String(fetched.body(), StandardCharsets.UTF_8)).isEqualTo(site.directory);
        assertThat(fetched.maxAgeSeconds()).isEqualTo(3600L);
    }

    @Test
    void loopbackIsRefusedUnlessAllowedAndNothingIsSent() throws Exception {
        Throwable refused = failure(fetcher(List.of()).fetch(URI.create(site.url(AgentUrl.WELL_KNOWN))));
        assertThat(refused).hasMessageContaining("has no address a key directory may be fetched from");
        assertThat(site.requests.get()).isZero();
    }

    @Test
    void privateAndReservedRangesAreRefusedByDefault() throws Exception {
        AddressPolicy policy = new AddressPolicy(List.of());
        for (String address : List.of("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
                "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "224.0.0.1")) {
            assertThat(policy.allows(InetAddress.getByName(address))).as(address).isFalse();
        }
        assertThat(policy.allows(InetAddress.getByName("93.184.215.14"))).isTrue();
        assertThat(policy.allows(InetAddress.getByName("2606:4700::1"))).isTrue();
        assertThat(new AddressPolicy(List.of("10.0.0.0/8")).allows(InetAddress.getByName("10.1.2.3"))).isTrue();
    }

    @Test
    void aDirectoryTooLargeIsRefused() throws Exception {
        HttpDirectoryFetcher http = fetcher(List.of("127.0.0.1/32"));
        long started = System.nanoTime();
        assertThat(failure(http.fetch(URI.create(site.url("/big"))))).isNotNull();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aSlowDirectoryFailsAtTheTimeout() throws Exception {
        HttpDirectoryFetcher http = fetcher(List.of("127.0.0.1/32"));
        long started = System.nanoTime();
        Throwable failure = failure(http.fetch(URI.create(site.url("/slow"))));
        assertThat(failure).isInstanceOf(java.util.concurrent.TimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void anotherStatusOrARedirectIsAFailureAndRedirectsAreNotFollowed() throws Exception {
        HttpDirectoryFetcher http = fetcher(List.of("127.0.0.1/32"));
        assertThat(failure(http.fetch(URI.create(site.url("/missing"))))).hasMessageContaining("404");
        assertThat(failure(http.fetch(URI.create(site.url("/moved"))))).hasMessageContaining("302");
        assertThat(site.requests.get()).isEqualTo(2);
    }

    @Test
    void maxAgeIsReadFromCacheControl() {
        assertThat(HttpDirectoryFetcher.maxAge("public, max-age=86400")).isEqualTo(86_400L);
        assertThat(HttpDirectoryFetcher.maxAge("s-maxage=5")).isNull();
        assertThat(HttpDirectoryFetcher.maxAge(null)).isNull();
    }
}
