package io.sluice.engine;

import static io.sluice.engine.policy.Policy.HitStack.MAX_WINDOW_SECONDS;

import io.sluice.engine.policy.Category;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.RegexBudget;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.AsnTable;
import io.sluice.engine.net.Cidr;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Checks a whole {@link Policy} and reports every bad field at once, with the JSON path of the field
 * ({@code hitStack.maxHits}, {@code bans[2].value}) and a sentence an operator understands. A policy
 * with no error can be compiled and installed; the engine installs nothing else.
 */
public final class PolicyValidator {

    /** The most routes: every request is matched against them in order. */
    public static final int MAX_ROUTES = 64;
    /** The most escalation rules. */
    public static final int MAX_ESCALATION_RULES = 8;
    /** The longest regular expression or glob an operator may write. */
    public static final int MAX_PATTERN_LENGTH = 1_000;
    /** The longest automatic ban, a year. */
    static final int MAX_BAN_SECONDS = 31_536_000;
    /** The longest ban an operator may give a duration to, ten years; longer is a permanent ban (no expiry). */
    public static final long MAX_BAN_DURATION_SECONDS = 315_360_000;
    /**
     * The highest policy version: 2^53 - 1, the largest integer every JSON reader keeps exactly, and far from the
     * overflow of the {@code version + 1} every change computes.
     */
    public static final long MAX_VERSION = (1L << 53) - 1;
    /** Ban times are between these (the first is the epoch, the last the end of year 9999). */
    static final Instant EARLIEST = Instant.EPOCH;
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    /** A crawl rate above this is a typo, not a politeness setting. */
    static final double MAX_DOMAIN_RATE = 1_000;

    private PolicyValidator() {
    }

    /** The most crawler names, and blocks per name, {@code crawlers.verifiedRanges} may hold. */
    static final int MAX_VERIFIED_NAMES = 100;
    static final int MAX_VERIFIED_BLOCKS = 1_000;

