package io.sluice.server.admin;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ConnectionLimits;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 50, item 2: a crawl fleet and the operators share the admin listener without hurting each other. Workers'
 * held permit calls never take the room kept for the {@code admin} role (nor for {@code read}), one worker token holds
 * only its share of held calls, and a fleet behind one address that opens a connection per call loses none.
 */
class AdminRoomTest {
    private static final String HELD = "held.example";

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final List<Socket> open = new ArrayList<>();

    @AfterEach
    void closeSockets() throws IOException {
        for (Socket socket : open) {
            socket.close();
        }
    }

    @Test
    void eightHeldPermitCallsOfOneWorkerTokenLeaveTheAdminAndMetricsTheirCalls() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state).withLimits(
                new ConnectionLimits(10_000, 8, 32, 8 * 1024)));
        String worker = Files.readString(state.resolve("worker-token")).trim();
        // Made with the CLI: an HttpClient's call would leave its connection open, one of the eight.
        String prometheus = TokensAndChangesTest.cli("token", "add", "prometheus", "--role", "read", "--state",
                state.toString()).trim();
        server.governor().setMinDelay(HELD, 60_000);
        assertThat(call(server.adminUri(), "POST", "/api/v1/permits", worker, permit(HELD, 0), true))
                .contains("\"granted\":true");
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Socket socket = connect(server.adminUri());
            send(socket, "POST", "/api/v1/permits", worker, permit(HELD, 10_000), false);
            held.add(socket);
            // one at a time, each taken or refused before the next comes: eight arriving at once would find the
            // listener full of connections not yet authenticated, and it evicts those (AdminConnectionsTest)
            int sent = i + 1;
            await(() -> workersSeen(call(server.adminUri(), "GET", "/metrics", prometheus, null, true)) == sent,
                    "call " + sent + " taken or refused");
        }
        String admin = call(server.adminUri(), "GET", "/api/v1/snapshot", server.adminToken(), null, true);
        String metrics = call(server.adminUri(), "GET", "/metrics", prometheus, null, true);

        assertThat(admin).as("the admin token's call").startsWith("HTTP/1.1 200");
        assertThat(metrics).as("the read token's /metrics").startsWith("HTTP/1.1 200");
        assertThat(metrics).contains("sluice_admin_held_permit_calls 1.0",
                "sluice_admin_connections_refused_total 4.0");
        // 8 connections: 2 kept for admin, 2 more for read; of the workers' 4, the token holds 1 call (a quarter).
        List<String> answers = firstLines(held);
        assertThat(answers).as("refused with a clear answer, not closed").filteredOn(a -> a.contains(" 503 "))
                .hasSize(4);
        assertThat(answers).as("answered at once, beyond the token's one held call")
                .filteredOn(a -> a.contains(" 200 ")).hasSize(3);
        assertThat(answers).containsOnlyOnce("held");
    }

    @Test
    void aWorkerTokenHoldsOnlyItsShareOfHeldCallsTheOthersAreAnsweredAtOnce() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state).withLimits(
                new ConnectionLimits(10_000, 32, 32, 8 * 1024)));
        String worker = Files.readString(state.resolve("worker-token")).trim();
        server.governor().setMinDelay(HELD, 60_000);
        call(server.adminUri(), "POST", "/api/v1/permits", worker, permit(HELD, 0), true);
        // 32 connections: 2 x 2 kept for admin and read, 28 for workers, a quarter of those (7) held by one token.
        List<Socket> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Socket socket = connect(server.adminUri());
            send(socket, "POST", "/api/v1/permits", worker, permit(HELD, 10_000), false);
            calls.add(socket);
        }

        await(() -> call(server.adminUri(), "GET", "/metrics", server.adminToken(), null, true)
                .contains("sluice_admin_held_permit_calls 7.0"), "the token's share of calls held");

        List<String> answers = firstLines(calls);

        assertThat(answers).as("beyond the token's 7 held calls, answered at once").filteredOn(a -> !a.equals("held"))
                .hasSize(3).allSatisfy(answer -> assertThat(answer).startsWith("HTTP/1.1 200"));
    }

    @Test
    void aFleetBehindOneAddressOpeningAConnectionPerCallLosesNoCall() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state));
        String worker = Files.readString(state.resolve("worker-token")).trim();
        URI admin = server.adminUri();
        long seconds = Long.getLong("sluice.fleet.seconds", 5); // before the fix, some 8 calls a second were lost
        int workers = 40;
        AtomicLong answered = new AtomicLong();
        Map<String, AtomicLong> lost = new ConcurrentHashMap<>();
        ExecutorService fleet = Executors.newFixedThreadPool(workers);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            String domain = "site" + w + ".example";
            running.add(fleet.submit(() -> {
                while (System.nanoTime() < end) {
                    try (Socket socket = AdminConnectionsTest.connectFrom("127.0.0.2", admin)) {
                        String answer = send(socket, "POST", "/api/v1/permits", worker, permit(domain, 0), true);
                        if (answer.startsWith("HTTP/1.1 200")) {
                            answered.incrementAndGet();
                        } else {
                            lost.computeIfAbsent(answer.isEmpty() ? "closed without an answer"
                                    : answer.lines().findFirst().orElse(""), k -> new AtomicLong()).incrementAndGet();
                        }
                    } catch (IOException e) {
                        lost.computeIfAbsent(e.getClass().getSimpleName() + ": " + e.getMessage(),
                                k -> new AtomicLong()).incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> each : running) {
            each.get(seconds + 60, TimeUnit.SECONDS);
        }
        fleet.shutdown();

        long lostCalls = lost.values().stream().mapToLong(AtomicLong::get).sum();
        System.out.printf("fleet of %d behind 127.0.0.2, %d s: %d calls answered (%.0f/s), %d lost %s%n", workers,
                seconds, answered.get(), answered.get() / (double) seconds, lostCalls, new TreeMap<>(lost));
        assertThat(answered.get()).as("the fleet got going").isGreaterThan(100);
        assertThat(new TreeMap<>(lost)).as("calls lost").isEmpty();
    }

    /** Worker connections open plus connections refused, as /metrics says. */
    private static long workersSeen(String metrics) {
        return Math.round(metric(metrics, "sluice_admin_connections_by_role{role=\"worker\"}")
                + metric(metrics, "sluice_admin_connections_refused_total"));
    }

    private static double metric(String metrics, String name) {
        return metrics.lines().filter(line -> line.startsWith(name + " ")).mapToDouble(
                line -> Double.parseDouble(line.substring(name.length() + 1))).findFirst().orElse(0);
    }

    private static String permit(String domain, long holdMillis) {
        return "{\"domain\":\"" + domain + "\"" + (holdMillis > 0 ? ",\"holdMillis\":" + holdMillis : "") + "}";
    }

    /** One call on a new connection from 127.0.0.1; the whole answer, or "" when closed without one. */
    private String call(URI admin, String method, String path, String token, String body, boolean close)
            throws IOException {
        try (Socket socket = connect(admin)) {
            return send(socket, method, path, token, body, close);
        } catch (IOException closed) {
            return "";
        }
    }

    private Socket connect(URI admin) throws IOException {
        Socket socket = AdminConnectionsTest.connectFrom("127.0.0.1", admin);
        open.add(socket);
        return socket;
    }

    /**
     * Sends a request; with {@code close} ({@code Connection: close}), reads and returns the whole answer ("" when the
     * server closed without one), else returns "" without reading.
     */
    private static String send(Socket socket, String method, String path, String token, String body, boolean close)
            throws IOException {
        socket.setSoTimeout(30_000);
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n"
                + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + content.length + "\r\n")
                + (close ? "Connection: close\r\n" : "") + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(content);
        out.flush();
        if (!close) {
            return "";
        }
        try {
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException reset) {
            return "";
        }
    }

    /**
     * The first line of each socket's answer, or "held" for a call still unanswered 2 s after the others were read
     * (a held call waits 10 s, or until the server stops): read side by side, so the held ones cost 2 s together.
     */
    private static List<String> firstLines(List<Socket> sockets) throws Exception {
        ExecutorService readers = Executors.newFixedThreadPool(sockets.size());
        try {
            List<Future<String>> reads = new ArrayList<>();
            for (Socket socket : sockets) {
                reads.add(readers.submit(() -> {
                    socket.setSoTimeout(2_000);
                    try {
                        return head(socket.getInputStream()).lines().findFirst().orElse("");
                    } catch (SocketTimeoutException stillHeld) {
                        return "held";
                    }
                }));
            }
            List<String> lines = new ArrayList<>();
            for (Future<String> read : reads) {
                lines.add(read.get(30, TimeUnit.SECONDS));
            }
            return lines;
        } finally {
            readers.shutdownNow();
        }
    }

    /** The status line and headers of an answer (its body left unread). */
    private static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            head.append((char) c);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                return head.toString();
            }
        }
        throw new IOException("closed after " + head);
    }
}
