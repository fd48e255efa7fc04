package io.sluice.engine;

import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.net.Cidr;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.policy.Policy;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.PatternSyntaxException;

/**
 * Checks a whole {@link Policy} and reports every bad field at once, with the JSON path of the field
 * ({@code hitStack.maxHits}, {@code bans[2].value}) and a sentence an operator understands. A policy
 * with no error can be compiled and installed; the engine installs nothing else.
 */
public final class PolicyValidator {

    /** The longest hit-stack window: the per-client ring keeps one bucket per second for 60 s. */
    public static final int MAX_WINDOW_SECONDS = 60;

    /** A crawl rate above this is a typo, not a politeness setting. */
    static final double MAX_DOMAIN_RATE = 1_000;

    private PolicyValidator() {
    }

    /** Every problem of {@code policy}; empty when it is valid. */
    public static List<FieldError> validate(Policy policy) {
        Errors errors = new Errors();
        if (policy == null) {
            errors.add("", "the policy is missing");
            return errors.list;
        }
        if (policy.version() < 0) {
            errors.add("version", "must not be negative");
        }
        Policy.HitStack hitStack = policy.hitStack();
        if (errors.required("hitStack", hitStack)) {
            errors.range("hitStack.windowSeconds", hitStack.windowSeconds(), 1, MAX_WINDOW_SECONDS, "seconds");
            errors.range("hitStack.maxHits", hitStack.maxHits(), 1, 1_000_000, "hits");
        }
        Policy.Crawlers crawlers = policy.crawlers();
        if (errors.required("crawlers", crawlers)) {
            errors.range("crawlers.perCrawlerSeconds", crawlers.perCrawlerSeconds(), 0, 86_400, "seconds");
            errors.range("crawlers.allCrawlersSeconds", crawlers.allCrawlersSeconds(), 0, 3_600, "seconds");
        }
        Policy.Load load = policy.load();
        if (errors.required("load", load)) {
            errors.range("load.maxActive", load.maxActive(), 1, 1_000_000, "requests");
            errors.range("load.maxWaiting", load.maxWaiting(), 0, 1_000_000, "requests");
            errors.range("load.deferMillis", load.deferMillis(), 1, 60_000, "milliseconds");
        }
        Policy.PerClient perClient = policy.perClient();
        if (errors.required("perClient", perClient)) {
            errors.range("perClient.maxConcurrent", perClient.maxConcurrent(), 1, 100_000, "requests");
        }
        for (Map.Entry<RequestClass, Policy.ProgressiveDelay> entry : policy.progressiveDelay().entrySet()) {
            String path = "progressiveDelay." + entry.getKey();
            Policy.ProgressiveDelay delay = entry.getValue();
            if (errors.required(path, delay)) {
                errors.range(path + ".softHits", delay.softHits(), 0, 1_000_000, "hits");
                errors.range(path + ".delayMillisPerHit", delay.delayMillisPerHit(), 1, 60_000, "milliseconds");
                errors.range(path + ".maxDelayMillis", delay.maxDelayMillis(), 1, 60_000, "milliseconds");
            }
        }
        for (int i = 0; i < policy.pause().classes().size(); i++) {
            errors.required("pause.classes[" + i + "]", policy.pause().classes().get(i));
        }
        validateBans(policy.bans(), errors);
        validateAllow(policy.allow(), errors);
        for (int i = 0; i < policy.trustedProxies().size(); i++) {
            errors.cidr("trustedProxies[" + i + "]", policy.trustedProxies().get(i));
        }
        Policy.Classification classification = policy.classification();
        if (errors.required("classification", classification)) {
            for (int i = 0; i < classification.crawlerTags().size(); i++) {
                errors.text("classification.crawlerTags[" + i + "]", classification.crawlerTags().get(i));
            }
        }
        Policy.Refusal refusal = policy.refusal();
        if (errors.required("refusal", refusal)) {
            errors.range("refusal.retryAfterSeconds", refusal.retryAfterSeconds(), 0, 86_400, "seconds");
            if (refusal.infoUrl() != null && !isWebUrl(refusal.infoUrl())) {
                errors.add("refusal.infoUrl", "must be an absolute http:// or https:// URL, was '"
                        + refusal.infoUrl() + "'");
            }
        }
        validateGovernor(policy.governor(), errors);
        return errors.list;
    }

