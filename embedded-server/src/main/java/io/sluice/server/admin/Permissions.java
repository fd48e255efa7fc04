package io.sluice.server.admin;

import io.sluice.server.state.Role;

/**
 * What each role may call; the one place this is decided. {@code admin}: everything. {@code read}: every
 * {@code GET} but the token list (snapshot, stream, policy, bans, audit, domains, cluster, metrics: what
 * Prometheus and a read-only dashboard need). {@code worker}: the permit and feedback calls. A path added
 * later (by another room) is thus readable by {@code read} and changeable by {@code admin} only.
 */
final class Permissions {
    static final String TOKENS = "/api/v1/tokens";

    private Permissions() {
    }

    static boolean allows(Role role, String method, String path) {
        boolean workerCall = GovernorApi.isWorkerPath(path);
        return switch (role) {
            case ADMIN -> true;
            case WORKER -> workerCall;
            case READ -> !workerCall && ("GET".equals(method) || "HEAD".equals(method))
                    && !path.equals(TOKENS) && !path.startsWith(TOKENS + "/");
        };
    }
}
