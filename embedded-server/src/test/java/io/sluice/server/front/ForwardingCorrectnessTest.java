package io.sluice.server.front;

import io.sluice.server.OwnThread;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.server.front.wire.RawClient;
import io.sluice.server.front.wire.RawMessage;
import io.sluice.server.front.wire.RawUpstream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The front end is correct to the byte: raw requests written to a real socket, through Sluice, to an
 * upstream whose every byte is scripted ({@link RawUpstream}), and what the upstream and the client
 * receive read back byte by byte. Every case runs on every {@link FrontPath}.
 */
@ParameterizedClass
@EnumSource(FrontPath.class)
class ForwardingCorrectnessTest {
    @Parameter
    FrontPath path;

    private static final String HOST = "Host: site.example\r\n";
    private static final int MIB = 1024 * 1024;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    // ---- request smuggling: refused before anything reaches the upstream ----

    @Test
    void aRequestWithBothContentLengthAndTransferEncodingIsRefused() throws Exception {
        assertRefusedBeforeTheUpstream("POST / HTTP/1.1\r\n" + HOST + "Content-Length: 6\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\n" + HOST + "\r\n");
    }

    @Test
    void aRequestWithTwoDifferentContentLengthsIsRefused() throws Exception {
        assertRefusedBeforeTheUpstream("POST / HTTP/1.1\r\n" + HOST + "Content-Length: 5\r\n"
                + "Content-Length: 35\r\n\r\nhelloGET /smuggled HTTP/1.1\r\n" + HOST + "\r\n");
    }

    @Test
    void aTransferEncodingThatDoesNotEndInChunkedIsRefused() throws Exception {
        assertRefusedBeforeTheUpstream("POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked, identity\r\n\r\n"
                + "0\r\n\r\nGET /smuggled HTTP/1.1\r\n" + HOST + "\r\n");
    }

    @Test
    void aBareLineFeedEndingAHeaderLineIsRefused() throws Exception {
        assertRefusedBeforeTheUpstream("GET / HTTP/1.1\r\n" + HOST + "X-A: 1\nX-B: 2\r\n\r\n");
    }

    @Test
    void aBareLineFeedEndingAChunkSizeIsRefused() throws Exception {
        assertRefusedBeforeTheUpstream("POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n"
                + "5\nhello\r\n0\r\n\r\n");
    }

    @Test
    void aHeaderFoldedOntoASecondLineIsRefused() throws Exception {
        assertRefusedBeforeTheUpstream("GET / HTTP/1.1\r\n" + HOST + "X-A: 1\r\n Content-Length: 40\r\n\r\n");
    }

    @Test
    void whitespaceBetweenAFieldNameAndItsColonIsRefused() throws Exception {
        assertRefusedBeforeTheUpstream("POST / HTTP/1.1\r\n" + HOST + "Content-Length : 5\r\n\r\nhello");
    }

