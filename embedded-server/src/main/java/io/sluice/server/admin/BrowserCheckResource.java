package io.sluice.server.admin;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.engine.net.AsnTable;
import io.sluice.engine.net.Cidr;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /api/v1/browser-check}: the operator's two switches of the browser check, each one action, audited as
 * such: the mode for the whole site ({@code {"mode": "always"}}), or one network challenged whenever the check is not
 * off ({@code {"network": "203.0.113.0/24", "challenge": true}}; {@code false} undoes it), or one autonomous system
 * so ({@code {"asn": 16509, "challenge": true}}: the policy's {@code alwaysChallengeAsns}). Answers the check as it
 * stands after the change.
 */
final class BrowserCheckResource extends Resource {
    private final PolicyChanges changes;

    /** What the call accepts: a mode, or a network or an AS and whether to challenge it. */
    record Switch(String mode, String network, Long asn, Boolean challenge) {
        @JsonCreator
        static Switch of(@JsonProperty("mode") String mode, @JsonProperty("network") String network,
                         @JsonProperty("asn") Long asn, @JsonProperty("challenge") Boolean challenge) {
            return new Switch(mode, network, asn, challenge);
        }
    }

    BrowserCheckResource(PolicyChanges changes) {
        super(Access.of("POST", Role.ADMIN));
        this.changes = changes;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        Switch asked = ApiMessages.parse(ApiMessages.body(request), Switch.class);
        int given = (asked.mode() == null ? 0 : 1) + (asked.network() == null ? 0 : 1) + (asked.asn() == null ? 0 : 1);
        if (given != 1) {
            throw ApiError.field("mode", "give either a mode (off, adaptive, always), or a network or an asn and "
                    + "challenge");
        }
        Policy after;
        if (asked.mode() != null) {
            BrowserCheck.Mode mode = mode(asked.mode());
            after = changes.apply(Caller.of(request).author(), "browser-check.mode",
                    "browser check " + mode.name().toLowerCase(Locale.ROOT),
                    p -> p.withBrowserCheck(p.browserCheck().withMode(mode)), Policy::browserCheck);
        } else if (asked.asn() != null) {
            after = system(asked, request);
        } else {
            if (asked.challenge() == null) {
                throw ApiError.field("challenge", "must be true (challenge this network) or false (stop)");
            }
            String network = cidr(asked.network());
            boolean challenge = asked.challenge();
            after = changes.apply(Caller.of(request).author(), "browser-check.network",
                    (challenge ? "challenge " : "stop challenging ") + network,
                    p -> p.withBrowserCheck(p.browserCheck().withAlwaysChallenge(
                            toggled(p.browserCheck().alwaysChallenge(), network, challenge))),
                    Policy::browserCheck);
        }
        return ApiMessages.json(response, callback, 200, after.browserCheck());
    }

    /** One AS challenged whenever the check is not off, or no longer: the policy's {@code alwaysChallengeAsns}. */
    private Policy system(Switch asked, Request request) {
        if (asked.challenge() == null) {
            throw ApiError.field("challenge", "must be true (challenge this autonomous system) or false (stop)");
        }
        long asn = asked.asn();
        if (asn < 1 || asn > AsnTable.MAX_ASN) {
            throw ApiError.field("asn", "must be an AS number from 1 to " + AsnTable.MAX_ASN + ", was " + asn);
        }
        boolean challenge = asked.challenge();
        return changes.apply(Caller.of(request).author(), "browser-check.asn",
                (challenge ? "challenge AS" : "stop challenging AS") + asn,
                p -> {
                    List<Long> next = new ArrayList<>(p.browserCheck().alwaysChallengeAsns());
                    next.remove(Long.valueOf(asn));
                    if (challenge) {
                        next.add(asn);
                    }
                    return p.withBrowserCheck(p.browserCheck().withAlwaysChallengeAsns(next));
                }, Policy::browserCheck);
    }

    private static BrowserCheck.Mode mode(String text) {
        try {
            return BrowserCheck.Mode.valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiError.field("mode", "must be off, adaptive or always, not '" + text + "'");
        }
    }

    /** The network in its canonical form, so a second switch of the same network finds the first. */
    private static String cidr(String text) {
        try {
            return Cidr.parse(text.strip()).toString();
        } catch (IllegalArgumentException e) {
            throw ApiError.field("network", e.getMessage());
        }
    }

    private static List<String> toggled(List<String> networks, String network, boolean challenge) {
        List<String> next = new ArrayList<>(networks);
        next.removeIf(existing -> canonical(existing).equals(network));
        if (challenge) {
            next.add(network);
        }
        return next;
    }

    private static String canonical(String text) {
        try {
            return Cidr.parse(text.strip()).toString();
        } catch (IllegalArgumentException e) {
            return text;
        }
    }
}
