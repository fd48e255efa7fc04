package io.sluice.server.front;

import io.sluice.engine.Decision;
import io.sluice.engine.RequestClass;
import io.sluice.engine.RequestCost;
import io.sluice.engine.ThrottleEngine;
import java.time.InstantSource;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Asks the engine about every request and admits it to the next handler (the reverse proxy),
 * parks it without a thread while the engine says wait, or refuses it.
 *
 * <p>Contract with the engine: every {@link Decision.Admit} is completed exactly once, when the
 * response is done or has failed, so load and concurrency slots can never leak; every wait is resumed
 * on Jetty's scheduler, never by sleeping a thread. In cluster mode a decision may be {@link Decision.Pending}
 * (the engine asked the cluster's store): the request is parked the same way and acted on, on Jetty's threads,
 * when the answer arrives (within the store's deadline).
 */
public final class ThrottleHandler extends Handler.Wrapper {
    /** A request attribute: {@link System#nanoTime} when the upstream's response began (set by the proxy). */
    static final String UPSTREAM_FIRST_BYTE = ThrottleHandler.class.getName() + ".firstByte";

    private final ThrottleEngine engine;
    private final RefusalResponder refusals;
    private final InstantSource clock;
    private final AccessLog accessLog;
    private final PassEndpoint passes;
    /** Answers /robots.txt from the upstream's copy (with the trap), or null: forwarded like any path. */
    private final RobotsReader robots;

    public ThrottleHandler(ThrottleEngine engine, InstantSource clock, AccessLog accessLog, Handler next) {
        this(engine, clock, accessLog, next, null);
    }

    /** @param robots reads the upstream's robots.txt and answers it, or null */
    public ThrottleHandler(ThrottleEngine engine, InstantSource clock, AccessLog accessLog, Handler next,
                           RobotsReader robots) {
        super(next);
        this.robots = robots;
        this.engine = engine;
        this.clock = clock;
        this.accessLog = accessLog;
        this.refusals = new RefusalResponder(engine, clock);
        this.passes = new PassEndpoint(engine, clock);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        // A request the lean path handed over after asking the engine brings that decision along (LeanConnection):
        // the engine is asked once per request.
        if (request.getConnectionMetaData().removeAttribute(LeanConnection.PENDING_DECISION)
                instanceof Decision pending) {
            act(pending, request, response, new CompleteOnce(callback), false);
            return true;
        }
        if (PassEndpoint.PATH.equals(request.getHttpURI().getCanonicalPath())) {
            passes.answer(request, response, new CompleteOnce(callback), this::log);
            return true;
        }
        // robots.txt is every agent's to read, and cheap: answered from Sluice's copy before any rule
        if (robots != null && robots.answers(request.getHttpURI().getCanonicalPath())) {
            robots.answer(request, response, new CompleteOnce(callback));
            log(request, response, 200, Request.getRemoteAddr(request), "ROBOTS");
            return true;
        }
        io.sluice.engine.Request question = EngineRequests.of(Request.getRemoteAddr(request), request.getHeaders(),
                engine.forwardedHeader(), request.getMethod(), request.getHttpURI().getCanonicalPath(),
                request.getHttpURI().getQuery(), request.getHttpURI().getPath(), request.getHttpURI().getAuthority(),
                request.isSecure());
        act(engine.decide(question), request, response, new CompleteOnce(callback), false);
        return true;
    }

    /** {@code callback} completes once (a {@link CompleteOnce}), whichever path gets there first. */
    private void act(Decision decision, Request request, Response response, Callback callback, boolean waited) {
        try {
            if (decision instanceof Decision.Admit admit) {
                admit(admit, request, response, callback, waited);
            } else if (decision instanceof Decision.Wait wait) {
                park(wait, request, response, callback);
            } else if (decision instanceof Decision.Refuse refuse) {
                refusals.refuse(request, response, callback, refuse);
                log(request, response, refuse.status(), refuse.client().ip(), "REFUSE:" + refuse.reason());
            } else if (decision instanceof Decision.Pending pending) {
                awaitAnswer(pending, request, response, callback, waited);
            }
        } catch (Throwable failure) {
            Response.writeError(request, response, callback, failure);
        }
    }

    private void park(Decision.Wait wait, Request request, Response response, Callback callback) {
        AtomicBoolean resumed = new AtomicBoolean();
        request.getComponents().getScheduler().schedule(() -> {
            if (resumed.compareAndSet(false, true)) {
                act(wait.deferral().resume(), request, response, callback, true);
            }
        }, wait.waitMillis(), TimeUnit.MILLISECONDS);
        // A connection that fails while parked (an HTTP/2 reset, the idle timeout) gives the waiting place back
        // at once. A plain HTTP/1 hang-up is not seen here: Jetty does not read a connection while its request
        // is being handled, so that one holds its place until the wait ends, then fails on the write.
        request.addFailureListener(failure -> {
            if (resumed.compareAndSet(false, true)) {
                wait.deferral().cancel();
                callback.failed(failure);
            }
        });
    }

    /**
     * The engine asked the cluster's store: act when it answers, on a thread of its own (the store hands out a
     * batch of answers on Redis's I/O thread, and a request proxied or served by a handler here may block).
     * No thread waits meanwhile.
     */
    private void awaitAnswer(Decision.Pending pending, Request request, Response response, Callback callback,
                             boolean waited) {
        Executor executor = request.getComponents().getExecutor();
        pending.decision().whenComplete((decision, failure) -> {
            Runnable answer = () -> {
                if (failure != null) {
                    Response.writeError(request, response, callback, failure);
                } else {
                    act(decision, request, response, callback, waited);
                }
            };
            try {
                executor.execute(answer);
            } catch (RejectedExecutionException stopping) {
                answer.run(); // the server is stopping: answer here rather than leak an admission
            }
        });
    }

    private void admit(Decision.Admit admit, Request request, Response response, Callback callback, boolean waited) {
        if (admit.client().requestClass() == RequestClass.BOT) {
            RateLimitHeaders.apply(response.getHeaders(), admit.rateLimit());
        }
        // The proxy tells the upstream this address, not whatever forwarding headers the client sent.
        request.setAttribute(ForwardedHeaders.CLIENT_ADDRESS, admit.client().ip());
        // ... and drops the client's own copy of the header the policy names (sent again only for a trusted proxy).
        request.setAttribute(ForwardedHeaders.POLICY_HEADER, engine.forwardedHeader());
        // An HTML page may get the hidden link to the trap (agents.trap.injectLinks): the proxy decides by its answer.
        if (HttpMethod.GET.is(request.getMethod())) {
            byte[] trapLink = TrapLink.of(engine.policy().agents().trap());
            if (trapLink != null) {
                request.setAttribute(TrapLink.ATTRIBUTE, trapLink);
            }
        }
        long started = System.nanoTime();
        String decision = waited ? "DELAYED" : "ADMIT";
        // The admission is reported to the engine exactly once, on whichever completion comes first.
        Callback whenDone = new CompleteOnce(callback, () -> {
            long upstreamNanos = System.nanoTime() - started;
            admit.admission().complete(response.getStatus(), upstreamNanos, cost(request, response, started,
                    upstreamNanos));
            log(request, response, response.getStatus(), admit.client().ip(), decision);
        });
        try {
            if (!super.handle(request, response, whenDone)) {
                Response.writeError(request, response, whenDone, 404);
            }
        } catch (Throwable failure) {
            // The next handler threw, perhaps after taking the callback: whenDone completes (and frees the
            // engine's slots) once whatever happened before.
            Response.writeError(request, response, whenDone, failure);
        }
    }

    /** What the request cost, as far as it got: its first byte from the upstream, its bodies both ways. */
    private static RequestCost cost(Request request, Response response, long started, long upstreamNanos) {
        Object firstByte = request.getAttribute(UPSTREAM_FIRST_BYTE);
        return new RequestCost(firstByte instanceof Long at ? at - started : -1, upstreamNanos,
                Request.getContentBytesRead(request), Response.getContentBytesWritten(response));
    }

    void log(Request request, Response response, int status, String ip, String decision) {
        if (accessLog == null) {
            return;
        }
        String target = request.getHttpURI().getPathQuery();
        // Body bytes written so far: the whole body for an admitted request (logged on completion).
        accessLog.log(ip, clock.instant(), request.getMethod(), target, request.getConnectionMetaData().getProtocol(),
                status, Response.getContentBytesWritten(response), request.getHeaders().get(HttpHeader.REFERER),
                request.getHeaders().get(HttpHeader.USER_AGENT), decision);
    }
}
