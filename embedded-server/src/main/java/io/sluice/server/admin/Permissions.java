package io.sluice.server.admin;

import io.sluice.server.state.Role;

/**
 * Whether a caller's role opens a call, given the role its route declares for the method ({@link Access}); the
 * one place this is decided. {@code admin}: everything. {@code read}: what is declared {@code read}, every
 * {@code GET} but the tokens (a read token changes nothing: {@link Access} refuses {@code read} on any other
 * method). {@code worker}: what is declared {@code worker}, the permit and feedback calls.
 */
final class Permissions {

    private Permissions() {
    }

    static boolean allows(Role caller, Role declared) {
        return caller == Role.ADMIN || caller == declared;
    }
}
