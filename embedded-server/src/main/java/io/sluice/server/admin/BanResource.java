package io.sluice.server.admin;

import io.sluice.engine.policy.Ban;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.Role;
import java.util.Locale;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code DELETE /api/v1/bans/{id}}: lifts a ban. */
final class BanResource extends Resource {
    private final PolicyChanges changes;

    BanResource(PolicyChanges changes) {
        super(Access.of("DELETE", Role.ADMIN));
        this.changes = changes;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        String id = pathParameter(request, "id");
        Ban existing = changes.live().bans().stream().filter(b -> b.id().equals(id)).findFirst().orElse(null);
        if (existing == null) {
            return ApiMessages.error(response, callback, 404, "no ban with id " + id);
        }
        changes.apply(Caller.of(request).author(), "ban.remove", "unbanned "
                + existing.type().name().toLowerCase(Locale.ROOT) + " " + existing.value(),
                p -> p.withBans(p.bans().stream().filter(b -> !b.id().equals(id)).toList()),
                p -> p.bans().contains(existing) ? existing : null);
        return ApiMessages.noContent(response, callback);
    }
}
