package io.sluice.engine;

import io.sluice.engine.internal.AutomaticBanSet;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.EscalationTracker;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Rule 2's bans as the engine judges them, and the automatic bans its escalation rules make (see "Automatic bans" in
 * the essay atop {@link ThrottleEngine}): the offences counted, the bans in force here that the policy does not hold
 * yet, the clock expiry is judged at, and the proposals to the policy's one writer.
 */
final class AutomaticBans {

    /** The author of automatic bans (published as {@link ThrottleEngine#AUTOMATIC_BAN_AUTHOR}). */
    static final String AUTHOR = "sluice";
    /** The most in force at once (published as {@link ThrottleEngine#MAX_AUTOMATIC_BANS}). */
    static final int MAX_IN_FORCE = 10_000;
    /** The engine's logger, by name: the stage never reaches back up to the façade that assembles it. */
    private static final System.Logger LOG = System.getLogger("io.sluice.engine.ThrottleEngine");

    private final EscalationTracker escalations = new EscalationTracker();
    /** The robots.txt rule's counts, apart: a rule with the same numbers as an escalation rule must not share them. */
    private final EscalationTracker robotsEscalations = new EscalationTracker();
    /** Automatic bans in force here and not yet in the policy. */
    private final AutomaticBanSet pendingBans = new AutomaticBanSet();
    /** The policy writer automatic bans are proposed to, or null (the engine alone: they stay in memory). */
    private volatile AutomaticBanProposals proposals;
    /** Automatic bans in the live policy, counted when it is installed (off the request path). */
    private volatile int installedAutomaticBans;
    /** Added to the engine's clock when judging a ban's expiry: 0 alone, Redis's clock in a cluster. */
    private volatile long banClockOffsetMillis;
    private final AtomicLong automaticBansDropped = new AtomicLong();
    private final AtomicLong automaticBansUnwritten = new AtomicLong();

    AutomaticBans(Policy initial) {
        this.installedAutomaticBans = countAutomatic(initial);
    }

    void proposeTo(AutomaticBanProposals writer) {
        this.proposals = writer;
    }

    void judgeExpiryWithOffset(long millis) {
        this.banClockOffsetMillis = millis;
    }

    /** {@code nowMillis} of the engine's clock on the ban clock. */
    long banMillis(long nowMillis) {
        return nowMillis + banClockOffsetMillis;
    }

    List<Ban> pending(long nowMillis) {
        return pendingBans.inForce(banMillis(nowMillis));
    }

    long dropped() {
        return automaticBansDropped.get();
    }

    long unwritten() {
        return automaticBansUnwritten.get();
    }

    /**
     * Rule 2: the policy's ban of the client or its address, else an automatic ban in force here that the policy
     * does not hold yet; expiry judged at the ban clock.
     */
    Ban banned(CompiledPolicy compiled, IpAddress address, ClientKey key, long now) {
        long banNow = banMillis(now);
        Ban ban = compiled.findBan(address, key, banNow);
        return ban != null ? ban : pendingBans.find(address, key, banNow);
    }

    /** Whole seconds until {@code ban} ends at the ban clock, or -1 when it never does. */
    long retryAfterSeconds(Ban ban, long now) {
        return ban.expiresAt() == null ? -1
                : Outcomes.ceilSeconds(ban.expiresAt().toEpochMilli() - banMillis(now));
    }

    /**
     * A refusal by a rule the client brought on itself (spacing, hit stacks, concurrency): counted towards the
     * policy's escalation rules, which may ban it.
     */
    void offended(CompiledPolicy compiled, ClientKey key, ClientKey addressKey, long now) {
        Escalation[] rules = compiled.escalation();
        for (Escalation rule : rules) {
            boolean byAddress = rule.scope() == Escalation.Scope.ADDRESS;
            long banSeconds = escalations.refused(rule, byAddress ? addressKey : key, now);
            escalate(compiled, rule, key, addressKey, banSeconds, now, "escalation", "refusals");
        }
    }

