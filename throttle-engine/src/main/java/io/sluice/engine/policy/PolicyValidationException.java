package io.sluice.engine.policy;

import java.util.List;
import java.util.stream.Collectors;

/** A policy was rejected; nothing changed. Carries every bad field, not just the first. */
public final class PolicyValidationException extends RuntimeException {
    private final List<FieldError> errors;

    public PolicyValidationException(List<FieldError> errors) {
        super(errors.stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; ")));
        this.errors = List.copyOf(errors);
    }

    public List<FieldError> errors() {
        return errors;
    }
}
