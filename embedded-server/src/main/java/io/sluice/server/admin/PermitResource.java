package io.sluice.server.admin;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainNames;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.governor.Permit;
import io.sluice.engine.governor.PermitReason;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.server.state.Role;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.Graceful;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * {@code POST /api/v1/permits}: a worker asks whether it may fetch from a domain now. A held call waits on
 * Jetty's scheduler, never on a parked thread. When the admin listener begins to stop, every held call is answered at
 * once with what the governor says then (a worker asks again elsewhere or after the restart), so a stop is not kept
 * waiting by the workers' holds.
 */
final class PermitResource extends Resource implements Graceful {
    private final Set<Wait> waits = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;
    private final CrawlGovernor governor;
    private final Supplier<GovernorPolicy> policy;
    private final LongSupplier nanoTime = System::nanoTime;

    /**
     * What the call accepts: one {@code domain}, or {@code domains}, a worker's frontier slice (at most
     * {@link CrawlGovernor#MAX_PERMIT_DOMAINS}), of which the first ready is granted.
     */
    record PermitRequest(String domain, List<String> domains, Long holdMillis) {
    }

    PermitResource(CrawlGovernor governor, Supplier<GovernorPolicy> policy) {
        super(Access.of("POST", Role.WORKER));
        this.governor = governor;
        this.policy = policy;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        PermitRequest body = ApiMessages.read(request, PermitRequest.class);
        Supplier<CompletionStage<Permit>> ask = permitCall(body, Caller.of(request).token());
        long hold = body.holdMillis() == null ? 0 : body.holdMillis();
        if (hold < 0) {
            throw ApiError.field("holdMillis", "must not be negative");
        }
        long held = Math.min(hold, policy.get().maxHoldMillis());
        long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(held);
        answer(request, response, callback, ask, deadline);
        return true;
    }

    /**
     * The governor's call the request asks for, its names checked first: a bad one changes nothing. The worker is the
     * token's name: workers wanting one domain take turns, and a grant is its credit for one report
     * (docs/manual/governor.md, "Several workers, one domain").
     */
    private Supplier<CompletionStage<Permit>> permitCall(PermitRequest body, String worker) {
        if (body.domains() == null) {
            String domain = DomainResource.checked(body.domain());
            return () -> governor.acquireAsync(domain, worker);
        }
        if (body.domain() != null) {
            throw ApiError.field("domains", "give domain or domains, not both");
        }
        List<String> domains = body.domains();
        if (domains.isEmpty() || domains.size() > CrawlGovernor.MAX_PERMIT_DOMAINS) {
            throw ApiError.field("domains", "must name 1 to " + CrawlGovernor.MAX_PERMIT_DOMAINS + " domains, named "
                    + domains.size());
        }
        List<String> names = new ArrayList<>(domains.size());
        for (int i = 0; i < domains.size(); i++) {
            try {
                names.add(DomainNames.normalise(domains.get(i)));
            } catch (IllegalArgumentException e) {
                throw ApiError.field("domains[" + i + "]", e.getMessage());
            }
        }
        return () -> governor.acquireAnyAsync(names, worker);
    }

    /**
     * Answers now, or, while the caller is willing to be held and its token holds fewer than its share of held calls
     * ({@link AdminConnections#holdPermitCall}), asks again when the wait is over. In cluster mode the governor's
     * answer comes from Redis: the reply is written when it completes (within the cluster's deadline), no thread
     * waits for it.
     */
    private void answer(Request request, Response response, Callback callback,
            Supplier<CompletionStage<Permit>> ask, long deadline) {
        HeldCall held = new HeldCall(request);
        ask(request, response, Callback.from(held::release, callback), ask, deadline, held);
    }

    private void ask(Request request, Response response, Callback callback, Supplier<CompletionStage<Permit>> ask,
            long deadline, HeldCall held) {
        try {
            ask.get().whenComplete((permit, failure) -> {
                if (failure != null) {
                    callback.failed(failure);
                    return;
                }
                try {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - nanoTime.getAsLong());
                    if (permit.granted() || permit.reason() == PermitReason.GIVEN_UP || left <= 0 || stopping
                            || !held.hold()) {
                        ApiMessages.json(response, callback, 200, permitJson(permit, governor.pacing()));
                        return;
                    }
                    askAgainLater(request.getComponents().getScheduler(), Math.min(permit.waitMillis(), left),
                            () -> ask(request, response, callback, ask, deadline, held));
                } catch (Throwable e) {
                    callback.failed(e);
                }
            });
        } catch (Throwable failure) {
            callback.failed(failure);
        }
    }

    /** Runs {@code askAgain} after {@code delayMillis}, or at once when the listener begins to stop meanwhile. */
    private void askAgainLater(Scheduler scheduler, long delayMillis, Runnable askAgain) {
        Wait wait = new Wait(askAgain);
        waits.add(wait);
        wait.task = scheduler.schedule(wait::end, delayMillis, TimeUnit.MILLISECONDS);
        if (stopping) {
            wait.endEarly();
        }
    }

    @Override
    public CompletableFuture<Void> shutdown() {
        stopping = true;
        waits.forEach(Wait::endEarly);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public boolean isShutdown() {
        return stopping;
    }

    /** One held call's wait: ended once, by its timer or by the stop, whichever comes first. */
    private final class Wait {
        private final Runnable askAgain;
        private volatile Scheduler.Task task;
        private boolean ended;

        Wait(Runnable askAgain) {
            this.askAgain = askAgain;
        }

        void end() {
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
            }
            waits.remove(this);
            askAgain.run();
        }

        void endEarly() {
            Scheduler.Task scheduled = task;
            if (scheduled != null) {
                scheduled.cancel();
            }
            end();
        }
    }

    /** A call's place among its token's held calls: taken at its first wait, given back with its answer. */
    private static final class HeldCall {
        private final Request request;
        private final String token;
        private boolean holding;

        HeldCall(Request request) {
            this.request = request;
            this.token = Caller.of(request).token();
        }

        /** True while the call may be held: its place taken now, or already. */
        synchronized boolean hold() {
            if (!holding) {
                holding = AdminConnections.holdPermitCall(request, token);
            }
            return holding;
        }

        synchronized void release() {
            if (holding) {
                holding = false;
                AdminConnections.releasePermitCall(request, token);
            }
        }
    }

    /** {@link #permitJson(Permit)}, and in cluster mode where the pace was decided: CLUSTER or DEGRADED. */
    static Map<String, Object> permitJson(Permit permit, Pacing pacing) {
        Map<String, Object> json = permitJson(permit);
        if (pacing.mode() != Pacing.Mode.LOCAL) {
            json.put("pacing", pacing.mode());
        }
        return json;
    }

    /** The wire form: no wait or reason on a grant, no wait for a domain given up. */
    static Map<String, Object> permitJson(Permit permit) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("domain", permit.domain());
        json.put("granted", permit.granted());
        if (!permit.granted()) {
            if (permit.waitMillis() >= 0) {
                json.put("waitMillis", permit.waitMillis());
            }
            json.put("reason", permit.reason());
        }
        return json;
    }
}
