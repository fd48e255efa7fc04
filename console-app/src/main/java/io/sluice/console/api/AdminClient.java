package io.sluice.console.api;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.sluice.engine.RequestClass;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.governor.GovernorSnapshot;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.Snapshot;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * The console's only way to a server: the admin API over HTTPS, or HTTP on loopback ({@link AdminAddress}).
 * Over HTTPS the server's certificate is checked during the handshake, before any request is sent: it must be
 * the one pinned for the server when one is, else chain to an authority this machine trusts and name the host
 * ({@link PinningTrustManager}). A certificate nobody vouches for ends the call with
 * {@link AdminException.Kind#CERTIFICATE_UNKNOWN} and the certificate offered, for the operator to judge; the
 * server has received no byte of HTTP and no token. Telemetry is read leniently (a newer server's extra fields
 * are ignored); the policy strictly, since the console sends it back whole. Thread-safe; every call blocks, so
 * call it off the FX thread.
 */
public final class AdminClient {
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private final HttpClient http;
    private final URI base;
    private final String token;
    private final String operator;

    /**
     * A client that trusts, over HTTPS, only certificates signed by an authority the JDK trusts.
     *
     * @throws IllegalArgumentException {@code base} is not https, nor http to loopback
     */
    public AdminClient(URI base, String token, String operator) {
        this(base, token, operator, null);
    }

    /**
     * A client that also trusts the certificate {@code pin} names (the operator accepted it, or gave it with
     * {@code --pin}).
     *
     * @param pin the certificate trusted for this server, or null
     * @throws IllegalArgumentException {@code base} is not https, nor http to loopback
     */
    public AdminClient(URI base, String token, String operator, CertificatePin pin) {
        this(base, token, operator, pin, null);
    }

    /** @param authorities the certificate authorities trusted (tests bring their own), or null for the JDK's */
    AdminClient(URI base, String token, String operator, CertificatePin pin, KeyStore authorities) {
        this.base = AdminAddress.check(base);
        this.token = token;
        this.operator = operator;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
        if ("https".equalsIgnoreCase(base.getScheme())) {
            try {
                SSLContext tls = SSLContext.getInstance("TLS");
                tls.init(null, new TrustManager[] {new PinningTrustManager(authorities, pin,
                        AdminAddress.server(base))}, null);
                builder.sslContext(tls);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
            }
        }
        this.http = builder.build();
    }

    public URI base() {
        return base;
    }

    public Snapshot snapshot() throws AdminException {
        return readLeniently(send("GET", "snapshot", null, null), Snapshot.class);
    }

    public Policy policy() throws AdminException {
        return read(send("GET", "policy", null, null), Policy.class);
    }

    /** Replaces the policy if it is still at {@code basedOnVersion}. */
    public PolicyUpdate putPolicy(Policy proposed, long basedOnVersion) throws AdminException {
        HttpResponse<String> response = send("PUT", "policy", write(proposed), "\"" + basedOnVersion + "\"");
        return switch (response.statusCode()) {
            case 200 -> new PolicyUpdate(read(response, Policy.class), List.of(), false);
            case 400 -> new PolicyUpdate(null, errors(response), false);
            case 412 -> new PolicyUpdate(null, List.of(), true);
            default -> throw unexpected(response);
        };
    }

    /** The outcome of {@link #putPolicy}: the installed policy, or the field errors, or a conflict. */
    public record PolicyUpdate(Policy installed, List<FieldError> errors, boolean conflict) {
    }

    public Ban ban(String type, String value, String reason, Long durationSeconds) throws AdminException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type);
        body.put("value", value);
        body.put("reason", reason);
        if (durationSeconds != null) {
            body.put("durationSeconds", durationSeconds);
        }
        HttpResponse<String> response = send("POST", "bans", write(body), null);
        if (response.statusCode() == 400) {
            throw new AdminException(AdminException.Kind.REJECTED, errors(response).toString());
        }
        return readLeniently(response, Ban.class);
    }

    public void unban(String id) throws AdminException {
        HttpResponse<String> response = send("DELETE", "bans/" + id, null, null);
        if (response.statusCode() != 204 && response.statusCode() != 404) {
            throw unexpected(response);
        }
    }

    /** Pauses (or resumes) the whole service when {@code only} is null, else one class. */
    public void pause(boolean pause, RequestClass only) throws AdminException {
        String body = only == null ? "" : "{\"class\":\"" + only.name() + "\"}";
        read(send("POST", pause ? "pause" : "resume", body, null), JsonNode.class);
    }

    /** Sets the browser check's mode for the whole site; answers the check as it stands after. */
    public BrowserCheck browserCheckMode(BrowserCheck.Mode mode) throws AdminException {
        String body = "{\"mode\":\"" + mode.name().toLowerCase(Locale.ROOT) + "\"}";
        return readLeniently(send("POST", "browser-check", body, null), BrowserCheck.class);
    }

    /** Challenges {@code network} (a CIDR) whenever the check is not off, or stops; answers the check after. */
    public BrowserCheck challengeNetwork(String network, boolean challenge) throws AdminException {
        String body = JSON.createObjectNode().put("network", network).put("challenge", challenge).toString();
        return readLeniently(send("POST", "browser-check", body, null), BrowserCheck.class);
    }

    /** The browser check asks autonomous system {@code asn} whenever it is not off, or stops (one audited action). */
    public BrowserCheck challengeAsn(long asn, boolean challenge) throws AdminException {
        String body = JSON.createObjectNode().put("asn", asn).put("challenge", challenge).toString();
        return readLeniently(send("POST", "browser-check", body, null), BrowserCheck.class);
    }

    public List<JsonNode> audit(int limit) throws AdminException {
        return readLeniently(send("GET", "audit?limit=" + limit, null, null),
                JSON.getTypeFactory().constructType(new TypeReference<List<JsonNode>>() { }));
    }

    /** The crawl governor: domains needing attention first, and its alerts. */
    public GovernorSnapshot domains() throws AdminException {
        return readLeniently(send("GET", "domains", null, null), GovernorSnapshot.class);
    }

    /** Sets a domain's current rate, in requests per second. */
    public DomainView setDomainRate(String domain, double requestsPerSecond) throws AdminException {
        return domainAction(domain, "rate", write(Map.of("requestsPerSecond", requestsPerSecond)));
    }

    /** Sets the operator's minimum gap between two requests to a domain; 0 removes it. */
    public DomainView setDomainMinDelay(String domain, long millis) throws AdminException {
        return domainAction(domain, "min-delay", write(Map.of("millis", millis)));
    }

    /** Forgets what the governor learned about a domain. */
    public DomainView resetDomain(String domain) throws AdminException {
        return domainAction(domain, "reset", "");
    }

    /** Brings a given-up domain back. */
    public DomainView reviveDomain(String domain) throws AdminException {
        return domainAction(domain, "revive", "");
    }

    private DomainView domainAction(String domain, String action, String body) throws AdminException {
        HttpResponse<String> response = send("POST", "domains/" + URLEncoder.encode(domain, StandardCharsets.UTF_8)
                + "/" + action, body, null);
        if (response.statusCode() == 400) {
            throw new AdminException(AdminException.Kind.REJECTED, errors(response).stream()
                    .map(FieldError::message).collect(Collectors.joining("; ")));
        }
        return readLeniently(response, DomainView.class);
    }

    /**
     * The fleet ({@code GET /api/v1/cluster}): every node and the cluster's totals; empty when the server runs
     * alone (no {@code --redis}: the path is not there).
     */
    public Optional<Fleet> cluster() throws AdminException {
        HttpResponse<String> response = send("GET", "cluster", null, null);
        return response.statusCode() == 404 ? Optional.empty() : Optional.of(readLeniently(response, Fleet.class));
    }

    /** This node's state in its cluster ({@code GET /api/v1/health}); empty when it runs alone. */
    public Optional<NodeHealth> health() throws AdminException {
        HttpResponse<String> response = send("GET", "health", null, null);
        return response.statusCode() == 404 ? Optional.empty()
                : Optional.of(readLeniently(response, NodeHealth.class));
    }

    /**
     * The shadow policy and its report, listing at most {@code clients} differing clients (browsers first);
     * empty when none is installed.
     */
    public Optional<ShadowView> shadow(int clients) throws AdminException {
        HttpResponse<String> response = send("GET", "policy/shadow?clients=" + clients, null, null);
        return response.statusCode() == 404 ? Optional.empty()
                : Optional.of(readLeniently(response, ShadowView.class));
    }

    /**
     * Installs {@code candidate} as the shadow policy (replacing any shadow and its counts). It decides
     * nothing; every request is also judged by it and counted. Validated like a policy edit.
     */
    public ShadowUpdate installShadow(Policy candidate) throws AdminException {
        HttpResponse<String> response = send("PUT", "policy/shadow", write(candidate), null);
        if (response.statusCode() == 400) {
            return new ShadowUpdate(null, errors(response));
        }
        return new ShadowUpdate(readLeniently(response, ShadowView.class), List.of());
    }

    /** The outcome of {@link #installShadow}: the installed shadow, or the field errors (nothing installed). */
    public record ShadowUpdate(ShadowView installed, List<FieldError> errors) {
    }

    /**
     * Makes the shadow the live policy if the live policy is still at {@code liveVersion} (exactly like
     * {@link #putPolicy}, a changed field is a conflict); the shadow is then removed.
     *
     * @throws AdminException {@link AdminException.Kind#REJECTED} when no shadow is installed
     */
    public PolicyUpdate promoteShadow(long liveVersion) throws AdminException {
        HttpResponse<String> response = send("POST", "policy/shadow/promote", "", "\"" + liveVersion + "\"");
        return switch (response.statusCode()) {
            case 200 -> new PolicyUpdate(read(response, Policy.class), List.of(), false);
            case 400 -> new PolicyUpdate(null, errors(response), false);
            case 412 -> new PolicyUpdate(null, List.of(), true);
            case 404 -> throw new AdminException(AdminException.Kind.REJECTED, "no shadow policy is installed");
            default -> throw unexpected(response);
        };
    }

    /** Removes the shadow policy; false when none was installed. */
    public boolean removeShadow() throws AdminException {
        HttpResponse<String> response = send("DELETE", "policy/shadow", null, null);
        return switch (response.statusCode()) {
            case 204 -> true;
            case 404 -> false;
            default -> throw unexpected(response);
        };
    }

    private HttpResponse<String> send(String method, String path, String body, String ifMatch)
            throws AdminException {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/api/v1/" + path))
                .timeout(Duration.ofSeconds(5))
                .header("Authorization", "Bearer " + token)
                .header("X-Sluice-Operator", operator)
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof PinningTrustManager.CertificateChangedException changed) {
                    throw new AdminException(AdminException.Kind.CERTIFICATE_CHANGED, changed.getMessage());
                }
                if (cause instanceof PinningTrustManager.WrongHostException wrongHost) {
                    throw new AdminException(AdminException.Kind.CERTIFICATE_WRONG_HOST, wrongHost.getMessage());
                }
                if (cause instanceof PinningTrustManager.UnknownCertificateException unknown) {
                    throw new AdminException(AdminException.Kind.CERTIFICATE_UNKNOWN, unknown.getMessage(),
                            unknown.offered());
                }
            }
            boolean unreachable = e instanceof ConnectException || e instanceof HttpTimeoutException;
            throw new AdminException(AdminException.Kind.UNREACHABLE, (unreachable ? "cannot reach " + base + ": "
                    : "connection to " + base + " failed: ") + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AdminException(AdminException.Kind.UNREACHABLE, "interrupted");
        }
        if (response.statusCode() == 401) {
            throw new AdminException(AdminException.Kind.UNAUTHORISED, "the server refused the token");
        }
        return response;
    }

    private static <T> T read(HttpResponse<String> response, Class<T> type) throws AdminException {
        return read(response, JSON.getTypeFactory().constructType(type));
    }

    private static <T> T readLeniently(HttpResponse<String> response, Class<T> type) throws AdminException {
        return readLeniently(response, JSON.getTypeFactory().constructType(type));
    }

    /**
     * Telemetry: fields this console does not know (a newer server's) are ignored, and so is an enum value
     * it does not know where the type has a default ({@link FleetNode.State#UNKNOWN}).
     */
    private static <T> T readLeniently(HttpResponse<String> response, JavaType type) throws AdminException {
        return read(response, JSON.readerFor(type).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .with(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_USING_DEFAULT_VALUE));
    }

    private static <T> T read(HttpResponse<String> response, JavaType type) throws AdminException {
        return read(response, JSON.readerFor(type));
    }

    private static <T> T read(HttpResponse<String> response, ObjectReader reader) throws AdminException {
        if (response.statusCode() / 100 != 2) {
            throw unexpected(response);
        }
        try {
            return reader.readValue(response.body());
        } catch (IOException e) {
            throw new AdminException(AdminException.Kind.PROTOCOL, "unexpected answer: " + e.getMessage());
        }
    }

    private static List<FieldError> errors(HttpResponse<String> response) throws AdminException {
        try {
            JsonNode errors = JSON.readTree(response.body()).path("errors");
            return JSON.convertValue(errors, new TypeReference<List<FieldError>>() { });
        } catch (IOException | IllegalArgumentException e) {
            throw new AdminException(AdminException.Kind.PROTOCOL, "unexpected error body: " + response.body());
        }
    }

    private static String write(Object value) throws AdminException {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new AdminException(AdminException.Kind.PROTOCOL, e.getMessage());
        }
    }

    private static AdminException unexpected(HttpResponse<String> response) {
        return new AdminException(AdminException.Kind.PROTOCOL, "HTTP " + response.statusCode() + ": "
                + response.body());
    }
}
