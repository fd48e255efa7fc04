package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testkit.Servers;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** No listener of a running Sluice names the software it runs on: not the front end, not the admin API. */
class ServerSoftwareTest {
    @RegisterExtension
    final Servers servers = new Servers();

    @Test
    void neitherTheFrontEndNorTheAdminApiSendsAServerHeader(@TempDir Path state) throws Exception {
        HttpClient client = new HttpClient();
        client.start();
        SluiceServer sluice = servers.start(ServerConfig.demo(state));
        try {
            ContentResponse page = client.newRequest(sluice.frontUri().resolve("/page/1"))
                    .headers(h -> h.put(HttpHeader.USER_AGENT, "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) "
                            + "Gecko/20100101 Firefox/128.0"))
                    .timeout(10, TimeUnit.SECONDS).send();
            ContentResponse snapshot = client.newRequest(sluice.adminUri().resolve("/api/v1/snapshot"))
                    .headers(h -> h.put(HttpHeader.AUTHORIZATION, "Bearer " + sluice.adminToken()))
                    .timeout(10, TimeUnit.SECONDS).send();

            assertThat(page.getStatus()).isEqualTo(200);
            assertThat(page.getHeaders().getValuesList(HttpHeader.SERVER)).isEmpty();
            assertThat(page.getHeaders().getValuesList(HttpHeader.DATE)).hasSize(1);
            assertThat(snapshot.getStatus()).as("the admin API, now dispatched off the selector").isEqualTo(200);
            assertThat(snapshot.getHeaders().getValuesList(HttpHeader.SERVER)).isEmpty();
        } finally {
            client.stop();
        }
    }
}
