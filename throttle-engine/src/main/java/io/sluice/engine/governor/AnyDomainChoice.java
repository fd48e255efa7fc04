package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A permit for any of several domains on this node (docs/manual/governor.md, "A permit for any of several
 * domains"): the domain whose slot came (or comes) first is granted, so with more workers than open slots grants
 * go round the domains, each at its own pace; a tie goes to the first named. The others count as wanted, as a
 * refused permit does: the workers are waiting for them too.
 */
final class AnyDomainChoice {
    private AnyDomainChoice() {
    }

    /**
     * The domains asked about, normalised, each once, in the worker's order.
     *
     * @throws IllegalArgumentException when the list is empty, longer than {@link CrawlGovernor#MAX_PERMIT_DOMAINS},
     *                                  or names something that is not a host name
     */
    static Set<String> names(List<String> domains) {
        if (domains == null || domains.isEmpty()) {
            throw new IllegalArgumentException("name at least one domain");
        }
        if (domains.size() > CrawlGovernor.MAX_PERMIT_DOMAINS) {
            throw new IllegalArgumentException("at most " + CrawlGovernor.MAX_PERMIT_DOMAINS
                    + " domains in one permit call, was " + domains.size());
        }
        Set<String> names = new LinkedHashSet<>();
        for (String domain : domains) {
            names.add(DomainNames.normalise(domain));
        }
        return names;
    }

    /**
     * The earliest ready of {@code states} gets the permit; one that loses its slot to another worker between
     * the look and the take (or whose breaker has no trial left) passes it to the next ready one. Refused, the
     * answer is the wait of the one that opens first.
     *
     * @param share  as {@link DomainState#acquire(long, GovernorPolicy, int, String)}
     * @param worker who asks, or null for a trusted in-process caller
     */
    static Permit choose(List<DomainState> states, long now, GovernorPolicy policy, int share, String worker) {
        List<DomainState> order = new ArrayList<>(states.size());
        List<Long> readyAt = new ArrayList<>(states.size());
        for (DomainState state : states) {
            long at = state.readyAt();
            int i = 0;
            while (i < order.size() && readyAt.get(i) <= at) {
                i++; // stable: a tie keeps the order the worker gave
            }
            order.add(i, state);
            readyAt.add(i, at);
        }
        Permit answer = null;
        DomainState granted = null;
        for (int i = 0; i < order.size(); i++) {
            if (answer != null && readyAt.get(i) > now) {
                break;
            }
            Permit permit = order.get(i).acquire(now, policy, share, worker);
            if (answer == null || permit.granted()) {
                answer = permit;
            }
            if (permit.granted()) {
                granted = order.get(i);
                break;
            }
        }
        othersWanted(states, granted, now);
        return answer;
    }

    /** Every domain asked about but {@code chosen} (null: none) is still wanted by the worker. */
    static void othersWanted(List<DomainState> states, DomainState chosen, long now) {
        for (DomainState state : states) {
            if (state != chosen) {
                state.wanted(now);
            }
        }
    }
}
