package io.sluice.engine.governor;

/**
 * A shared ledger's answer to a permit for any of several domains: which one it decided on, and that
 * domain's state after the call.
 *
 * @param index  the domain's place in the list asked about, from 0
 * @param answer the permit's answer for that domain, as {@link DomainLedger#acquire} gives it
 */
public record LedgerChoice(int index, LedgerAnswer answer) {
}
