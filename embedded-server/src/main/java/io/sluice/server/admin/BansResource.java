package io.sluice.server.admin;

import io.sluice.engine.PolicyValidator;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.FieldError;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.Role;
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

        /**
         * The ban this asks for, made by {@code author} at {@code now}.
         *
         * @throws ApiError 400 naming every bad field, the ban's own rules (a valid address, a pattern within its
         *                  budget) included; whether it fits among the other bans is checked when it is applied
         */
        Ban toBan(Instant now, String author) {
            List<FieldError> errors = new ArrayList<>();
            BanType type = null;
            if (type() == null) {
                errors.add(new FieldError("type", "is required: ip, agent or client"));
            } else {
                try {
                    type = BanType.valueOf(type().toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    errors.add(new FieldError("type", "must be ip, agent or client, not '" + type() + "'"));
                }
            }
            if (value() == null || value().isBlank()) {
                errors.add(new FieldError("value", "is required"));
            }
            // Bounded so that now + duration is always a time every clock sum handles (2^63-1 was a 500).
            if (durationSeconds() != null
                    && (durationSeconds() <= 0 || durationSeconds() > PolicyValidator.MAX_BAN_DURATION_SECONDS)) {
                errors.add(new FieldError("durationSeconds", "must be between 1 and "
                        + PolicyValidator.MAX_BAN_DURATION_SECONDS + " seconds (ten years), or left out for a "
                        + "permanent ban; was " + durationSeconds()));
            }
            if (!errors.isEmpty()) {
                throw new ApiError(400, errors);
            }
            Ban ban = new Ban(UUID.randomUUID().toString(), type, value().trim(), reason() == null ? "" : reason(),
                    author, now, durationSeconds() == null ? null : now.plusSeconds(durationSeconds()));
            // The ban's own problems named as this call's fields (value, not bans[17].value).
            List<FieldError> own = PolicyValidator.validateBan(ban);
            if (!own.isEmpty()) {
                throw new ApiError(400, own);
            }
            return ban;
        }
    }

    BansResource(PolicyChanges changes, InstantSource clock) {
        super(Access.of("GET", Role.READ).and("POST", Role.ADMIN));
        this.changes = changes;
        this.clock = clock;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        if ("GET".equals(method)) {
            return ApiMessages.json(response, callback, 200, changes.live().bans());
        }
        BanRequest body = ApiMessages.read(request, BanRequest.class);
        Caller caller = Caller.of(request);
        Ban ban = body.toBan(clock.instant(), caller.displayName());
        changes.apply(caller.author(), "ban.add", "banned " + body.type() + " " + ban.value()
                + (ban.expiresAt() == null ? "" : " until " + ban.expiresAt()), p -> {
                    List<Ban> bans = new ArrayList<>(p.bans());
                    bans.add(ban);
                    return p.withBans(bans);
                }, p -> p.bans().contains(ban) ? ban : null);
        return ApiMessages.json(response, callback, 201, ban);
    }
}