    private static void validateGovernor(GovernorPolicy governor, Errors errors) {
        errors.range("governor.minRate", governor.minRate(), 0.001, MAX_DOMAIN_RATE, "requests per second");
        errors.range("governor.maxRate", governor.maxRate(), 0.001, MAX_DOMAIN_RATE, "requests per second");
        if (governor.minRate() > governor.maxRate()) {
            errors.add("governor.maxRate", "must not be below governor.minRate (" + governor.minRate() + ")");
        }
        errors.range("governor.initialRate", governor.initialRate(), governor.minRate(), governor.maxRate(),
                "requests per second (minRate to maxRate)");
        errors.range("governor.increasePerSecond", governor.increasePerSecond(), 0, MAX_DOMAIN_RATE,
                "requests per second per second");
        if (!(governor.decreaseFactor() > 0 && governor.decreaseFactor() < 1)) {
            errors.add("governor.decreaseFactor", "must be above 0 and below 1, was " + governor.decreaseFactor());
        }
        if (governor.latencyInflation() != 0) {
            errors.range("governor.latencyInflation", governor.latencyInflation(), 1.1, 100,
                    "times the baseline (or 0 to turn it off)");
        }
        errors.range("governor.backoffBaseMillis", governor.backoffBaseMillis(), 1, 3_600_000, "milliseconds");
        errors.range("governor.backoffMaxMillis", governor.backoffMaxMillis(),
                Math.max(1, governor.backoffBaseMillis()), 86_400_000, "milliseconds (at least backoffBaseMillis)");
        errors.range("governor.backoffForgiveSeconds", governor.backoffForgiveSeconds(), 1, 86_400, "seconds");
        errors.range("governor.breakerErrorPercent", governor.breakerErrorPercent(), 1, 100, "percent");
        errors.range("governor.breakerMinCalls", governor.breakerMinCalls(), 1, 1_000_000, "responses");
        errors.range("governor.breakerOpenSeconds", governor.breakerOpenSeconds(), 1, 86_400, "seconds");
        errors.range("governor.breakerTrialRequests", governor.breakerTrialRequests(), 1, 1_000, "requests");
        errors.range("governor.giveUpAfterErrors", governor.giveUpAfterErrors(), 1, 1_000_000, "errors");
        errors.range("governor.maxHoldMillis", governor.maxHoldMillis(), 0, 300_000, "milliseconds");
        errors.range("governor.latencyFloorMillis", governor.latencyFloorMillis(), 0, 60_000, "milliseconds");
        errors.range("governor.latencyWindow", governor.latencyWindow(), 3, 1_000, "answers");
        errors.range("governor.latencyBaselineWindows", governor.latencyBaselineWindows(), 1, 1_000, "windows");
        if (governor.slowStartDoublingSeconds() != 0) {
            errors.range("governor.slowStartDoublingSeconds", governor.slowStartDoublingSeconds(), 1, 3_600,
                    "seconds (or 0 for no slow start)");
        }
    }

    private static void validateBans(List<Ban> bans, Errors errors) {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < bans.size(); i++) {
            String path = "bans[" + i + "]";
            Ban ban = bans.get(i);
            if (!errors.required(path, ban)) {
                continue;
            }
            if (errors.text(path + ".id", ban.id()) && !ids.add(ban.id())) {
                errors.add(path + ".id", "'" + ban.id() + "' is used by another ban");
            }
            if (errors.required(path + ".type", ban.type()) && errors.text(path + ".value", ban.value())) {
                switch (ban.type()) {
                    case IP -> errors.cidr(path + ".value", ban.value());
                    case AGENT -> errors.agent(path + ".value", ban.value());
                    case CLIENT -> errors.client(path + ".value", ban.value());
                    default -> errors.add(path + ".type", "unknown ban type");
                }
            }
            if (ban.createdAt() != null && ban.expiresAt() != null && !ban.expiresAt().isAfter(ban.createdAt())) {
                errors.add(path + ".expiresAt", "must be after createdAt (" + ban.createdAt() + ")");
            }
        }
    }

    private static void validateAllow(List<AllowEntry> allow, Errors errors) {
        for (int i = 0; i < allow.size(); i++) {
            String path = "allow[" + i + "]";
            AllowEntry entry = allow.get(i);
            if (!errors.required(path, entry)) {
                continue;
            }
            if (errors.required(path + ".type", entry.type()) && errors.text(path + ".value", entry.value())) {
                switch (entry.type()) {
                    case IP -> errors.cidr(path + ".value", entry.value());
                    case AGENT -> {
                        // any non-blank text is a valid substring
                    }
                    default -> errors.add(path + ".type", "unknown allow-list type");
                }
            }
        }
    }

    private static boolean isWebUrl(String text) {
        try {
            URI uri = new URI(text);
            return uri.isAbsolute() && ("http".equalsIgnoreCase(uri.getScheme())
                    || "https".equalsIgnoreCase(uri.getScheme())) && uri.getHost() != null;
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    /** Collects errors; each check returns whether the value was usable. */
    private static final class Errors {
        final List<FieldError> list = new ArrayList<>();

        void add(String field, String message) {
            list.add(new FieldError(field, message));
        }

        boolean required(String field, Object value) {
            if (value == null) {
                add(field, "is required");
                return false;
            }
            return true;
        }

        boolean text(String field, String value) {
            if (value == null || value.isBlank()) {
                add(field, "must not be empty");
                return false;
            }
            return true;
        }

        void range(String field, int value, int min, int max, String unit) {
            if (value < min || value > max) {
                add(field, "must be between " + min + " and " + max + " " + unit + ", was " + value);
            }
        }

        void range(String field, double value, double min, double max, String unit) {
            if (!(value >= min && value <= max)) {
                add(field, "must be between " + min + " and " + max + " " + unit + ", was " + value);
            }
        }

        void cidr(String field, String value) {
            if (!text(field, value)) {
                return;
            }
            try {
                Cidr.parse(value);
            } catch (IllegalArgumentException e) {
                add(field, e.getMessage());
            }
        }

        void agent(String field, String value) {
            if (CompiledPolicy.isRegex(value)) {
                if (value.length() == 2) {
                    add(field, "the regular expression between the slashes is empty");
                    return;
                }
                try {
                    CompiledPolicy.agentMatcher(value);
                } catch (PatternSyntaxException e) {
                    add(field, "not a valid regular expression: " + e.getDescription() + " near index "
                            + e.getIndex());
                }
            }
        }

        void client(String field, String value) {
            int bar = value.indexOf('|');
            if (bar < 0) {
                add(field, "must be 'ip|user agent', was '" + value + "'");
                return;
            }
            if (IpAddress.tryParse(value.substring(0, bar).strip()) == null) {
                add(field, "the part before '|' is not an IPv4 or IPv6 address: '" + value.substring(0, bar) + "'");
            }
        }
    }
}