    /** Bans the client or its address ({@code rule}'s scope) when its count ran over: {@code banSeconds > 0}. */
    private void escalate(CompiledPolicy compiled, Escalation rule, ClientKey key, ClientKey addressKey,
                          long banSeconds, long now, String why, String counted) {
        if (banSeconds <= 0) {
            return;
        }
        boolean byAddress = rule.scope() == Escalation.Scope.ADDRESS;
        String value = byAddress ? addressBanValue(addressKey, compiled.policy().perAddress())
                : key.ip() + "|" + key.userAgent();
        banAutomatically(byAddress ? addressKey : key, value, banSeconds, now,
                why + ": " + rule.refusals() + " " + counted + " within " + rule.withinSeconds() + " s ("
                        + rule.scope().name().toLowerCase(Locale.ROOT) + "), banned for " + banSeconds + " s");
    }

    /**
     * A request to a path the crawler's robots.txt group disallows, under the policy's {@code agents.robots.escalation}
     * rule: the client (or its address) that breaks it {@code refusals} times within {@code withinSeconds} is banned.
     */
    void brokeRobots(CompiledPolicy compiled, Escalation rule, ClientKey key, ClientKey addressKey, long now) {
        boolean byAddress = rule.scope() == Escalation.Scope.ADDRESS;
        long banSeconds = robotsEscalations.refused(rule, byAddress ? addressKey : key, now);
        escalate(compiled, rule, key, addressKey, banSeconds, now, "robots.txt", "disallowed fetches");
    }

    /** The trap path was fetched and the policy bans for it: the client's address is banned for {@code seconds}. */
    void trapped(CompiledPolicy compiled, ClientKey addressKey, int seconds, long now) {
        banAutomatically(addressKey, addressBanValue(addressKey, compiled.policy().perAddress()), seconds, now,
                "trap: fetched the trap path that robots.txt disallows, banned for " + seconds + " s");
    }

    /** The {@code ip} ban value of an address aggregate: the address, or the prefix when it is shorter. */
    static String addressBanValue(ClientKey addressKey, Policy.PerAddress perAddress) {
        IpAddress masked = addressKey.address();
        int prefix = masked.isIpv4() ? perAddress.ipv4Prefix() : perAddress.ipv6Prefix();
        return prefix == masked.bitLength() ? masked.toString() : masked + "/" + prefix;
    }

    /**
     * An escalation ban: an ordinary ban by {@link ThrottleEngine#AUTOMATIC_BAN_AUTHOR}, the rule in its reason, with
     * an expiry. It is in force at once (the pending set, a hash lookup in rule 2), then proposed to the policy
     * writer, which writes, audits and installs it off this thread. No I/O, no compile, no lock held by another
     * thread here.
     *
     * @param target the client's key, or its address's ({@link ClientKey#ofAddress})
     */
    private void banAutomatically(ClientKey target, String value, long seconds, long now, String reason) {
        if (installedAutomaticBans + pendingBans.size() >= MAX_IN_FORCE) {
            long dropped = automaticBansDropped.incrementAndGet();
            if (Long.bitCount(dropped) == 1) { // the 1st, 2nd, 4th, 8th...: said, never a line per request
                LOG.log(System.Logger.Level.WARNING, "escalation: " + MAX_IN_FORCE
                        + " automatic bans in force; " + value + " is refused by its rule but not banned (" + dropped
                        + " so far)");
            }
            return;
        }
        long banNow = banMillis(now);
        Instant at = Instant.ofEpochMilli(banNow);
        BanType type = target.isAggregate() ? BanType.IP : BanType.CLIENT;
        Ban ban = new Ban("auto-" + UUID.randomUUID(), type, value, reason, AUTHOR, at, at.plusSeconds(seconds));
        if (!pendingBans.add(target, ban, banNow + seconds * 1000L)) {
            return; // banned a moment ago by another thread
        }
        AutomaticBanProposals writer = proposals;
        if (writer != null && !writer.propose(ban)) {
            long unwritten = automaticBansUnwritten.incrementAndGet();
            if (Long.bitCount(unwritten) == 1) {
                LOG.log(System.Logger.Level.WARNING, "escalation: the policy writer's queue is full; " + value
                        + " is banned in memory until " + ban.expiresAt() + " but not written (" + unwritten
                        + " so far)");
            }
        }
    }

    /** A version was installed: counts its automatic bans, and settles the pending ones it holds. */
    void installed(Policy policy, long now) {
        installedAutomaticBans = countAutomatic(policy);
        pendingBans.settle(policy, banMillis(now));
    }

    private static int countAutomatic(Policy policy) {
        int count = 0;
        for (Ban ban : policy.bans()) {
            if (AUTHOR.equals(ban.author())) {
                count++;
            }
        }
        return count;
    }
}
