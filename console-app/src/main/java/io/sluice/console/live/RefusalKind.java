package io.sluice.console.live;

import io.sluice.engine.Reason;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The refusal reasons as the rate chart groups them: what an operator would do about them differs by group
 * (a ban lifts, a pause resumes, a limit is raised, the upstream is slow), not within one.
 */
public enum RefusalKind {
    PAUSED(EnumSet.of(Reason.PAUSED)),
    BANNED(EnumSet.of(Reason.BANNED)),
    CRAWLER_SPACING(EnumSet.of(Reason.CRAWLER_SPACING, Reason.CRAWLERS_BUSY)),
    HIT_STACK(EnumSet.of(Reason.HIT_STACK, Reason.ROUTE_LIMIT, Reason.ADDRESS_HIT_STACK)),
    CONCURRENCY(EnumSet.of(Reason.CLIENT_CONCURRENCY, Reason.ADDRESS_CONCURRENCY)),
    LOAD(EnumSet.of(Reason.LOAD)),
    /** The browser check asked (the interstitial), or refused a claim without a pass. */
    BROWSER_CHECK(EnumSet.of(Reason.CHALLENGE, Reason.PASS_REQUIRED, Reason.NETWORK_BUDGET,
            Reason.NETWORK_CONCURRENCY)),
    /** An agent refused by its category's rule, or a client that fetched the trap path (the policy's agents). */
    AGENTS(EnumSet.of(Reason.CATEGORY, Reason.TRAP));

    private final Set<Reason> reasons;

    RefusalKind(Set<Reason> reasons) {
        this.reasons = reasons;
    }

    /** The group of a refusal reason; null for {@link Reason#DELAYED}, which is not a refusal. */
    public static RefusalKind of(Reason reason) {
        for (RefusalKind kind : values()) {
            if (kind.reasons.contains(reason)) {
                return kind;
            }
        }
        return null;
    }

    public Set<Reason> reasons() {
        return reasons;
    }

    /** The legend's words: "hit stack", "crawler spacing". */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
