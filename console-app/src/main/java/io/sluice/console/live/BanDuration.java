package io.sluice.console.live;

/** How long a ban from the heatmap lasts: what the operator picks, and what is sent. */
public enum BanDuration {
    ONE_HOUR("1 hour", 3_600L),
    TEN_MINUTES("10 minutes", 600L),
    ONE_DAY("1 day", 86_400L),
    PERMANENT("permanent", null);

    private final String label;
    private final Long seconds;

    BanDuration(String label, Long seconds) {
        this.label = label;
        this.seconds = seconds;
    }

    public String label() {
        return label;
    }

    /** The admin API's {@code durationSeconds}; null for a permanent ban. */
    public Long seconds() {
        return seconds;
    }

    @Override
    public String toString() {
        return label;
    }
}