    private void assertRefusedBeforeTheUpstream(String raw) throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("reached")));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            RawMessage response = client.send(raw).response();

            assertThat(response.status()).isEqualTo(400);
            assertThat(client.closedByServer()).as("the connection is closed after a smuggling attempt").isTrue();
        }
        // A malformed body is found only once the request is on its way (the proxy streams): then the upstream's
        // connection is cut mid-body, so it never receives a complete request either.
        assertThat(upstream.requests()).as("no complete request reached the upstream")
                .noneMatch(RawMessage::complete);
    }

    // ---- hop-by-hop headers, both ways ----

    @Test
    void hopByHopHeadersAndThoseNamedInConnectionDoNotReachTheUpstream() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("ok")));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            client.send("GET /page HTTP/1.1\r\n" + HOST + "Connection: keep-alive, X-Private\r\n"
                    + "X-Private: secret\r\nKeep-Alive: timeout=5\r\nProxy-Authorization: Basic YTpi\r\n"
                    + "Proxy-Connection: keep-alive\r\nTE: trailers\r\nTrailer: X-Checksum\r\n"
                    + "X-End-To-End: kept\r\n\r\n");
            assertThat(client.response().status()).isEqualTo(200);
        }

        RawMessage seen = upstream.requests().get(0);
        assertThat(seen.header("X-End-To-End")).isEqualTo("kept");
        assertThat(seen.names()).doesNotContain("x-private", "keep-alive", "proxy-authorization", "proxy-connection",
                "te", "trailer");
        assertThat(String.join(",", seen.all("Connection")).toLowerCase()).doesNotContain("x-private");
    }

    @Test
    void hopByHopHeadersAndThoseNamedInConnectionDoNotReachTheClient() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("ok",
                "Connection: X-Up-Private", "X-Up-Private: internal", "Keep-Alive: timeout=5, max=100",
                "Proxy-Authenticate: Basic realm=\"upstream\"", "X-Up-Public: shown")));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            RawMessage response = client.send("GET / HTTP/1.1\r\n" + HOST + "\r\n").response();

            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("X-Up-Public")).isEqualTo("shown");
            assertThat(response.names()).doesNotContain("x-up-private", "keep-alive", "proxy-authenticate");
            assertThat(String.join(",", response.all("Connection")).toLowerCase()).doesNotContain("x-up-private");
        }
    }

    // ---- messages without bodies ----

    @Test
    void aResponseToHeadHasNoBodyAndTheNextResponseIsFramedRight() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> "HEAD".equals(request.method())
                ? "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n".getBytes(StandardCharsets.US_ASCII)
                : RawUpstream.ok("after the head")));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            client.send("HEAD /big HTTP/1.1\r\n" + HOST + "\r\nGET /next HTTP/1.1\r\n" + HOST + "\r\n");

            RawMessage head = client.responseToHead();
            RawMessage next = client.response();

            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("Content-Length")).isEqualTo("1234");
            assertThat(next.bodyText()).isEqualTo("after the head");
        }
    }

    @Test
    void responses204And304HaveNoBodyAndTheConnectionStaysUsable() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> switch (request.target()) {
            case "/no-content" -> "HTTP/1.1 204 No Content\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            case "/cached" -> "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            default -> RawUpstream.ok("last");
        }));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            client.send("GET /no-content HTTP/1.1\r\n" + HOST + "\r\nGET /cached HTTP/1.1\r\n" + HOST
                    + "If-None-Match: \"v1\"\r\n\r\nGET /last HTTP/1.1\r\n" + HOST + "\r\n");

            RawMessage noContent = client.response();
            RawMessage notModified = client.response();
            RawMessage last = client.response();

            assertThat(noContent.status()).isEqualTo(204);
            assertThat(noContent.names()).doesNotContain("content-length", "transfer-encoding");
            assertThat(notModified.status()).isEqualTo(304);
            assertThat(notModified.header("ETag")).isEqualTo("\"v1\"");
            assertThat(notModified.names()).doesNotContain("transfer-encoding");
            assertThat(last.bodyText()).isEqualTo("last");
        }
    }

    @Test
    void anInterimResponseBeforeTheFinalOneCarriesNoBody() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> (
                "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal").getBytes(StandardCharsets.US_ASCII)));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            List<RawMessage> interim = new ArrayList<>();
            client.send("GET / HTTP/1.1\r\n" + HOST + "\r\nGET /again HTTP/1.1\r\n" + HOST + "\r\n");

            RawMessage first = client.response(interim);
            RawMessage second = client.response(interim);

            assertThat(first.bodyText()).isEqualTo("final");
            assertThat(second.bodyText()).isEqualTo("final");
            assertThat(interim).allSatisfy(message -> {
                assertThat(message.status()).isEqualTo(103);
                assertThat(message.body()).isEmpty();
            });
        }
    }

    // ---- bodies framed by chunks or by the end of the connection ----

    @Test
    void aChunkedResponseArrivesWholeAndTheConnectionStaysUsable() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> ("HTTP/1.1 200 OK\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1;ext=1\r\n,\r\n6\r\n world\r\n0\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII)));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            client.send("GET /1 HTTP/1.1\r\n" + HOST + "\r\nGET /2 HTTP/1.1\r\n" + HOST + "\r\n");

            assertThat(client.response().bodyText()).isEqualTo("hello, world");
            assertThat(client.response().bodyText()).isEqualTo("hello, world");
        }
    }

    @Test
    void aResponseEndedByTheUpstreamClosingArrivesWhole() throws Exception {
        RawUpstream upstream = upstream(new RawUpstream((connection, index) -> {
            connection.readRequest();
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end");
        }));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            RawMessage response = client.send("GET / HTTP/1.1\r\n" + HOST + "\r\n").response();

            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete()).isTrue();
            assertThat(response.bodyText()).isEqualTo("until the end");
        }
    }

    // ---- pipelining ----

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("answer to "
                + request.target())));
        FrontUnderTest front = front(upstream);
        StringBuilder pipeline = new StringBuilder();
        for (int i = 1; i <= 5; i++) {
            pipeline.append("GET /").append(i).append(" HTTP/1.1\r\n").append(HOST).append("\r\n");
        }
        try (RawClient client = new RawClient(front.port())) {
            client.send(pipeline.toString());

            for (int i = 1; i <= 5; i++) {
                assertThat(client.response().bodyText()).isEqualTo("answer to /" + i);
            }
        }
    }

    // ---- an upstream that closes a pooled connection as a request goes out ----

    @Test
    void aSafeRequestMetByAClosingPooledConnectionIsSentAgainOnANewOne() throws Exception {
        RawUpstream upstream = upstream(closesItsFirstConnectionOnTheSecondRequest());
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            assertThat(client.send("GET /first HTTP/1.1\r\n" + HOST + "\r\n").response().status()).isEqualTo(200);

            RawMessage second = client.send("GET /second HTTP/1.1\r\n" + HOST + "\r\n").response();

            assertThat(second.status()).isEqualTo(200);
            assertThat(second.bodyText()).isEqualTo("answer to /second");
        }
        assertThat(upstream.requests()).extracting(RawMessage::target).containsExactly("/first", "/second", "/second");
    }

    @Test
    void anUnsafeRequestMetByAClosingPooledConnectionIsNotSentAgain() throws Exception {
        RawUpstream upstream = upstream(closesItsFirstConnectionOnTheSecondRequest());
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            assertThat(client.send("GET /first HTTP/1.1\r\n" + HOST + "\r\n").response().status()).isEqualTo(200);

            RawMessage order = client.send("POST /order HTTP/1.1\r\n" + HOST + "Content-Length: 3\r\n\r\nabc")
                    .response();

            assertThat(order.status()).isEqualTo(502);
        }
        assertThat(upstream.requests()).extracting(RawMessage::target).containsExactly("/first", "/order");
    }

    /** Connection 0 answers one request, then reads the next and closes without answering. */
    private static RawUpstream closesItsFirstConnectionOnTheSecondRequest() throws IOException {
        return new RawUpstream((connection, index) -> {
            RawMessage request;
            while ((request = connection.readRequest()) != null) {
                if (index == 0 && !"/first".equals(request.target())) {
                    return;
                }
                connection.write(RawUpstream.ok("answer to " + request.target()));
            }
        });
    }

    // ---- an upstream that dies mid-response ----

    @Test
    void anUpstreamDyingMidBodyCutsTheClientsConnectionInsteadOfEndingTheResponse() throws Exception {
        assertTheClientIsCutOffWhenTheUpstreamDiesAfter("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"
                + "x".repeat(20_000));
    }

    @Test
    void anUpstreamDyingMidChunkedBodyCutsTheClientsConnection() throws Exception {
        assertTheClientIsCutOffWhenTheUpstreamDiesAfter("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4000\r\n" + "y".repeat(0x4000) + "\r\n");
    }

    /** The upstream writes {@code partial}, then its connection is reset as by a crash. */
    private void assertTheClientIsCutOffWhenTheUpstreamDiesAfter(String partial) throws Exception {
        RawUpstream upstream = upstream(new RawUpstream((connection, index) -> {
            connection.readRequest();
            connection.write(partial);
            connection.reset();
        }));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            RawMessage response = client.send("GET / HTTP/1.1\r\n" + HOST + "\r\n").response();

            assertThat(response == null || !response.complete() || response.status() >= 500)
                    .as("never a complete 200: %s", response).isTrue();
            assertThat(client.closedByServer()).isTrue();
        }
    }

    // ---- streaming and backpressure ----

    @Test
    void aSlowClientHoldsBackTheUpstreamInsteadOfMakingSluiceBufferTheDownload() throws Exception {
        long size = 64L * MIB;
        AtomicLong written = new AtomicLong();
        RawUpstream upstream = upstream(new RawUpstream((connection, index) -> {
            connection.readRequest();
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: " + size + "\r\n\r\n");
            writePattern(connection.output(), size, written);
        }, 64 * 1024));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port(), 64 * 1024)) {
            client.send("GET /big HTTP/1.1\r\n" + HOST + "\r\n");
            long stalledAt = awaitStall(written::get);

            // The kernel's buffers on Sluice's two sockets hold up to about 10 MiB here; the rest is Sluice's.
            assertThat(stalledAt).as("bytes the upstream could write while the client read nothing")
                    .isLessThan(24L * MIB);

            List<String> head = client.reader().readHead();
            assertThat(head.get(0)).startsWith("HTTP/1.1 200");
            assertThat(digest(client.reader().stream(), size)).isEqualTo(patternDigest(size));
        }
    }

    @Test
    void aLargeUploadIsStreamedToTheUpstreamAndArrivesIntact() throws Exception {
        long size = 48L * MIB;
        CompletableFuture<Void> upstreamMayRead = new CompletableFuture<>();
        RawUpstream upstream = upstream(new RawUpstream((connection, index) -> {
            connection.readHead();
            upstreamMayRead.join();
            String digest = digest(connection.reader().stream(), size);
            connection.write(RawUpstream.ok(digest));
        }));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            client.send("POST /upload HTTP/1.1\r\n" + HOST + "Content-Length: " + size + "\r\n\r\n");
            AtomicLong sent = new AtomicLong();
            CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                try {
                    writePattern(client.output(), size, sent);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, OwnThread.EACH);
            long stalledAt = awaitStall(sent::get);
            assertThat(stalledAt).as("bytes the client could send while the upstream read nothing")
                    .isLessThan(24L * MIB);

            upstreamMayRead.complete(null);
            sending.get(60, TimeUnit.SECONDS);
            RawMessage response = client.response();

            assertThat(response.status()).isEqualTo(200);
            assertThat(response.bodyText()).isEqualTo(patternDigest(size));
        }
    }

    @Test
    void aChunkedUploadArrivesIntact() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok(request.body().length
                + " bytes, " + sha256(request.body()))));
        FrontUnderTest front = front(upstream);
        byte[] body = new byte[3 * MIB + 17];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i % 251);
        }
        try (RawClient client = new RawClient(front.port())) {
            client.send("POST /upload HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n");
            OutputStream out = client.output();
            for (int offset = 0; offset < body.length; offset += 100_000) {
                int length = Math.min(100_000, body.length - offset);
                out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body, offset, length);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            client.send("0\r\n\r\n");

            RawMessage response = client.response();

            assertThat(response.bodyText()).isEqualTo(body.length + " bytes, "
                    + sha256(body));
        }
    }

    // ---- what the upstream is told about the client ----

    @Test
    void forgedForwardingHeadersFromAnUntrustedClientNeverReachTheUpstream() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("ok")));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            client.send("GET / HTTP/1.1\r\n" + HOST + "X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-For: 7.7.7.7\r\n"
                    + "Forwarded: for=6.6.6.6;proto=https\r\nX-Forwarded-Proto: https\r\n"
                    + "X-Forwarded-Host: evil.example\r\nX-Real-IP: 6.6.6.6\r\n\r\n");
            assertThat(client.response().status()).isEqualTo(200);
        }

        RawMessage seen = upstream.requests().get(0);
        assertThat(seen.all("X-Forwarded-For")).containsExactly("127.0.0.1");
        assertThat(seen.all("X-Forwarded-Proto")).containsExactly("http");
        assertThat(seen.all("X-Forwarded-Host")).containsExactly("site.example");
        assertThat(seen.all("Forwarded")).containsExactly("for=127.0.0.1;host=\"site.example\";proto=http");
        assertThat(seen.names()).doesNotContain("x-real-ip");
        assertThat(seen.all("Via")).containsExactly("1.1 sluice");
    }

    @Test
    void aTrustedProxysClientAddressIsTheOneTheUpstreamSees() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("ok")));
        FrontUnderTest front = front(upstream,
                FrontUnderTest.ADMIT_ALL.withTrustedProxies(List.of("127.0.0.1")));
        try (RawClient client = new RawClient(front.port())) {
            client.send("GET / HTTP/1.1\r\n" + HOST + "X-Forwarded-For: 6.6.6.6, 203.0.113.7\r\n"
                    + "X-Forwarded-Proto: https\r\nVia: 1.1 edge\r\n\r\n");
            assertThat(client.response().status()).isEqualTo(200);
        }

        RawMessage seen = upstream.requests().get(0);
        assertThat(seen.all("X-Forwarded-For")).containsExactly("203.0.113.7");
        assertThat(seen.all("X-Forwarded-Proto")).containsExactly("https");
        assertThat(seen.all("Forwarded")).containsExactly("for=203.0.113.7;host=\"site.example\";proto=https");
        assertThat(String.join(", ", seen.all("Via"))).isEqualTo("1.1 edge, 1.1 sluice");
    }

    @Test
    void thePolicysForwardingHeaderFromAnUntrustedClientNeverReachesTheUpstream() throws Exception {
        RawMessage seen = upstreamSeesWithCfConnectingIp("192.0.2.1",
                "CF-Connecting-IP: 6.6.6.6\r\ncf-connecting-ip: 7.7.7.7\r\n");

        assertThat(seen.names()).doesNotContain("cf-connecting-ip");
        assertThat(seen.all("X-Forwarded-For")).containsExactly("127.0.0.1");
    }

    @Test
    void aTrustedProxysForwardingHeaderReachesTheUpstreamAsTheAddressSluiceResolved() throws Exception {
        RawMessage seen = upstreamSeesWithCfConnectingIp("127.0.0.1",
                "CF-Connecting-IP: 6.6.6.6, 203.0.113.7\r\nX-Forwarded-For: 1.2.3.4\r\n");

        assertThat(seen.all("CF-Connecting-IP")).containsExactly("203.0.113.7");
        assertThat(seen.all("X-Forwarded-For")).containsExactly("203.0.113.7");
    }

    /** What the upstream receives of a request with {@code headerLines}, the policy naming CF-Connecting-IP. */
    private RawMessage upstreamSeesWithCfConnectingIp(String trustedProxy, String headerLines) throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("ok")));
        FrontUnderTest front = front(upstream, FrontUnderTest.ADMIT_ALL.withForwardedHeader("CF-Connecting-IP")
                .withTrustedProxies(List.of(trustedProxy)));
        try (RawClient client = new RawClient(front.port())) {
            client.send("GET / HTTP/1.1\r\n" + HOST + headerLines + "\r\n");
            assertThat(client.response().status()).isEqualTo(200);
        }
        return upstream.requests().get(0);
    }

    @Test
    void theClientSeesTheUpstreamsDateAndServerOnceAndNeverJettys() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("ok",
                "Date: Sun, 22 Nov 2026 12:00:00 GMT", "Server: site/1.0")));
        FrontUnderTest front = front(upstream);
        try (RawClient client = new RawClient(front.port())) {
            RawMessage response = client.send("GET / HTTP/1.1\r\n" + HOST + "\r\n").response();

            assertThat(response.all("Server")).containsExactly("site/1.0");
            assertThat(response.all("Date")).containsExactly("Sun, 22 Nov 2026 12:00:00 GMT");
        }
    }

    @Test
    void aRefusalNamesNoServerSoftware() throws Exception {
        RawUpstream upstream = upstream(RawUpstream.answering(request -> RawUpstream.ok("ok")));
        FrontUnderTest front = front(upstream, Policy.defaults().withPause(new Policy.Pause(true, List.of())));
        try (RawClient client = new RawClient(front.port())) {
            RawMessage response = client.send("GET / HTTP/1.1\r\n" + HOST + "\r\n").response();

            assertThat(response.status()).isEqualTo(503);
            assertThat(response.names()).doesNotContain("server");
            assertThat(response.all("Date")).hasSize(1);
        }
    }

    // ---- helpers ----

    private RawUpstream upstream(RawUpstream upstream) {
        open.add(upstream);
        return upstream;
    }

    private FrontUnderTest front(RawUpstream upstream) throws Exception {
        return front(upstream, FrontUnderTest.ADMIT_ALL);
    }

    private FrontUnderTest front(RawUpstream upstream, Policy policy) throws Exception {
        FrontUnderTest front = FrontUnderTest.start(path, upstream.uri(), policy);
        open.add(front);
        return front;
    }

    /** Byte {@code i} of every streamed body is {@code i % 251}: a shift or a lost chunk changes the digest. */
    private static void writePattern(OutputStream out, long size, AtomicLong written) throws IOException {
        byte[] block = patternBlock();
        long left = size;
        while (left > 0) {
            int n = (int) Math.min(block.length, left);
            out.write(block, 0, n);
            written.addAndGet(n);
            left -= n;
        }
        out.flush();
    }

    /** A whole number of periods of the pattern, so consecutive blocks continue it. */
    private static byte[] patternBlock() {
        byte[] block = new byte[251 * 256];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) (i % 251);
        }
        return block;
    }

    private static String patternDigest(long size) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        byte[] block = patternBlock();
        for (long left = size; left > 0; left -= block.length) {
            digest.update(block, 0, (int) Math.min(block.length, left));
        }
        return hex(digest.digest());
    }

    /** The SHA-256 of exactly {@code size} bytes read from {@code in}; fails on a short body. */
    private static String digest(InputStream in, long size) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buffer = new byte[65536];
        long left = size;
        while (left > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (read < 0) {
                throw new EOFException((size - left) + " of " + size + " bytes, then the end of the stream");
            }
            digest.update(buffer, 0, read);
            left -= read;
        }
        return hex(digest.digest());
    }

    private static String sha256(byte[] bytes) {
        try {
            return hex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /** Polls {@code progress} until it stops moving (two equal readings 300 ms apart), within 30 s. */
    private static long awaitStall(LongSupplier progress) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long last = -1;
        while (System.nanoTime() < deadline) {
            long now = progress.getAsLong();
            if (now == last && now > 0) {
                return now;
            }
            last = now;
            Thread.sleep(300);
        }
        throw new AssertionError("still moving after 30 s: " + last + " bytes");
    }
}
