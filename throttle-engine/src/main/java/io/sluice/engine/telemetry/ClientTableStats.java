package io.sluice.engine.telemetry;

/**
 * Pressure on the bounded client tables, so a spray is visible instead of silent.
 *
 * @param tracked  clients held now
 * @param capacity the most the table holds
 * @param evicted  clients evicted since start
 */
public record ClientTableStats(long tracked, long capacity, long evicted) {
}
