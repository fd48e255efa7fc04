package io.sluice.server.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The on-call engineer's calls to the admin API, with the admin token, as the console makes them. */
final class Operator {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http;
    private final URI admin;
    private final String token;

    Operator(HttpClient http, URI admin, String token) {
        this.http = http;
        this.admin = admin;
        this.token = token;
    }

    HttpResponse<String> call(String method, String path, String body, String ifMatch) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(admin.resolve("/api/v1/" + path)).timeout(CALL_TIMEOUT)
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Looks at the live snapshot every second for {@code period}, as the console does; each answer's time in ms. */
    List<Long> watch(Duration period, List<String> failures) throws InterruptedException {
        List<Long> answered = new ArrayList<>();
        long end = System.nanoTime() + period.toNanos();
        while (System.nanoTime() < end) {
            long start = System.nanoTime();
            try {
                HttpResponse<String> snapshot = call("GET", "snapshot", null, null);
                if (snapshot.statusCode() == 200) {
                    answered.add((System.nanoTime() - start) / 1_000_000);
                } else {
                    failures.add("operator: snapshot answered " + snapshot.statusCode());
                }
            } catch (Exception e) {
                failures.add("operator: snapshot failed: " + e);
            }
            Thread.sleep(1_000);
        }
        return answered;
    }

    /** The ids of the bans in the policy. */
    List<String> bans() throws Exception {
        List<String> ids = new ArrayList<>();
        for (JsonNode ban : banList()) {
            ids.add(ban.get("id").asText());
        }
        return ids;
    }

    private JsonNode banList() throws Exception {
        JsonNode body = JSON.readTree(call("GET", "bans", null, null).body());
        return body.isArray() ? body : body.path("bans");
    }

    /** Waits until the policy holds at least {@code count} bans (the writer works off the request path). */
    List<String> awaitBans(int count, Duration patience) throws Exception {
        Await.within(patience, () -> bans().size() >= count);
        List<String> ids = bans();
        if (ids.size() < count) {
            throw new AssertionError(count + " offenders were banned, the policy holds " + ids.size() + " bans");
        }
        return ids;
    }
}
