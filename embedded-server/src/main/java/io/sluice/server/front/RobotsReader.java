package io.sluice.server.front;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.robots.RobotsTxt;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.AbstractLifeCycle;

/**
 * Reads the upstream's {@code robots.txt} on a timer of its own, off the request path, and hands it to the engine,
 * which counts each named crawler's requests to paths its group disallows (docs/manual/policy.md, "robots.txt").
 * Sluice answers {@code /robots.txt} itself from the copy read: the upstream's bytes unchanged, except that a trap
 * path set in the policy is added to every group as a {@code Disallow} line.
 *
 * <p>Bounded: at most {@link RobotsTxt#MAX_CHARS} bytes are read (the rest is ignored, as RFC 9309 allows), one
 * request at a time with a timeout. What an answer means follows RFC 9309 section 2.3.1: a 2xx is the file; a 4xx
 * means there is none (nothing is disallowed); a 5xx or no answer keeps the last copy read (before any, nothing is
 * counted and {@code /robots.txt} is forwarded to the upstream as any path is).
 */
public final class RobotsReader extends AbstractLifeCycle {

    private static final System.Logger LOG = System.getLogger(RobotsReader.class.getName());
    /** How often the upstream's robots.txt is read by default. */
    public static final Duration DEFAULT_EVERY = Duration.ofMinutes(10);
    static final String PATH = "/robots.txt";

    /** The copy read: the upstream's text (empty for "none"). */
    private record Copy(String text) {
    }

    private final ThrottleEngine engine;
    private final URI source;
    private final Duration every;
    private final Duration timeout;
    private volatile Copy copy;
    private ScheduledExecutorService timer;
    private HttpClient http;

    /**
     * @param upstream the upstream's base URI; its {@code /robots.txt} is read
     * @param every    how often
     */
    public RobotsReader(ThrottleEngine engine, URI upstream, Duration every, Duration timeout) {
        this.engine = engine;
        this.source = upstream.resolve(PATH);
        this.every = every;
        this.timeout = timeout;
    }

    @Override
    protected void doStart() {
        http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NORMAL).build();
        timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "sluice-robots");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::readNow, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    protected void doStop() {
        timer.shutdownNow();
    }

    /** Reads the upstream's robots.txt once, now (the timer's task; a test may call it). */
    public void readNow() {
        try {
            HttpResponse<InputStream> answer = http.send(HttpRequest.newBuilder(source).timeout(timeout)
                    .header("User-Agent", "Sluice (robots.txt reader)").GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            int status = answer.statusCode();
            String text;
            try (InputStream body = answer.body()) {
                text = status / 100 == 2 ? new String(body.readNBytes(RobotsTxt.MAX_CHARS), StandardCharsets.UTF_8)
                        : null;
            }
            if (status / 100 == 2) {
                install(text);
            } else if (status / 100 == 4) {
                install("");
            } else {
                LOG.log(System.Logger.Level.WARNING, source + " answered " + status + "; keeping the last copy");
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot read " + source + " (" + e + "); keeping the last copy");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot read " + source + ": " + e);
        }
    }

    private void install(String text) {
        copy = new Copy(text);
        engine.robotsTxt(RobotsTxt.parse(text));
    }

    /** Whether Sluice answers {@code path} itself: {@code /robots.txt} once a copy is read, or with a trap set. */
    boolean answers(String path) {
        return PATH.equals(path) && (copy != null || engine.policy().agents().trap().set());
    }

    /** Answers {@code /robots.txt} from the copy read, with the trap path disallowed for every agent when set. */
    void answer(Request request, Response response, Callback callback) {
        Copy read = copy;
        Agents.Trap trap = engine.policy().agents().trap();
        String text = read == null ? "" : read.text();
        String body = trap.set() ? RobotsTxt.withDisallowEverywhere(text, trap.path()) : text;
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "max-age=300");
        if ("HEAD".equals(request.getMethod())) {
            // an empty last write, not a callback completed with nothing written (why: admin's ApiMessages.noContent)
            response.write(true, BufferUtil.EMPTY_BUFFER, callback);
            return;
        }
        Content.Sink.write(response, true, body, callback);
    }
}
