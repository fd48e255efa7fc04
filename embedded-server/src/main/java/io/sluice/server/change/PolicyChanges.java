package io.sluice.server.change;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.PolicyValidator;
import io.sluice.engine.PolicyWriter;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.server.state.AuditEntry;
import java.io.IOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The one place a policy changes, in this order: <b>validate</b> (every field; a bad change changes
 * nothing), <b>persist</b> (the {@link PolicyStore} records the new policy and its audit entry durably),
 * <b>swap</b> (the engine's next decision sees it), and the answer carries the audited result. A change
 * that cannot be persisted is never swapped in, so what is live is always what is on disk and in the
 * audit log.
 *
 * <p>Changes are serialised by one lock: each is computed from the live policy at the moment it runs, so
 * a ban and a pause made together both land. A whole-policy edit made from an older version (the limits
 * form, open while someone else bans a client) is merged field by field with what changed meanwhile
 * ({@link PolicyMerge}): only a field both changed is a conflict. A store shared by several nodes may say
 * that its version moved on ({@link StaleVersionException}): the change is computed again from the newer
 * policy, once this node has it, like a change made a moment later.
 *
 * <p>It is the policy's only writer: the engine makes no version of its own. Automatic bans are proposals
 * ({@link AutomaticBanWriter} batches them off the request path) that land here as one change per batch
 * ({@link #applyAutomatic}), under the same lock as an operator's edit, so neither overtakes the other between
 * reading the live policy, writing it and swapping it in.
 */
public final class PolicyChanges {
    /**
     * Tries of one change when the store says its version moved on (another node's change got in first). Every
     * lost try is another change that landed, so the cluster always makes progress; the bound is for a node that
     * cannot catch up at all, not for contention: three tries let a ban made while each other node made three
     * changes at once fail with a 412 nobody asked for (no If-Match).
     */
    static final int ATTEMPTS = 20;
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private final ThrottleEngine engine;
    /** The engine's one writer: held here, so every change is validated, recorded and audited before it is in force. */
    private final PolicyWriter writer;
    private final PolicyStore store;
    private final InstantSource clock;
    private final Object lock = new Object();

    /**
     * Who makes a change.
     *
     * @param who      the token's name
     * @param operator the person named by the caller, or null
     */
    public record Author(String who, String operator) {
    }

    /** @param writer the engine's one policy writer ({@link ThrottleEngine#claimPolicyWriter()}) */
    public PolicyChanges(PolicyWriter writer, PolicyStore store, InstantSource clock) {
        this.writer = writer;
        this.engine = writer.engine();
        this.store = store;
        this.clock = clock;
    }

    /** The live policy. */
    public Policy live() {
        return engine.policy();
    }

    /**
     * Applies {@code change} to the live policy.
     *
     * @param audited the part of the policy the audit entry records before and after (null: none)
     * @throws PolicyValidationException naming every bad field; nothing changed
     * @throws ChangeNotSavedException   when it could not be made durable; nothing changed
     */
    public Policy apply(Author author, String action, String detail, UnaryOperator<Policy> change,
                        Function<Policy, Object> audited) {
        return applyIfChanged(author, action, detail, change, audited, false).orElseThrow();
    }

    /**
     * {@link #apply} unless {@code change} leaves the live policy as it is: then nothing is recorded and the
     * result is empty. For changes proposed again and again until they land (the engine's automatic bans).
     */
    public Optional<Policy> applyIfChanged(Author author, String action, String detail, UnaryOperator<Policy> change,
                                           Function<Policy, Object> audited) {
        return applyIfChanged(author, action, detail, change, audited, true);
    }

    private Optional<Policy> applyIfChanged(Author author, String action, String detail, UnaryOperator<Policy> change,
                                            Function<Policy, Object> audited, boolean skipUnchanged) {
        synchronized (lock) {
            for (int attempt = 1; ; attempt++) {
                try {
                    Policy live = engine.policy();
                    Policy changed = change.apply(live);
                    if (skipUnchanged && changed.equals(live)) {
                        return Optional.empty();
                    }
                    Policy next = changed.withVersion(live.version() + 1);
                    return Optional.of(install(author, action, detail, live, next, part(audited, live),
                            part(audited, next)));
                } catch (StaleVersionException e) {
                    if (attempt == ATTEMPTS) {
                        throw notCaughtUp(e);
                    }
                }
            }
        }
    }

    /**
     * An edit of the whole policy computed from the live one, recorded as the admin API's {@code PUT /policy} records
     * it ({@code policy.replace}, the fields that changed, before and after): for code that holds the server rather
     * than a token (an embedding site, a test, a benchmark), which changes the policy as an operator does.
     *
     * @throws PolicyValidationException naming every bad field; nothing changed
     * @throws ChangeNotSavedException   when it could not be made durable; nothing changed
     */
    public Policy edit(Author author, UnaryOperator<Policy> change) {
        synchronized (lock) {
            Policy live = engine.policy();
            return replace(author, live.version(), change.apply(live));
        }
    }

    /**
     * Makes a batch of automatic changes as one version: escalation's bans (a ban whose client or address another
     * ban of escalation already holds is left out, and so is any beyond {@link ThrottleEngine#MAX_AUTOMATIC_BANS})
     * and the removal of expired ones still in the policy; one audit entry per ban, written with the policy in one
     * write. Off the request path, on the {@link AutomaticBanWriter}'s thread.
     *
     * @return what was made (empty when nothing was left to change)
     * @throws ChangeNotSavedException when it could not be made durable; nothing changed
     */
    public BanChange applyAutomatic(List<Ban> proposed, List<Ban> expired) {
        synchronized (lock) {
            Policy live = engine.policy();
            Instant now = engine.banClock();
            Set<String> ids = new HashSet<>();
            Set<String> held = new HashSet<>(); // clients and addresses an automatic ban in force holds
            int automatic = 0;
            for (Ban ban : live.bans()) {
                ids.add(ban.id());
                if (ThrottleEngine.AUTOMATIC_BAN_AUTHOR.equals(ban.author())) {
                    automatic++;
                    if (ban.activeAt(now)) {
                        held.add(ban.type() + "|" + ban.value());
                    }
                }
            }
            List<Ban> removed = expired.stream().filter(ban -> ids.contains(ban.id())).toList();
            automatic -= removed.size();
            List<Ban> added = new ArrayList<>();
            for (Ban ban : proposed) {
                if (automatic < ThrottleEngine.MAX_AUTOMATIC_BANS && held.add(ban.type() + "|" + ban.value())) {
                    added.add(ban);
                    automatic++;
                }
            }
            BanChange change = new BanChange(added, removed);
            if (change.isEmpty()) {
                return change;
            }
            Policy next = change.applyTo(live).withVersion(live.version() + 1);
            List<FieldError> errors = PolicyValidator.validate(next);
            if (!errors.isEmpty()) {
                throw new PolicyValidationException(errors);
            }
            try {
                store.commitAutomatic(live, next, change, change.auditEntries(clock.instant()));
            } catch (IOException e) {
                throw new ChangeNotSavedException("automatic bans not recorded (" + e.getMessage() + "); the live "
                        + "policy is still version " + live.version(), e);
            }
            if (!store.installs()) {
                writer.replace(live.version(), next);
            }
            return change;
        }
    }

    /**
     * Replaces the policy with an edit made from version {@code basedOn}. If the policy moved on since,
     * the edit's changes are laid over the live policy unless they touch a field that moved too.
     *
     * @throws PolicyConflict            a field both changed, or {@code basedOn} is not known; nothing changed
     * @throws PolicyValidationException naming every bad field; nothing changed
     * @throws ChangeNotSavedException   when it could not be made durable; nothing changed
     */
    public Policy replace(Author author, long basedOn, Policy proposed) {
        return replace(author, basedOn, proposed, "policy.replace", "");
    }

    /**
     * {@link #replace(Author, long, Policy)} recorded under its own action, e.g. a shadow policy promoted.
     *
     * @param detailPrefix what the audit entry's detail starts with
     */
    public Policy replace(Author author, long basedOn, Policy proposed, String action, String detailPrefix) {
        synchronized (lock) {
            for (int attempt = 1; ; attempt++) {
                try {
                    return replaceOnce(author, basedOn, proposed, action, detailPrefix);
                } catch (StaleVersionException e) {
                    if (attempt == ATTEMPTS) {
                        throw notCaughtUp(e);
                    }
                }
            }
        }
    }

    private Policy replaceOnce(Author author, long basedOn, Policy proposed, String action, String detailPrefix)
            throws StaleVersionException {
        if (basedOn > engine.policy().version()) {
            store.catchUp(basedOn); // read on another node of the cluster, which had this version first
        }
        Policy live = engine.policy();
        JsonNode ours = tree(proposed.withVersion(basedOn));
        JsonNode result = ours;
        if (basedOn != live.version()) {
            Policy base = basedOn > live.version() ? null : store.version(basedOn).orElse(null);
            if (base == null) {
                throw new PolicyConflict("the policy changed since version " + basedOn
                        + ", which is no longer known; reload and apply again", live.version(), List.of());
            }
            PolicyMerge.Result merged = PolicyMerge.merge(tree(base), ours, tree(live.withVersion(basedOn)));
            if (!merged.conflicts().isEmpty()) {
                throw new PolicyConflict("the policy changed since version " + basedOn + " in the fields you "
                        + "edited (" + String.join(", ", merged.conflicts()) + "); reload and apply again",
                        live.version(), merged.conflicts());
            }
            result = merged.merged();
        }
        Policy next = fromTree(result).withVersion(live.version() + 1);
        List<String> changed = PolicyMerge.changedFields(tree(live.withVersion(0)), tree(next.withVersion(0)));
        String detail = detailPrefix + "policy version " + live.version() + " -> " + next.version()
                + (changed.isEmpty() ? " (no field changed)" : ": " + String.join(", ", changed))
                + (basedOn == live.version() ? "" : " (edited from version " + basedOn + ", merged)");
        return install(author, action, detail, live, next, tree(live), tree(next));
    }

    /** The store kept moving under this node's changes: the caller reloads and tries again. */
    private static PolicyConflict notCaughtUp(StaleVersionException e) {
        return new PolicyConflict("the policy is at version " + e.currentVersion() + " elsewhere and this node has "
                + "not caught up with it yet (" + e.getMessage() + "); reload and apply again", e.currentVersion(),
                List.of());
    }

    /**
     * Validates, persists and swaps {@code next} in. A store that installs what it records (a cluster's:
     * this node takes its own change as every node does, possibly before the store returns) leaves nothing to
     * swap, or only the adoption of that exact version.
     *
     * @throws StaleVersionException the store's version moved on: compute the change again
     */
    private Policy install(Author author, String action, String detail, Policy live, Policy next, JsonNode before,
                           JsonNode after) throws StaleVersionException {
        List<FieldError> errors = PolicyValidator.validate(next);
        if (!errors.isEmpty()) {
            throw new PolicyValidationException(errors);
        }
        AuditEntry entry = new AuditEntry(0, clock.instant(), author.who(), author.operator(), action, detail,
                before, after);
        try {
            store.commit(live, next, entry);
        } catch (StaleVersionException e) {
            throw e;
        } catch (IOException e) {
            throw new ChangeNotSavedException("not applied: the change could not be saved (" + e.getMessage()
                    + "); the live policy is still version " + live.version(), e);
        }
        if (store.installs()) {
            writer.adopt(next); // false when already in force: this node heard its own change first
            return next;
        }
        return writer.replace(live.version(), next);
    }

    private static JsonNode part(Function<Policy, Object> audited, Policy policy) {
        Object value = audited == null ? null : audited.apply(policy);
        return value == null ? null : JSON.valueToTree(value);
    }

    private static JsonNode tree(Policy policy) {
        ObjectNode tree = JSON.valueToTree(policy);
        return tree;
    }

    private static Policy fromTree(JsonNode tree) {
        try {
            return JSON.treeToValue(tree, Policy.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a merge of two valid policies is a policy document: " + e.getMessage(),
                    e);
        }
    }
}
