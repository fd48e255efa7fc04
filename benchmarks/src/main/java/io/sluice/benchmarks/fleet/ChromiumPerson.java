package io.sluice.benchmarks.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A real headless Chromium (Debian's {@code /usr/bin/chromium}, started once with the flags this machine needs, as
 * {@code HeadlessChromium} in the server's tests does, and a person's Chrome user agent: Chromium's own says
 * {@code HeadlessChrome}, which the crawler list counts as a bot), driven over the DevTools protocol: each load is a
 * {@code Page.navigate} in the same tab, so its cookies (the pass) stay, and it ends at the load event of the page
 * asked for, with its assets checked in the page (every image decoded, both scripts run, both stylesheets read). An
 * interstitial's load event is counted and waited past: its script solves the proof-of-work and goes on by itself.
 * Starting the browser costs nothing per load, so the loads can be timed.
 */
final class ChromiumPerson implements Person {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    /** A person's Chrome on Linux (the same as {@code HeadlessChromium.PERSONS_CHROME} in the server's tests). */
    static final String PERSONS_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";
    private static final String STATE = "JSON.stringify({s:document.readyState,"
            + "c:!!document.getElementById('sluice-check'),t:document.title,"
            + "i:Array.from(document.images).filter(function(x){return x.complete&&x.naturalWidth>0}).length,"
            + "j:window.sluiceBenchScripts||0,"
            + "y:Array.from(document.styleSheets).filter(function(s){try{return s.cssRules.length>0}"
            + "catch(e){return false}}).length})";

    private final URI front;
    private final Process process;
    private final WebSocket socket;
    private final ObjectMapper json = new ObjectMapper();
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();

    private ChromiumPerson(URI front, Process process, WebSocket socket) {
        this.front = front;
        this.process = process;
        this.socket = socket;
    }

