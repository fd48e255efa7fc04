package io.sluice.server.admin;

import io.sluice.engine.policy.FieldError;
import java.util.List;

/** A call the API refuses, with its status and the fields at fault; nothing was changed. */
class ApiError extends RuntimeException {
    final int status;
    final List<FieldError> errors;

    ApiError(int status, List<FieldError> errors) {
        super(errors.toString(), null, false, false);
        this.status = status;
        this.errors = errors;
    }

    static ApiError field(String name, String message) {
        return new ApiError(400, List.of(new FieldError(name, message)));
    }
}
