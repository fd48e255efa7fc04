package io.sluice.crawl;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A worker's line to the crawl governor: "may I fetch from this domain now?" and "this is what it
 * answered". Thread-safe; every call blocks the calling thread.
 */
public final class PermitClient {
    /** How a worker waits between two permit calls; tests record instead of sleeping. */
    public interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private final URI base;
    private final String token;
    private final HttpClient http;
    private final Sleeper sleeper;
    private final long holdMillis;

    private PermitClient(URI base, String token, HttpClient http, Sleeper sleeper, long holdMillis) {
        this.base = base;
        this.token = token;
        this.http = http;
        this.sleeper = sleeper;
        this.holdMillis = holdMillis;
    }

    /**
     * @param base  the Sluice admin listener, e.g. {@code http://127.0.0.1:9090}
     * @param token the workers' token ({@code <state>/worker-token}) or the admin token
     */
    public static PermitClient connect(URI base, String token) {
        return new PermitClient(base, token, HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(),
                Thread::sleep, 5_000);
    }

    /** The same client with another HTTP client, sleeper, or server-side hold for {@link #acquire}. */
    public PermitClient with(HttpClient client, Sleeper newSleeper, long newHoldMillis) {
        return new PermitClient(base, token, client, newSleeper, newHoldMillis);
    }

    /** One question, answered at once. */
    public Permit tryAcquire(String domain) {
        return permit(domain, 0);
    }

    /**
     * Returns when a request to {@code domain} may be sent: the server holds each call up to the
     * hold time, and between calls the worker waits as long as it is told.
     *
     * @throws DomainGivenUpException when the governor has given the domain up
     * @throws InterruptedException   when the waiting thread is interrupted
     */
    public void acquire(String domain) throws InterruptedException {
        while (true) {
            Permit permit = permit(domain, holdMillis);
            if (permit.granted()) {
                return;
            }
            if (permit.givenUp()) {
                throw new DomainGivenUpException(permit.domain());
            }
            sleeper.sleep(Math.max(1, permit.waitMillis()));
        }
    }

    /**
     * One question for any of {@code domains}, a slice of the worker's frontier (at most 100), answered at
     * once: the domain whose slot came first is granted, and the answer names it; refused, it names the one
     * that opens first and how long until then.
     */
    public Permit tryAcquireAny(List<String> domains) {
        return permit(domainsBody(domains, 0));
    }

    /**
     * One call for any of {@code domains}, held by the server up to this client's hold time ({@link #with})
     * while none is ready: the answer as it came, for a worker that counts or schedules its own calls.
     */
    public Permit askAny(List<String> domains) {
        return permit(domainsBody(domains, holdMillis));
    }

    /**
     * Returns the domain among {@code domains} that may be fetched now (the one whose slot came first), as
     * {@link #acquire} waits for one: one call asks for them all, so a worker with a frontier of many
     * domains neither spins over them nor waits on the slowest.
     *
     * @throws DomainGivenUpException when every one of them is given up
     * @throws InterruptedException   when the waiting thread is interrupted
     */
    public String acquireAny(List<String> domains) throws InterruptedException {
        while (true) {
            Permit permit = askAny(domains);
            if (permit.granted()) {
                return permit.domain();
            }
            if (permit.givenUp()) {
                throw new DomainGivenUpException(permit.domain());
            }
            sleeper.sleep(Math.max(1, permit.waitMillis()));
        }
    }

    private static Map<String, Object> domainsBody(List<String> domains, long hold) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("domains", List.copyOf(domains));
        if (hold > 0) {
            body.put("holdMillis", hold);
        }
        return body;
    }

    /** Tells the governor what the domain answered. */
    public void report(Feedback feedback) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("domain", feedback.domain());
        body.put("status", feedback.status());
        if (feedback.retryAfterSeconds() != null) {
            body.put("retryAfterSeconds", feedback.retryAfterSeconds());
        }
        if (feedback.latencyMillis() >= 0) {
            body.put("latencyMillis", feedback.latencyMillis());
        }
        if (feedback.crawlDelaySeconds() != null) {
            body.put("crawlDelaySeconds", feedback.crawlDelaySeconds());
        }
        HttpResponse<String> response = post("feedback", body);
        if (response.statusCode() != 204 && response.statusCode() != 200) {
            throw refused(response);
        }
    }

    private Permit permit(String domain, long hold) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("domain", domain);
        if (hold > 0) {
            body.put("holdMillis", hold);
        }
        return permit(body);
    }

    private Permit permit(Map<String, Object> body) {
        HttpResponse<String> response = post("permits", body);
        if (response.statusCode() != 200) {
            throw refused(response);
        }
        try {
            Map<String, Object> json = FlatJson.read(response.body());
            if (!(json.get("granted") instanceof Boolean granted) || !(json.get("domain") instanceof String name)) {
                throw new PermitServiceException(200, "the permit service answered without domain or granted: "
                        + response.body());
            }
            long wait = json.get("waitMillis") instanceof Number number ? number.longValue() : -1;
            String reason = json.get("reason") instanceof String text ? text : null;
            return new Permit(name, granted, granted ? 0 : wait, reason);
        } catch (IllegalArgumentException e) {
            throw new PermitServiceException(200, "the permit service answered " + e.getMessage() + ": "
                    + response.body());
        }
    }

    private HttpResponse<String> post(String path, Map<String, Object> body) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/api/v1/" + path))
                .timeout(CALL_TIMEOUT.plusMillis(holdMillis))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(FlatJson.write(body)))
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new PermitServiceException("cannot reach the permit service at " + base + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PermitServiceException("interrupted while calling the permit service", e);
        }
    }

    private static PermitServiceException refused(HttpResponse<String> response) {
        if (response.statusCode() == 401) {
            return new PermitServiceException(401, "the permit service rejected the worker/admin token");
        }
        return new PermitServiceException(response.statusCode(), "the permit service answered HTTP "
                + response.statusCode() + ": " + response.body());
    }
}
