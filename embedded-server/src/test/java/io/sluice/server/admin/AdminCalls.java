package io.sluice.server.admin;

import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.SluiceServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls to a running server's admin API with its token, for the admin tests. */
final class AdminCalls {
    private AdminCalls() {
    }

    static URI api(SluiceServer server, String path) {
        return server.adminUri().resolve("/api/v1/" + path);
    }

    /** {@code method} on {@code /api/v1/path} with the admin token, an optional body and {@code If-Match}. */
    static HttpResponse<String> send(HttpClient http, SluiceServer server, String method, String path, String body,
                                     String ifMatch) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(api(server, path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + server.adminToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code method} on {@code path} (from the root: {@code /metrics}) with {@code token}, or none if null. */
    static HttpResponse<String> as(HttpClient http, SluiceServer server, String token, String method, String path,
                                   String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.adminUri().resolve(path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A new token of {@code role} named {@code name}, made through the API with the admin token. */
    static String addToken(HttpClient http, SluiceServer server, String name, String role) throws Exception {
        HttpResponse<String> added = send(http, server, "POST", "tokens",
                "{\"name\":\"" + name + "\",\"role\":\"" + role + "\"}", null);
        if (added.statusCode() != 201) {
            throw new IllegalStateException("token " + name + " not added: " + added.body());
        }
        return PolicyJson.mapper().readTree(added.body()).get("token").asText();
    }
}
