package io.sluice.engine;

import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.CostWindow;
import io.sluice.engine.internal.CrawlerGate;
import io.sluice.engine.internal.CrawlerSlot;
import io.sluice.engine.internal.FunnelStep;
import io.sluice.engine.internal.LoadGate;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import java.time.InstantSource;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * How a decision ends once its rules are known: admitted, refused (counted, and towards escalation when the client
 * brought it on itself) or parked in a wait ({@link Parked}); and the last rules, 7 (progressive delay) and 6 (load
 * deferral), which a parked request meets again when it resumes under the policy live then.
 */
final class Outcomes {

    /** Refusals before the client rules that track their client (see {@link #recordRefused}). */
    private static final Set<Reason> TRACKED_REFUSALS = EnumSet.of(Reason.PASS_REQUIRED, Reason.NETWORK_BUDGET,
            Reason.NETWORK_CONCURRENCY, Reason.CATEGORY, Reason.TRAP);

    /** Interstitials answered since start (the browser check's funnel: see {@link #challenge}). */
    private final LongAdder challenged = new LongAdder();

    private final InstantSource clock;
    private final AtomicReference<CompiledPolicy> current;
    private final ClientStateStore<?, ?> clients;
    private final LoadGate load;
    private final CrawlerGate crawlerGate;
    private final AutomaticBans bans;
    private final EngineTelemetry telemetry;

    Outcomes(InstantSource clock, AtomicReference<CompiledPolicy> current, ClientStateStore<?, ?> clients,
             LoadGate load, CrawlerGate crawlerGate, AutomaticBans bans, EngineTelemetry telemetry) {
        this.clock = clock;
        this.current = current;
        this.clients = clients;
        this.load = load;
        this.crawlerGate = crawlerGate;
        this.bans = bans;
        this.telemetry = telemetry;
    }

    LoadGate load() {
        return load;
    }

    /** Rule 3's "any crawler served in the last N s" gate. */
    CrawlerGate crawlerGate() {
        return crawlerGate;
    }

    /** Whole seconds, rounded up, for {@code Retry-After}: never tell a client to come back too early. */
    static long ceilSeconds(long millis) {
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }

    /** Rule 3's crawler slot and the all-crawlers turn go back (either may be null): the crawler was not served. */
    void giveBackCrawler(ClientStateStore<?, ?> store, CrawlerSlot slot, CrawlerGate.Turn turn) {
        if (slot != null) {
            store.releaseCrawler(slot);
        }
        crawlerGate.giveBack(turn);
    }

    /** Rule 7 (when the client is over its soft limit), then rule 6; {@code nodes} divides the threshold. */
    Decision delayOrLoad(CompiledPolicy compiled, Pending<?, ?> pending, int hitsInWindow, int nodes, long now) {
        Policy.ProgressiveDelay progressive = compiled.progressiveDelay(pending.client.requestClass());
        int softHits = progressive == null ? 0 : ceilDiv(progressive.softHits(), nodes);
        if (progressive != null && hitsInWindow > softHits) {
            long delay = Math.min(progressive.maxDelayMillis(),
                    (long) (hitsInWindow - softHits) * nodes * progressive.delayMillisPerHit());
            clients.recordLimited(pending.key, now, false);
            return new Decision.Wait(pending.client, Reason.DELAYED, delay, new Parked.Delay(this, pending));
        }
        return loadStage(pending, compiled.policy(), now, false);
    }

    static int ceilDiv(int value, int by) {
        return (int) ((value + (long) by - 1) / by);
    }

    /** Rule 6: admitted, parked in a waiting place, or refused, by the load. */
    Decision loadStage(Pending<?, ?> pending, Policy policy, long now, boolean afterWait) {
        if (!pending.client.deferredByLoad()) {
            load.enter(); // a browser is served whatever the load (one with a pass, while the browser check asks)
            return admit(pending, now, afterWait);
        }
        Policy.Load limits = policy.load();
        if (load.tryEnter(limits.maxActive())) {
            return admit(pending, now, afterWait);
        }
        if (load.tryWait(limits.maxWaiting())) {
            clients.recordLimited(pending.key, now, false);
            return new Decision.Wait(pending.client, Reason.LOAD, limits.deferMillis(), new Parked.Load(this, pending));
        }
        pending.release();
        return refuse(pending.client, pending.key, Reason.LOAD, policy.refusal().retryAfterSeconds(),
                pending.rate, now, "The site is busy: " + limits.maxWaiting() + " requests are already waiting.");
    }

    /** Admitted without rules 3-7 (allow-listed): holds a load slot, whatever the load. */
    Decision admitExempt(Pending<?, ?> pending, long now) {
        load.enter();
        return admit(pending, now, false);
    }

    Decision admit(Pending<?, ?> pending, long now, boolean afterWait) {
        pending.admittedAtMillis = now;
        telemetry.admitted(pending.client.requestClass(), now, afterWait);
        return new Decision.Admit(pending.client, pending, pending.rate);
    }