    /** Starts Chromium on a profile in {@code dir} (its log there too), on an empty tab. */
    static ChromiumPerson start(URI front, Path dir) throws Exception {
        if (!Files.isExecutable(CHROMIUM)) {
            throw new IllegalStateException(CHROMIUM + " is missing: install Debian's chromium, or use --person java");
        }
        Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
        Process process = new ProcessBuilder(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--no-proxy-server", "--disable-extensions", "--user-data-dir=" + profile,
                "--remote-debugging-port=0", "--user-agent=" + PERSONS_CHROME, "about:blank")
                .redirectErrorStream(true).redirectOutput(dir.resolve("chromium.log").toFile()).start();
        try {
            Path portFile = profile.resolve("DevToolsActivePort");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(portFile) || Files.readAllLines(portFile).size() < 2) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new IllegalStateException("Chromium did not open its DevTools port; see "
                            + dir.resolve("chromium.log"));
                }
                Thread.sleep(100);
            }
            int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
            HttpClient http = HttpClient.newHttpClient();
            String targets = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            String page = null;
            for (JsonNode target : new ObjectMapper().readTree(targets)) {
                if ("page".equals(target.path("type").asText())) {
                    page = target.path("webSocketDebuggerUrl").asText();
                    break;
                }
            }
            if (page == null) {
                throw new IllegalStateException("Chromium has no tab: " + targets);
            }
            Listener listener = new Listener();
            WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(page), listener).get(30,
                    TimeUnit.SECONDS);
            ChromiumPerson person = new ChromiumPerson(front, process, socket);
            listener.person = person;
            person.call("Page.enable", Map.of(), 30_000);
            person.call("Network.enable", Map.of(), 30_000);
            return person;
        } catch (Exception | Error e) {
            process.destroyForcibly();
            throw e;
        }
    }

    @Override
    public String describe() {
        return "headless Chromium " + version() + " over DevTools, user agent of a person's Chrome";
    }

    private String version() {
        try {
            JsonNode answer = call("Browser.getVersion", Map.of(), 10_000);
            return answer.path("product").asText("?");
        } catch (Exception e) {
            return "?";
        }
    }

    @Override
    public Load load(String path, long timeoutMillis) throws InterruptedException {
        events.clear();
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        String note = "no load event within " + timeoutMillis + " ms";
        Requests requests = new Requests();
        try {
            JsonNode navigated = call("Page.navigate", Map.of("url", front.resolve(path).toString()),
                    timeoutMillis);
            if (navigated.hasNonNull("errorText")) {
                return new Load(start, millisSince(start), false, 0, navigated.get("errorText").asText());
            }
            while (true) {
                long left = deadline - System.nanoTime();
                JsonNode event = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
                if (event == null) {
                    break;
                }
                if (!"Page.loadEventFired".equals(event.path("method").asText())) {
                    requests.on(event);
                    continue;
                }
                long loaded = event.path("receivedNanos").asLong();
                JsonNode state = state(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (state == null || !"complete".equals(state.path("s").asText())) {
                    continue; // the interstitial has already moved on: its page's load event is to come
                }
                if (state.path("c").asBoolean()) {
                    continue; // the interstitial, still working
                }
                String title = state.path("t").asText();
                boolean assets = state.path("i").asInt() == PageSite.ASSETS - 4 && state.path("j").asInt() == 2
                        && state.path("y").asInt() == 2;
                boolean ok = title.startsWith("Page ") && assets;
                return new Load(start, TimeUnit.NANOSECONDS.toMillis(loaded - start), ok, requests.interstitials,
                        (ok ? "" : "ended on \"" + title + "\", assets " + state + "; ") + requests);
            }
        } catch (IOException e) {
            note = e.toString();
        }
        note += "; " + requests;
        try {
            call("Page.stopLoading", Map.of(), 5_000);
        } catch (IOException e) {
            // the next load navigates anyway
        }
        return new Load(start, millisSince(start), false, requests.interstitials, note);
    }

    /** The page's state as {@link #STATE} reads it, or null when the page went away meanwhile. */
    private JsonNode state(long timeoutMillis) throws IOException, InterruptedException {
        JsonNode answer;
        try {
            answer = call("Runtime.evaluate", Map.of("expression", STATE, "returnByValue", true), timeoutMillis);
        } catch (IOException e) {
            return null; // "Execution context was destroyed": the page navigated on
        }
        JsonNode value = answer.path("result").path("value");
        return value.isTextual() ? json.readTree(value.asText()) : null;
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private JsonNode call(String method, Map<String, Object> params, long timeoutMillis)
            throws IOException, InterruptedException {
        int id = ids.incrementAndGet();
        ObjectNode message = json.createObjectNode();
        message.put("id", id);
        message.put("method", method);
        message.set("params", json.valueToTree(params));
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        try {
            synchronized (socket) {
                socket.sendText(json.writeValueAsString(message), true).get(10, TimeUnit.SECONDS);
            }
            JsonNode reply = answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
            if (reply.has("error")) {
                throw new IOException(method + ": " + reply.get("error"));
            }
            return reply.path("result");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException(method + ": " + e, e);
        } finally {
            pending.remove(id);
        }
    }

    private void received(String text) {
        try {
            JsonNode message = json.readTree(text);
            if (message.has("id")) {
                CompletableFuture<JsonNode> answer = pending.get(message.get("id").asInt());
                if (answer != null) {
                    answer.complete(message);
                }
            } else {
                ((ObjectNode) message).put("receivedNanos", System.nanoTime());
                events.add(message);
            }
        } catch (IOException e) {
            // not JSON: not ours
        }
    }

    @Override
    public void close() {
        try {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // it is going anyway
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The requests of one load, from the DevTools protocol's network events: what each answered and took. */
    private static final class Requests {
        private final Map<String, String> urls = new HashMap<>();
        private final Map<String, Double> started = new HashMap<>();
        private final Map<String, String> statuses = new HashMap<>();
        private final List<String[]> done = new ArrayList<>(); // path, status, millis
        /** Pages answered 403 with a document: the interstitial (its script moves on before it can be read). */
        int interstitials;

        void on(JsonNode event) {
            JsonNode params = event.path("params");
            String id = params.path("requestId").asText();
            double at = params.path("timestamp").asDouble();
            switch (event.path("method").asText()) {
                case "Network.requestWillBeSent" -> {
                    if (params.has("redirectResponse")) {
                        finish(id, params.path("redirectResponse").path("status").asText(), at);
                    }
                    urls.put(id, URI.create(params.path("request").path("url").asText()).getPath());
                    started.put(id, at);
                }
                case "Network.responseReceived" -> {
                    int status = params.path("response").path("status").asInt();
                    statuses.put(id, Integer.toString(status));
                    if (status == 403 && "Document".equals(params.path("type").asText())) {
                        interstitials++;
                    }
                }
                case "Network.loadingFinished" -> finish(id, statuses.getOrDefault(id, "?"), at);
                case "Network.loadingFailed" -> finish(id, "failed " + params.path("errorText").asText(), at);
                default -> { }
            }
        }

        private void finish(String id, String status, double at) {
            Double from = started.remove(id);
            if (from != null) {
                done.add(new String[] {urls.get(id), status, Long.toString(Math.round((at - from) * 1000))});
            }
        }

        /** How many requests, their statuses, and the three slowest. */
        @Override
        public String toString() {
            Map<String, Integer> counts = new TreeMap<>();
            done.forEach(request -> counts.merge(request[1], 1, Integer::sum));
            String slowest = done.stream().sorted(Comparator.comparingLong((String[] r) -> Long.parseLong(r[2]))
                    .reversed()).limit(3).map(r -> r[0] + " " + r[2] + " ms (" + r[1] + ")")
                    .collect(Collectors.joining(", "));
            return done.size() + " requests " + counts + (started.isEmpty() ? "" : ", " + started.size()
                    + " unanswered " + started.keySet().stream().map(urls::get).limit(3).toList())
                    + "; slowest " + slowest;
        }
    }

    /** Puts a message's fragments together and hands it to the person. */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();
        private volatile ChromiumPerson person;

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String message = text.toString();
                text.setLength(0);
                ChromiumPerson to = person;
                if (to != null) {
                    to.received(message);
                }
            }
            webSocket.request(1);
            return null;
        }
    }
}
