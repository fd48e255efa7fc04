package io.sluice.engine.policy;

/**
 * One bad field of a policy.
 *
 * @param field   the JSON path of the field, e.g. {@code hitStack.maxHits} or {@code bans[2].value}
 * @param message what is wrong, in words an operator understands
 */
public record FieldError(String field, String message) {
}