    Decision refuse(ClientInfo client, ClientKey key, Reason reason, long retryAfterSeconds,
                    RateLimitStatus rate, long now, String detail) {
        telemetry.refused(client.requestClass(), reason, now);
        recordRefused(client, key, reason, now);
        return new Decision.Refuse(client, reason, reason.httpStatus(), retryAfterSeconds, rate, detail);
    }

    /** A refusal with a status of its own (a category refused with 402 where the operator says so). */
    Decision refuse(ClientInfo client, ClientKey key, Reason reason, int status, String detail, long now) {
        telemetry.refused(client.requestClass(), reason, now);
        recordRefused(client, key, reason, now);
        return new Decision.Refuse(client, reason, status, -1, null, detail);
    }

    /**
     * A refusal on its client's row (the heatmap's, and its network's). One made after rules 1-2 but before the
     * request's hit is pushed (the agent rule's, the browser check's) tracks a client not tracked yet, as a challenge
     * does: a fleet refused at its first requests still shows address by address, and each row's refusals are its
     * client's refusal lines in the access log (AccessLogTruthTest). A pause's and a ban's refusals are counted only
     * on a client tracked already: they hold without a table entry per refused request.
     */
    private void recordRefused(ClientInfo client, ClientKey key, Reason reason, long now) {
        if (TRACKED_REFUSALS.contains(reason)) {
            clients.recordRefusedTracking(key, client.requestClass(), now);
        } else {
            clients.recordLimited(key, now, true);
        }
    }

    /**
     * The browser check's interstitial instead of the page ({@link Reason#CHALLENGE}): counted as a refusal by its
     * reason, never towards escalation (a person behind a busy network is asked, not punished), and as the first step
     * of the check's funnel, the site's and its network's, whichever rule asked (the check itself, or the agent rule
     * for a category whose action is to challenge and for an address the trap marked).
     */
    Decision challenge(ClientInfo client, ClientKey key, int bits, boolean dropPass, long now, String detail) {
        challenged.increment();
        telemetry.funnel(key.address(), FunnelStep.CHALLENGED, now);
        telemetry.refused(client.requestClass(), Reason.CHALLENGE, now);
        clients.recordRefusedTracking(key, client.requestClass(), now);
        return new Decision.Refuse(client, Reason.CHALLENGE, Reason.CHALLENGE.httpStatus(), -1, null, detail, bits,
                dropPass);
    }

    /**
     * A refusal by a rule the client brought on itself (spacing, hit stacks, concurrency): counted towards the
     * policy's escalation rules, which may ban it.
     */
    Decision refuseRule(CompiledPolicy compiled, ClientInfo client, ClientKey key, ClientKey addressKey,
                        Reason reason, long retryAfterSeconds, RateLimitStatus rate, long now, String detail) {
        Decision refusal = refuse(client, key, reason, retryAfterSeconds, rate, now, detail);
        bans.offended(compiled, key, addressKey, now);
        return refusal;
    }

    /**
     * What a banned client is told: the operator's published message, never the ban's reason (that is for
     * operators, and may name the rule or the incident).
     */
    Decision refuseBanned(ClientInfo client, ClientKey key, Ban ban, Policy policy, long now) {
        String published = policy.refusal().bannedMessage();
        return refuse(client, key, Reason.BANNED, bans.retryAfterSeconds(ban, now), null, now,
                published == null || published.isBlank() ? "This client is banned." : published);
    }

    /** A parked request resumes: a pause or ban installed meanwhile refuses it, else {@code next} decides. */
    Decision resumed(Pending<?, ?> pending, Parked next) {
        long now = clock.millis();
        CompiledPolicy compiled = current.get();
        ClientInfo client = pending.client;
        if (compiled.pauses(client.requestClass())) {
            pending.release();
            return refuse(client, pending.key, Reason.PAUSED, compiled.policy().refusal().retryAfterSeconds(),
                    pending.rate, now, "The service was paused while this request waited.");
        }
        Ban ban = bans.banned(compiled, pending.address, pending.key, now);
        if (ban != null) {
            pending.release();
            return refuseBanned(client, pending.key, ban, compiled.policy(), now);
        }
        return next.proceed(compiled.policy(), now);
    }

    /** An admitted request's upstream latency, once it finished. */
    void completed(long upstreamLatencyNanos) {
        telemetry.completed(upstreamLatencyNanos);
    }

    /** Interstitials answered since start, whichever rule asked. */
    long challenged() {
        return challenged.sum();
    }

    /** One step of the browser check's funnel, on the network of {@code address} (its row in the snapshot). */
    void funnel(IpAddress address, FunnelStep step, long now) {
        telemetry.funnel(address, step, now);
    }

    /** What an admitted request cost, on its network, class and route; returns its network's window. */
    CostWindow costed(RequestClass cls, IpAddress address, CostWindow linkedNetwork, RouteTable.Compiled route,
                      RequestCost cost, long now) {
        return telemetry.costed(cls, address, linkedNetwork, route, cost, now);
    }

}