    /** Every problem of {@code policy}; empty when it is valid. */
    public static List<FieldError> validate(Policy policy) {
        Errors errors = new Errors();
        if (policy == null) {
            errors.add("", "the policy is missing");
            return errors.list;
        }
        if (policy.version() < 0 || policy.version() > MAX_VERSION) {
            errors.add("version", "must be between 0 and " + MAX_VERSION + ", was " + policy.version());
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
            validateVerifiedRanges(crawlers.verifiedRanges(), errors);
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
        if (refusal != null && refusal.bannedMessage() != null && refusal.bannedMessage().length() > 1_000) {
            errors.add("refusal.bannedMessage", "must be at most 1000 characters, was "
                    + refusal.bannedMessage().length());
        }
        validateGovernor(policy.governor(), errors);
        validatePerAddress(policy.perAddress(), errors);
        validateRoutes(policy.routes(), errors);
        if (!isToken(policy.forwardedHeader())) {
            errors.add("forwardedHeader", "must be an HTTP header name such as X-Forwarded-For, Forwarded or "
                    + "CF-Connecting-IP, was '" + policy.forwardedHeader() + "'");
        }
        validateEscalation(policy.escalation(), errors);
        validateBrowserCheck(policy.browserCheck(), errors);
        validateAgents(policy.agents(), errors);
        return errors.list;
    }

    private static void validatePerAddress(Policy.PerAddress perAddress, Errors errors) {
        errors.range("perAddress.ipv4Prefix", perAddress.ipv4Prefix(), 8, 32, "bits");
        errors.range("perAddress.ipv6Prefix", perAddress.ipv6Prefix(), 32, 128, "bits");
        errors.range("perAddress.windowSeconds", perAddress.windowSeconds(), 1, MAX_WINDOW_SECONDS, "seconds");
        errors.range("perAddress.maxHits", perAddress.maxHits(), 1, 1_000_000, "hits");
        errors.range("perAddress.maxConcurrent", perAddress.maxConcurrent(), 1, 1_000_000, "requests");
    }

    /** The most exempt paths and always-challenged networks of the browser check. */
    static final int MAX_CHECK_ENTRIES = 256;

    private static void validateBrowserCheck(BrowserCheck check, Errors errors) {
        // 4 bits is 16 hashes (a check that proves nothing); 24 is 16 million, minutes on a phone
        errors.range("browserCheck.difficulty", check.difficulty(), 4, 24, "bits");
        errors.range("browserCheck.passTtlSeconds", check.passTtlSeconds(), 60, 31_536_000, "seconds");
        errors.range("browserCheck.noScriptWaitSeconds", check.noScriptWaitSeconds(), 1, 60, "seconds");
        errors.range("browserCheck.pressureInFlight", check.pressureInFlight(), 0, 1_000_000,
                "requests (0: load.maxActive)");
        errors.range("browserCheck.pressureHoldSeconds", check.pressureHoldSeconds(), 0, 86_400, "seconds");
        hitStack("browserCheck.perPass", check.perPass(), errors);
        BrowserCheck.Networks networks = check.networks();
        errors.range("browserCheck.networks.ipv4Prefix", networks.ipv4Prefix(), 8, 32, "bits");
        errors.range("browserCheck.networks.ipv6Prefix", networks.ipv6Prefix(), 16, 128, "bits");
        hitStack("browserCheck.networks.withoutPass", networks.withoutPass(), errors);
        hitStack("browserCheck.networks.withPass", networks.withPass(), errors);
        errors.range("browserCheck.networks.passCooldownSeconds", networks.passCooldownSeconds(), 0, 86_400,
                "seconds (0: no wait)");
        errors.range("browserCheck.networks.maxConcurrentWithoutPass", networks.maxConcurrentWithoutPass(), 1,
                1_000_000, "requests");
        errors.range("browserCheck.networks.maxConcurrentWithPass", networks.maxConcurrentWithPass(), 1, 1_000_000,
                "requests");
        if (networks.asnWithoutPass() != null) {
            hitStack("browserCheck.networks.asnWithoutPass", networks.asnWithoutPass(), errors);
        }
        List<String> exempt = check.exemptPaths();
        if (exempt.size() > MAX_CHECK_ENTRIES) {
            errors.add("browserCheck.exemptPaths", "at most " + MAX_CHECK_ENTRIES + " paths, was " + exempt.size());
        } else {
            for (int i = 0; i < exempt.size(); i++) {
                String field = "browserCheck.exemptPaths[" + i + "]";
                String path = exempt.get(i);
                if (!errors.text(field, path)) {
                    continue;
                }
                boolean shaped = path.startsWith("/") || path.startsWith("*") && path.length() > 1;
                if (!shaped || path.length() > MAX_PATTERN_LENGTH) {
                    errors.add(field, "must be a path prefix starting with '/' or a suffix starting with '*' (at most "
                            + MAX_PATTERN_LENGTH + " characters), was '" + path + "'");
                }
            }
        }
        List<String> always = check.alwaysChallenge();
        if (always.size() > MAX_CHECK_ENTRIES) {
            errors.add("browserCheck.alwaysChallenge", "at most " + MAX_CHECK_ENTRIES + " networks, was "
                    + always.size());
        } else {
            for (int i = 0; i < always.size(); i++) {
                errors.cidr("browserCheck.alwaysChallenge[" + i + "]", always.get(i));
            }
        }
        List<Long> asns = check.alwaysChallengeAsns();
        if (asns.size() > MAX_CHECK_ENTRIES) {
            errors.add("browserCheck.alwaysChallengeAsns", "at most " + MAX_CHECK_ENTRIES + " autonomous systems, "
                    + "was " + asns.size());
        } else {
            for (int i = 0; i < asns.size(); i++) {
                String field = "browserCheck.alwaysChallengeAsns[" + i + "]";
                Long asn = asns.get(i);
                if (asn == null || asn < 1 || asn > AsnTable.MAX_ASN) {
                    errors.add(field, "must be an AS number from 1 to " + AsnTable.MAX_ASN + " (16509, not "
                            + "AS16509), was " + asn);
                }
            }
        }
    }

    /** The longest path of the trap. */
    static final int MAX_TRAP_PATH = 200;

    private static void validateAgents(Agents agents, Errors errors) {
        for (Map.Entry<Category, Agents.CategoryRule> entry : agents.categories().entrySet()) {
            if (entry.getKey() == null) {
                errors.add("agents.categories", "a category is missing: one of " + Category.names());
                continue;
            }
            String path = "agents.categories." + entry.getKey().wire();
            Agents.CategoryRule rule = entry.getValue();
            if (!errors.required(path, rule)) {
                continue;
            }
            errors.required(path + ".action", rule.action());
            if (rule.status() != null && rule.status() != 403 && rule.status() != 402) {
                errors.add(path + ".status", "must be 403 (Forbidden) or 402 (Payment Required), was " + rule.status());
            }
            boolean refuses = rule.action() == Agents.Action.REFUSE || rule.unverified() == Agents.Action.REFUSE;
            if (rule.status() != null && !refuses) {
                errors.add(path + ".status", "is the status of a refusal: the rule refuses no one (action "
                        + wire(rule.action()) + ")");
            }
            if (rule.message() != null && (rule.message().isBlank() || rule.message().length() > 1_000)) {
                errors.add(path + ".message", "must be 1 to 1000 characters, was " + rule.message().length());
            }
        }
        Escalation robots = agents.robots().escalation();
        if (robots != null) {
            escalationRule("agents.robots.escalation", robots, errors);
        }
        Agents.Trap trap = agents.trap();
        if (trap.path() != null) {
            String path = trap.path();
            if (!path.startsWith("/") || path.length() < 2 || path.length() > MAX_TRAP_PATH || path.contains("*")
                    || path.contains("$") || path.contains("?") || path.chars().anyMatch(c -> c <= ' ' || c >= 127)) {
                errors.add("agents.trap.path", "must be a path starting with '/' and more than '/' (at most "
                        + MAX_TRAP_PATH + " printable characters, no '*', '$' or '?'), was '" + path + "'");
            } else if ("/robots.txt".startsWith(path) || path.startsWith("/.well-known")) {
                errors.add("agents.trap.path", "must not cover /robots.txt nor /.well-known/ (every agent may fetch "
                        + "them), was '" + path + "'");
            }
            errors.range("agents.trap.seconds", trap.seconds(), 1, MAX_BAN_SECONDS, "seconds");
        } else if (Boolean.TRUE.equals(trap.injectLinks())) {
            errors.add("agents.trap.injectLinks", "needs agents.trap.path: there is no trap to link to");
        }
    }

    private static String wire(Agents.Action action) {
        return action == null ? "missing" : action.name().toLowerCase(Locale.ROOT);
    }

    private static void hitStack(String field, Policy.HitStack limits, Errors errors) {
        if (errors.required(field, limits)) {
            errors.range(field + ".windowSeconds", limits.windowSeconds(), 1, MAX_WINDOW_SECONDS, "seconds");
            errors.range(field + ".maxHits", limits.maxHits(), 1, 1_000_000, "hits");
        }
    }

    private static void validateRoutes(List<Route> routes, Errors errors) {
        if (routes.size() > MAX_ROUTES) {
            errors.add("routes", "at most " + MAX_ROUTES + " routes, was " + routes.size());
            return; // each is matched on every request: checking thousands would be work for nothing
        }
        RegexBudget.Tally patterns = RegexBudget.ROUTE.tally();
        for (int i = 0; i < routes.size(); i++) {
            String path = "routes[" + i + "]";
            Route route = routes.get(i);
            if (!errors.required(path, route)) {
                continue;
            }
            if (errors.required(path + ".match", route.match()) && errors.text(path + ".path", route.path())) {
                routePath(path + ".path", route, patterns, errors);
            }
            if (route.query() != null && (route.query().isBlank() || route.query().contains("&"))) {
                errors.add(path + ".query", "must be one query parameter, name=value or name, was '"
                        + route.query() + "'");
            }
            for (int m = 0; m < route.methods().size(); m++) {
                String method = route.methods().get(m);
                if (!isToken(method) || !method.equals(method.toUpperCase(Locale.ROOT))) {
                    errors.add(path + ".methods[" + m + "]", "must be an HTTP method in upper case, was '"
                            + method + "'");
                }
            }
            for (int c = 0; c < route.classes().size(); c++) {
                errors.required(path + ".classes[" + c + "]", route.classes().get(c));
            }
            for (int d = 0; d < route.secFetchDest().size(); d++) {
                String dest = route.secFetchDest().get(d);
                if (!isToken(dest) || !dest.equals(dest.toLowerCase(Locale.ROOT))) {
                    errors.add(path + ".secFetchDest[" + d + "]", "must be a Sec-Fetch-Dest value in lower case "
                            + "(document, image, style, script, font, ...), was '" + dest + "'");
                }
            }
            errors.range(path + ".weight", route.weight(), 0, 1_000, "hits");
            if (route.limits() != null) {
                errors.range(path + ".limits.windowSeconds", route.limits().windowSeconds(), 1, MAX_WINDOW_SECONDS,
                        "seconds");
                errors.range(path + ".limits.maxHits", route.limits().maxHits(), 1, 1_000_000, "hits");
            }
        }
        String total = patterns.totalProblem();
        if (total != null) {
            errors.add("routes", total);
        }
    }

    private static void routePath(String field, Route route, RegexBudget.Tally patterns, Errors errors) {
        String value = route.path();
        if (value.length() > MAX_PATTERN_LENGTH) {
            errors.add(field, "must be at most " + MAX_PATTERN_LENGTH + " characters, was " + value.length());
            return;
        }
        if (route.match() == Route.Match.PREFIX) {
            if (!value.startsWith("/")) {
                errors.add(field, "a path prefix starts with '/', was '" + value + "'");
            }
            return;
        }
        String regex;
        try {
            regex = RouteTable.regexOf(route);
        } catch (IllegalArgumentException e) {
            errors.add(field, "not a valid glob: " + e.getMessage());
            return;
        }
        String problem = regex == null ? null : patterns.check(regex, 0);
        if (problem != null) {
            errors.add(field, route.match() == Route.Match.GLOB ? "this glob " + problem : problem);
        }
    }

    private static void validateEscalation(List<Escalation> rules, Errors errors) {
        if (rules.size() > MAX_ESCALATION_RULES) {
            errors.add("escalation", "at most " + MAX_ESCALATION_RULES + " rules, was " + rules.size());
        }
        for (int i = 0; i < rules.size(); i++) {
            String path = "escalation[" + i + "]";
            Escalation rule = rules.get(i);
            if (!errors.required(path, rule)) {
                continue;
            }
            escalationRule(path, rule, errors);
        }
    }

    private static void escalationRule(String path, Escalation rule, Errors errors) {
        errors.required(path + ".scope", rule.scope());
        errors.range(path + ".refusals", rule.refusals(), 1, 100, "refusals");
        errors.range(path + ".withinSeconds", rule.withinSeconds(), 1, 86_400, "seconds");
        errors.range(path + ".banSeconds", rule.banSeconds(), 1, MAX_BAN_SECONDS, "seconds");
        errors.range(path + ".growth", rule.growth(), 1, 100, "times");
        errors.range(path + ".maxBanSeconds", rule.maxBanSeconds(), Math.max(1, rule.banSeconds()),
                MAX_BAN_SECONDS, "seconds (at least banSeconds)");
    }

    /** An HTTP token (RFC 9110): a header name, a method. */
    private static boolean isToken(String text) {
        if (text == null || text.isEmpty() || text.length() > 64) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c < 127 && (Character.isLetterOrDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0))) {
                return false;
            }
        }
        return true;
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
        RegexBudget.Tally agentPatterns = RegexBudget.AGENT.tally();
        for (int i = 0; i < bans.size(); i++) {
            String path = "bans[" + i + "]";
            Ban ban = bans.get(i);
            if (!errors.required(path, ban)) {
                continue;
            }
            if (errors.text(path + ".id", ban.id()) && !ids.add(ban.id())) {
                errors.add(path + ".id", "'" + ban.id() + "' is used by another ban");
            }
            validateBan(path + ".", ban, agentPatterns, errors);
        }
        String total = agentPatterns.totalProblem();
        if (total != null) {
            errors.add("bans", total);
        }
    }

    /**
     * The problems of one ban on its own, its fields named as in the ban ({@code value}, {@code expiresAt}): what
     * {@code POST /api/v1/bans} answers before adding it. Whether it fits among the policy's other bans (an id
     * used twice, the user-agent expressions' total) is {@link #validate}'s.
     */
    public static List<FieldError> validateBan(Ban ban) {
        Errors errors = new Errors();
        if (errors.required("ban", ban)) {
            validateBan("", ban, RegexBudget.AGENT.tally(), errors);
        }
        return errors.list;
    }

    private static void validateBan(String path, Ban ban, RegexBudget.Tally agentPatterns, Errors errors) {
        if (errors.required(path + "type", ban.type()) && errors.text(path + "value", ban.value())) {
            if (ban.value().length() > MAX_PATTERN_LENGTH) {
                errors.add(path + "value", "must be at most " + MAX_PATTERN_LENGTH + " characters, was "
                        + ban.value().length());
            } else {
                switch (ban.type()) {
                    case IP -> errors.cidr(path + "value", ban.value());
                    case AGENT -> errors.agent(path + "value", ban.value(), agentPatterns);
                    case CLIENT -> errors.client(path + "value", ban.value());
                    default -> errors.add(path + "type", "unknown ban type");
                }
            }
        }
        boolean timesInRange = errors.time(path + "createdAt", ban.createdAt())
                & errors.time(path + "expiresAt", ban.expiresAt());
        if (timesInRange && ban.createdAt() != null && ban.expiresAt() != null
                && !ban.expiresAt().isAfter(ban.createdAt())) {
            errors.add(path + "expiresAt", "must be after createdAt (" + ban.createdAt() + ")");
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
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** Names are the crawler list's (not checked against it: a newer list may add one); blocks as anywhere else. */
    private static void validateVerifiedRanges(Map<String, List<String>> ranges, Errors errors) {
        if (ranges.size() > MAX_VERIFIED_NAMES) {
            errors.add("crawlers.verifiedRanges", "must name at most " + MAX_VERIFIED_NAMES + " crawlers, was "
                    + ranges.size());
            return;
        }
        for (Map.Entry<String, List<String>> entry : ranges.entrySet()) {
            String path = "crawlers.verifiedRanges." + entry.getKey();
            if (entry.getKey() == null || entry.getKey().isBlank() || entry.getKey().length() > 200) {
                errors.add("crawlers.verifiedRanges", "a crawler name must be 1 to 200 characters, was '"
                        + entry.getKey() + "'");
                continue;
            }
            if (!errors.required(path, entry.getValue())) {
                continue;
            }
            if (entry.getValue().size() > MAX_VERIFIED_BLOCKS) {
                errors.add(path, "must hold at most " + MAX_VERIFIED_BLOCKS + " addresses or CIDRs, was "
                        + entry.getValue().size());
                continue;
            }
            for (int i = 0; i < entry.getValue().size(); i++) {
                errors.cidr(path + "[" + i + "]", entry.getValue().get(i));
            }
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

        /** A time, when given, between {@link #EARLIEST} and {@link #LATEST}: every clock sum on it is exact. */
        boolean time(String field, Instant value) {
            if (value != null && (value.isBefore(EARLIEST) || value.isAfter(LATEST))) {
                add(field, "must be between " + EARLIEST + " and " + LATEST + ", was " + value);
                return false;
            }
            return true;
        }

        void agent(String field, String value, RegexBudget.Tally patterns) {
            if (CompiledPolicy.isRegex(value)) {
                if (value.length() == 2) {
                    add(field, "the regular expression between the slashes is empty");
                    return;
                }
                String problem = patterns.check(CompiledPolicy.agentExpression(value), CompiledPolicy.AGENT_FLAGS);
                if (problem != null) {
                    add(field, problem);
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
