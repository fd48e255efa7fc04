package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.server.front.wire.RawClient;
import io.sluice.server.front.wire.RawMessage;
import io.sluice.server.front.wire.RawUpstream;
import io.sluice.server.testkit.RealParts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same raw requests through nginx and through Sluice to the same scripted upstream: what the upstream
 * receives and what the client gets back must agree, apart from the differences listed with each case
 * (each one a place where Sluice is deliberately stricter, and asserted, so a change on either side shows).
 */
@RealParts
class NginxDifferentialTest {
    private static final String HOST = "Host: site.example\r\n";
    /**
     * Not compared: framing and per-hop fields (each proxy writes its own; bodies are compared decoded), and
     * Sluice's own rate-limit fields, which docs/architecture.md asks for on every answer to a bot.
     */
    private static final Set<String> NOT_COMPARED = Set.of("connection", "keep-alive", "content-length",
            "transfer-encoding", "via", "date", "server", "ratelimit", "ratelimit-policy");

    @TempDir
    static Path dir;
    private static RawUpstream upstream;
    private static NginxProxy nginx;
    private static final Map<FrontPath, FrontUnderTest> SLUICE = new EnumMap<>(FrontPath.class);

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(NginxProxy.binary() != null, "nginx is not installed (scripts/test-real-parts.sh installs it)");
        upstream = RawUpstream.answering(NginxDifferentialTest::answer);
        nginx = NginxProxy.start(dir, upstream.port());
        for (FrontPath path : FrontPath.values()) {
            SLUICE.put(path, FrontUnderTest.start(path, upstream.uri(), FrontUnderTest.ADMIT_ALL));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        SLUICE.values().forEach(FrontUnderTest::close);
        SLUICE.clear();
        if (nginx != null) {
            nginx.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    /** The upstream answers by path, so each case can also exercise one kind of response. */
    private static byte[] answer(RawMessage request) {
        String path = request.target();
        String raw = switch (path) {
            case "/chunked" -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
            case "/no-content" -> "HTTP/1.1 204 No Content\r\nX-Kind: empty\r\n\r\n";
            case "/not-modified" -> "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n";
            case "/hop" -> "HTTP/1.1 200 OK\r\nConnection: X-Up-Private\r\nX-Up-Private: 1\r\nX-Up-Public: 2\r\n"
                    + "Content-Length: 2\r\n\r\nok";
            default -> {
                String body = request.method() + " " + path + " " + request.body().length + " bytes";
                yield "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Echo: yes\r\n"
                        + "Content-Length: " + body.length() + "\r\n\r\n" + body;
            }
        };
        return raw.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Every case on every forwarding path. */
    static List<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (FrontPath path : FrontPath.values()) {
            for (Arguments each : requests()) {
                Object[] args = each.get();
                all.add(Arguments.of(args[0] + " (" + path + ")", path, args[1], args[2], args[3]));
            }
        }
        return all;
    }

    private static List<Arguments> requests() {
        return List.of(
                Arguments.of("a plain GET with an encoded path and query",
                        "GET /a%2Fb/c%20d?x=%20y&z HTTP/1.1\r\n" + HOST + "Accept: */*\r\n\r\n", false, Map.of()),
                Arguments.of("forged forwarding headers",
                        "GET /who HTTP/1.1\r\n" + HOST + "X-Forwarded-For: 6.6.6.6\r\nForwarded: for=6.6.6.6\r\n"
                                + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.example\r\n"
                                + "X-Real-IP: 6.6.6.6\r\n\r\n",
                        false, Map.of()),
                Arguments.of("hop-by-hop request headers",
                        "GET /hops HTTP/1.1\r\n" + HOST + "Connection: keep-alive, X-Private\r\nX-Private: 1\r\n"
                                + "Keep-Alive: timeout=5\r\nTE: trailers\r\nX-Kept: 1\r\n\r\n",
                        false, Map.of("upstream", "nginx passes x-private, named in Connection; Sluice drops it")),
                Arguments.of("hop-by-hop response headers",
                        "GET /hop HTTP/1.1\r\n" + HOST + "\r\n", false,
                        Map.of("client", "nginx passes x-up-private, named in Connection; Sluice drops it")),
                Arguments.of("a POST with a Content-Length body",
                        "POST /form HTTP/1.1\r\n" + HOST + "Content-Type: text/plain\r\nContent-Length: 11\r\n\r\n"
                                + "hello world", false, Map.of()),
                Arguments.of("a POST with a chunked body",
                        "POST /chunks HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n"
                                + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", false, Map.of()),
                Arguments.of("HEAD", "HEAD /page HTTP/1.1\r\n" + HOST + "\r\n", true, Map.of()),
                Arguments.of("a chunked response", "GET /chunked HTTP/1.1\r\n" + HOST + "\r\n", false, Map.of()),
                Arguments.of("204", "GET /no-content HTTP/1.1\r\n" + HOST + "\r\n", false, Map.of()),
                Arguments.of("304", "GET /not-modified HTTP/1.1\r\n" + HOST + "If-None-Match: \"v1\"\r\n\r\n",
                        false, Map.of()),
                Arguments.of("several fields of one name, in odd case",
                        "GET /cookies HTTP/1.1\r\n" + HOST + "Cookie: a=1\r\ncookie: b=2\r\nx-MiXeD: v\r\n\r\n",
                        false, Map.of()),
                Arguments.of("Content-Length with Transfer-Encoding (smuggling)",
                        "POST /smuggle HTTP/1.1\r\n" + HOST + "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "0\r\n\r\nX", false, Map.of()),
                Arguments.of("two different Content-Lengths (smuggling)",
                        "POST /smuggle HTTP/1.1\r\n" + HOST + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
                        false, Map.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void nginxAndSluiceAgree(String name, FrontPath path, String request, boolean head,
                             Map<String, String> knownDifferences) throws Exception {
        Exchange viaNginx = exchange(nginx.port(), request, head);
        Exchange viaSluice = exchange(SLUICE.get(path).port(), request, head);

        assertThat(viaSluice.status()).as("status").isEqualTo(viaNginx.status());
        if (viaNginx.upstreamSaw().isEmpty()) {
            // Refused by the proxy itself: each writes its own error page; neither may have passed anything on.
            assertThat(viaSluice.upstreamSaw()).as("what the upstream received").isEmpty();
            return;
        }
        assertThat(viaSluice.body()).as("body").isEqualTo(viaNginx.body());
        if (knownDifferences.containsKey("client")) {
            assertThat(viaSluice.headers()).as(knownDifferences.get("client")).isNotEqualTo(viaNginx.headers());
        } else {
            assertThat(viaSluice.headers()).as("response headers").isEqualTo(viaNginx.headers());
        }
        if (knownDifferences.containsKey("upstream")) {
            assertThat(viaSluice.upstreamSaw()).as(knownDifferences.get("upstream"))
                    .isNotEqualTo(viaNginx.upstreamSaw());
        } else {
            assertThat(viaSluice.upstreamSaw()).as("what the upstream received").isEqualTo(viaNginx.upstreamSaw());
        }
    }

    /** What one proxy made of one request: the client's view and the upstream's. */
    private record Exchange(int status, String body, Map<String, List<String>> headers, List<String> upstreamSaw) {
    }

    private static Exchange exchange(int port, String request, boolean head) throws Exception {
        upstream.requests().clear();
        RawMessage response;
        try (RawClient client = new RawClient(port)) {
            client.send(request);
            response = head ? client.responseToHead() : client.response();
        }
        // The upstream may record the request a moment after the proxy's answer reached the client.
        awaitQuiet();
        List<String> saw = upstream.requests().stream().map(NginxDifferentialTest::describe).toList();
        return new Exchange(response.status(), response.bodyText(), endToEnd(response), saw);
    }

    private static String describe(RawMessage request) {
        return request.startLine() + " " + endToEnd(request) + " body=" + request.bodyText()
                + (request.complete() ? "" : " (incomplete)");
    }

    private static Map<String, List<String>> endToEnd(RawMessage message) {
        return message.fields().stream()
                .filter(field -> !NOT_COMPARED.contains(field.name().toLowerCase(Locale.ROOT)))
                .collect(Collectors.groupingBy(field -> field.name().toLowerCase(Locale.ROOT), TreeMap::new,
                        Collectors.mapping(RawMessage.Field::value, Collectors.toList())));
    }

    private static void awaitQuiet() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        int seen = -1;
        while (System.nanoTime() < deadline) {
            int now = upstream.requests().size();
            if (now == seen) {
                return;
            }
            seen = now;
            Thread.sleep(50);
        }
    }
}
