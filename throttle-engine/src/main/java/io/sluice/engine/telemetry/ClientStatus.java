package io.sluice.engine.telemetry;

/** How a client stands right now, for the heatmap's marks. */
public enum ClientStatus {
    /** Within its limits. */
    OK,
    /** Refused or delayed by a throttle in the last seconds. */
    LIMITED,
    /** Matched by a ban. */
    BANNED,
    /** Exempt through the allow-list. */
    ALLOWED
}
