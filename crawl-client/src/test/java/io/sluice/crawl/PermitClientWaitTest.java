package io.sluice.crawl;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 6: a worker waits as long as a refusal says before it asks again, a cluster's {@code DOMAIN_LIMIT}
 * included (its wait is until the first domain the cluster keeps may be forgotten, an hour or more): it does not
 * spin on the permit service. A permit service of canned answers and a sleeper that records, so no time passes.
 */
class PermitClientWaitTest {
    private final Deque<String> answers = new ArrayDeque<>();
    private final List<String> asked = new ArrayList<>();
    private final List<Long> slept = new ArrayList<>();
    private HttpServer service;

    private PermitClient client() throws IOException {
        service = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        service.createContext("/api/v1/permits", exchange -> {
            asked.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = answers.removeFirst().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        service.start();
        return PermitClient.connect(URI.create("http://127.0.0.1:" + service.getAddress().getPort()), "token")
                .with(HttpClient.newHttpClient(), slept::add, 0);
    }

    @AfterEach
    void stop() {
        if (service != null) {
            service.stop(0);
        }
    }

    @Test
    void aDomainLimitRefusalIsWaitedOutBeforeTheNextCall() throws Exception {
        PermitClient client = client();
        answers.add("{\"domain\":\"new.example\",\"granted\":false,\"waitMillis\":3600000,"
                + "\"reason\":\"DOMAIN_LIMIT\"}");
        answers.add("{\"domain\":\"new.example\",\"granted\":true}");

        client.acquire("new.example");

        assertThat(slept).containsExactly(3_600_000L);
        assertThat(asked).hasSize(2);
    }

    @Test
    void aFrontierRefusedForTheDomainLimitIsWaitedOutToo() throws Exception {
        PermitClient client = client();
        answers.add("{\"domain\":\"a.example\",\"granted\":false,\"waitMillis\":5400000,"
                + "\"reason\":\"DOMAIN_LIMIT\"}");
        answers.add("{\"domain\":\"b.example\",\"granted\":true}");

        assertThat(client.acquireAny(List.of("a.example", "b.example"))).isEqualTo("b.example");

        assertThat(slept).containsExactly(5_400_000L);
    }
}
