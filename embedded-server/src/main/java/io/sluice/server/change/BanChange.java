package io.sluice.server.change;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.server.state.AuditEntry;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.policy.PolicyJson;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An automatic change of the policy: bans escalation made, and expired automatic bans taken out. Small whatever the
 * policy's size: what a batch of automatic bans writes to the change log of a cluster, and what a node remembers to
 * merge an operator's edit made from a version before it ({@link PolicyHistory}).
 *
 * @param added   bans to add (escalation)
 * @param removed bans to take out (expired)
 */
public record BanChange(List<Ban> added, List<Ban> removed) {

    public BanChange {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
    }

    public boolean isEmpty() {
        return added.isEmpty() && removed.isEmpty();
    }

    /** {@code policy} with the change made: the removed taken out by id, the added appended unless held already. */
    public Policy applyTo(Policy policy) {
        Set<String> gone = new HashSet<>();
        removed.forEach(ban -> gone.add(ban.id()));
        List<Ban> bans = new ArrayList<>(policy.bans().size() + added.size());
        Set<String> held = new HashSet<>();
        for (Ban ban : policy.bans()) {
            if (!gone.contains(ban.id())) {
                bans.add(ban);
                held.add(ban.id());
            }
        }
        for (Ban ban : added) {
            if (held.add(ban.id())) {
                bans.add(ban);
            }
        }
        return policy.withBans(bans);
    }

    /** {@code policy} as it was before the change: the added taken out, the removed put back. */
    public Policy undo(Policy policy) {
        return new BanChange(removed, added).applyTo(policy);
    }

    /** One audit entry per ban, by {@link ThrottleEngine#AUTOMATIC_BAN_AUTHOR}, as every node records them. */
    public List<AuditEntry> auditEntries(Instant at) {
        List<AuditEntry> entries = new ArrayList<>(added.size() + removed.size());
        for (Ban ban : added) {
            entries.add(new AuditEntry(at, ThrottleEngine.AUTOMATIC_BAN_AUTHOR, "ban.add", "banned "
                    + describe(ban) + " until " + ban.expiresAt() + " (" + ban.reason() + ")", null, tree(ban)));
        }
        for (Ban ban : removed) {
            entries.add(new AuditEntry(at, ThrottleEngine.AUTOMATIC_BAN_AUTHOR, "ban.expire", "expired "
                    + describe(ban), tree(ban), null));
        }
        return entries;
    }

    private static String describe(Ban ban) {
        return ban.type().name().toLowerCase(Locale.ROOT) + " " + ban.value();
    }

    private static JsonNode tree(Ban ban) {
        return PolicyJson.mapper().valueToTree(ban);
    }
}
