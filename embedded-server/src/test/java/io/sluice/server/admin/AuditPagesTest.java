package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import io.sluice.server.state.LargeAudit;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /api/v1/audit} over a large log: bounded pages, a 400 past the limit, links that walk it all. */
class AuditPagesTest {
    private static final Pattern NEXT = Pattern.compile("<([^>]+)>; rel=\"next\"");

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newHttpClient();
    private SluiceServer server;
    private int total;

    @BeforeEach
    void start() throws Exception {
        // Three files of 5 MB: 150 entries of a 100 KB policy each, written before the server starts.
        total = LargeAudit.write(state, 3, 50, 100_000);
        server = servers.start(ServerConfig.demo(state));
    }

    @Test
    void aLimitOutsideOneToAThousandIsA400NamingIt() throws Exception {
        for (String limit : List.of("10000", "1001", "0", "-5", "many")) {
            HttpResponse<String> answer = get("/api/v1/audit?limit=" + limit);
            assertThat(answer.statusCode()).as("limit=%s", limit).isEqualTo(400);
            assertThat(answer.body()).contains("\"limit\"");
        }
        assertThat(get("/api/v1/audit?before=0").statusCode()).isEqualTo(400);
        assertThat(get("/api/v1/audit?limit=1000").statusCode()).isEqualTo(200);
    }

    @Test
    void pagesAreBoundedInSizeAndTheirLinksWalkTheWholeLog() throws Exception {
        List<Long> seen = new ArrayList<>();
        String next = "/api/v1/audit?limit=1000";
        int pages = 0;
        while (next != null) {
            HttpResponse<String> page = get(next);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body().length()).as("a page's size").isLessThan(AuditResource.PAGE_CHARS + 200_000);
            for (JsonNode entry : PolicyJson.mapper().readTree(page.body())) {
                seen.add(entry.get("seq").asLong());
            }
            Matcher link = NEXT.matcher(page.headers().firstValue("Link").orElse(""));
            next = link.find() ? link.group(1) : null;
            pages++;
        }

        assertThat(pages).as("15 MB of entries in pages of 4 MB").isBetween(4, 5);
        assertThat(seen.subList(seen.size() - total, seen.size())).as("every entry once, newest first")
                .containsExactlyElementsOf(LongStream.iterate(total, s -> s >= 1, s -> s - 1).boxed().toList());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve(path))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
