package io.sluice.engine.whatif;

import com.fasterxml.jackson.annotation.JsonValue;
import io.sluice.engine.Decision;
import io.sluice.engine.Reason;
import java.util.List;

/**
 * What happened to one request, in the access log's words: {@code ADMIT}, {@code DELAYED} (admitted after
 * a wait) or {@code REFUSE:<REASON>}. One instance per outcome, so they compare by identity and index
 * arrays.
 */
public final class Outcome {
    private static final Reason[] REASONS = Reason.values();
    public static final Outcome ADMIT = new Outcome("ADMIT", null, 0);
    public static final Outcome DELAYED = new Outcome("DELAYED", null, 1);
    private static final Outcome[] ALL = new Outcome[2 + REASONS.length];

    static {
        ALL[0] = ADMIT;
        ALL[1] = DELAYED;
        for (Reason reason : REASONS) {
            ALL[2 + reason.ordinal()] = new Outcome("REFUSE:" + reason.name(), reason, 2 + reason.ordinal());
        }
    }

    /** How many outcomes there are: the length of an array indexed by {@link #index()}. */
    static final int COUNT = ALL.length;

    private final String label;
    private final Reason reason;
    private final int index;

    private Outcome(String label, Reason reason, int index) {
        this.label = label;
        this.reason = reason;
        this.index = index;
    }

    public static Outcome refused(Reason reason) {
        return ALL[2 + reason.ordinal()];
    }

    /**
     * A final decision's outcome.
     *
     * @param waited the request was admitted after a wait (load deferral or progressive delay)
     * @throws IllegalArgumentException for a {@link Decision.Wait}, which is not final
     */
    public static Outcome of(Decision decision, boolean waited) {
        if (decision instanceof Decision.Admit) {
            return waited ? DELAYED : ADMIT;
        }
        if (decision instanceof Decision.Refuse refuse) {
            return refused(refuse.reason());
        }
        throw new IllegalArgumentException("a wait has no outcome yet");
    }

    /** The outcome an access log names ({@code ADMIT}, {@code DELAYED}, {@code REFUSE:HIT_STACK}), or null. */
    public static Outcome parse(String label) {
        for (Outcome outcome : ALL) {
            if (outcome.label.equals(label)) {
                return outcome;
            }
        }
        return null;
    }

    static Outcome byIndex(int index) {
        return ALL[index];
    }

    /** Every outcome, admissions first, then refusals in rule order. */
    public static List<Outcome> all() {
        return List.of(ALL);
    }

    @JsonValue
    public String label() {
        return label;
    }

    /** The refusal's reason, or null when the request was served. */
    public Reason reason() {
        return reason;
    }

    public boolean isRefusal() {
        return reason != null;
    }

    int index() {
        return index;
    }

    @Override
    public String toString() {
        return label;
    }
}
