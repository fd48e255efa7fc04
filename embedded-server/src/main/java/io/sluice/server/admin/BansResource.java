package io.sluice.server.admin;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.FieldError;
import io.sluice.server.change.PolicyChanges;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code GET /api/v1/bans} lists the bans; {@code POST} adds one, in force from the next request. */
final class BansResource extends Resource {
    private final PolicyChanges changes;
    private final InstantSource clock;

    /** What {@code POST /api/v1/bans} accepts. */
    record BanRequest(String type, String value, String reason, Long durationSeconds) {
    }

    BansResource(PolicyChanges changes, InstantSource clock) {
        super("GET", "POST");
        this.changes = changes;
        this.clock = clock;
    }

    @Override
    boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        if ("GET".equals(method)) {
            return ApiMessages.json(response, callback, 200, changes.live().bans());
        }
        BanRequest body = ApiMessages.read(request, BanRequest.class);
        List<FieldError> errors = new ArrayList<>();
        BanType type = null;
        if (body.type() == null) {
            errors.add(new FieldError("type", "is required: ip, agent or client"));
        } else {
            try {
                type = BanType.valueOf(body.type().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("type", "must be ip, agent or client, not '" + body.type() + "'"));
            }
        }
        if (body.value() == null || body.value().isBlank()) {
            errors.add(new FieldError("value", "is required"));
        }
        if (body.durationSeconds() != null && body.durationSeconds() <= 0) {
            errors.add(new FieldError("durationSeconds", "must be positive, or left out for a permanent ban"));
        }
        if (!errors.isEmpty()) {
            throw new ApiError(400, errors);
        }
        Caller caller = Caller.of(request);
        Instant now = clock.instant();
        Ban ban = new Ban(UUID.randomUUID().toString(), type, body.value().trim(),
                body.reason() == null ? "" : body.reason(), caller.displayName(), now,
                body.durationSeconds() == null ? null : now.plus(Duration.ofSeconds(body.durationSeconds())));
        changes.apply(caller.author(), "ban.add", "banned " + body.type() + " " + ban.value()
                + (ban.expiresAt() == null ? "" : " until " + ban.expiresAt()), p -> {
                    List<Ban> bans = new ArrayList<>(p.bans());
                    bans.add(ban);
                    return p.withBans(bans);
                }, p -> p.bans().contains(ban) ? ban : null);
        return ApiMessages.json(response, callback, 201, ban);
    }
}
