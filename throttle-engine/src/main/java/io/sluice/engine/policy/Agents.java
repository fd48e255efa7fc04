package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the policy decides about automated agents beyond the crawler rules (docs/manual/policy.md, "Agents"): an
 * action per crawler category, what breaking the upstream's robots.txt costs a crawler, and the trap path.
 *
 * @param categories an action per category; a category without an entry is {@link CategoryRule#CRAWL} (today's
 *                   crawler rules), so a policy without the field behaves as before categories existed
 * @param robots     robots.txt compliance; {@link Robots#NONE} (counted, never escalated) when absent
 * @param trap       the trap path; {@link Trap#NONE} when absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Agents(Map<Category, CategoryRule> categories, Robots robots, Trap trap) {

    /** Every category crawled, robots.txt counted only, no trap. */
    public static final Agents DEFAULTS = new Agents(Map.of(), Robots.NONE, Trap.NONE);

    public Agents {
        Map<Category, CategoryRule> copy = new LinkedHashMap<>();
        if (categories != null) {
            copy.putAll(categories);
        }
        categories = Collections.unmodifiableMap(copy);
        robots = robots == null ? Robots.NONE : robots;
        trap = trap == null ? Trap.NONE : trap;
    }

    /** The rule for {@code category}: the policy's, else {@link CategoryRule#CRAWL}. */
    public CategoryRule rule(Category category) {
        CategoryRule rule = categories.get(category);
        return rule == null ? CategoryRule.CRAWL : rule;
    }

    /** Every category's rule, the defaults filled in (for the console and the snapshot). */
    public Map<Category, CategoryRule> allRules() {
        Map<Category, CategoryRule> all = new EnumMap<>(Category.class);
        for (Category category : Category.values()) {
            all.put(category, rule(category));
        }
        return all;
    }

    public Agents withCategories(Map<Category, CategoryRule> value) {
        return new Agents(value, robots, trap);
    }

    public Agents withRobots(Robots value) {
        return new Agents(categories, value, trap);
    }

    public Agents withTrap(Trap value) {
        return new Agents(categories, robots, value);
    }

    /** What happens to a request of a category. */
    public enum Action {
        /** Today's crawler rules: a verified crawler is a {@code CRAWLER} (spaced), anything else a {@code BOT}. */
        @JsonProperty("crawl") CRAWL,
        /** Refused: 403 (or {@link CategoryRule#status} 402) with the operator's message. */
        @JsonProperty("refuse") REFUSE,
        /** The browser check's interstitial for a page without a valid pass (an agent rarely passes it). */
        @JsonProperty("challenge") CHALLENGE,
        /** Served, exempt from rules 3-7 like the allow-list (pause and bans still apply). */
        @JsonProperty("allow") ALLOW
    }

    /**
     * The rule for one category.
     *
     * @param action     for a verified agent (its address in its operator's ranges, the policy's, or confirmed by
     *                   reverse DNS; or any claim while {@code crawlers.verifySearchEngines} is off)
     * @param unverified for a claim that is not verified; when absent: {@code action} itself when it is
     *                   {@code refuse} or {@code challenge} (a claim gets no better than the real agent), and
     *                   {@code crawl} for {@code allow} (today's rules, which make an unverified claim a {@code BOT})
     * @param status     the status of a refusal: 403 (when absent) or 402 (Payment Required, for an operator who
     *                   licenses the content)
     * @param message    what a refused agent is told (one sentence, at most 1000 characters), or null for the
     *                   standard sentence
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CategoryRule(Action action, Action unverified, Integer status, String message) {

        /** Today's rules for every agent of the category. */
        public static final CategoryRule CRAWL = new CategoryRule(Action.CRAWL, null, null, null);

        /** The action for an agent verified ({@code verified}) or not. */
        public Action actionFor(boolean verified) {
            if (verified || unverified == null && (action == Action.REFUSE || action == Action.CHALLENGE)) {
                return action;
            }
            return unverified == null ? Action.CRAWL : unverified;
        }

        /** The refusal's status. */
        public int refusalStatus() {
            return status == null ? 403 : status;
        }
    }

    /**
     * robots.txt compliance: the front end reads the upstream's robots.txt and counts, per crawler, the requests to
     * paths its group disallows.
     *
     * @param escalation bans a crawler client that keeps fetching disallowed paths, like an escalation rule whose
     *                   refusals are disallowed fetches (its {@code refusals} is the threshold); null for none
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Robots(Escalation escalation) {
        public static final Robots NONE = new Robots(null);
    }

    /**
     * A path no agent may fetch (Sluice adds it to every group of the robots.txt it serves): whoever fetches it
     * ignored robots.txt. A verified crawler is never marked by it (its fetch counts as a robots.txt violation).
     *
     * @param path        the path, starting with '/' (null: no trap)
     * @param action      {@code challenge}: the client's address is challenged (the browser check) on every page
     *                    for {@code seconds}; {@code ban}: the client's address is banned for {@code seconds}
     * @param seconds     how long the mark or the ban lasts ({@link #DEFAULT_SECONDS} when absent)
     * @param injectLinks whether the front end links the path, invisibly, from the upstream's HTML pages (off when
     *                    absent)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Trap(String path, TrapAction action, Integer seconds, Boolean injectLinks) {
        /** No trap (its JSON form is {@code {}}). */
        public static final Trap NONE = new Trap(null, null, null, null);
        /** How long a mark or a ban lasts when the policy does not say. */
        public static final int DEFAULT_SECONDS = 3_600;

        public Trap {
            if (path != null) {
                action = action == null ? TrapAction.CHALLENGE : action;
                seconds = seconds == null ? DEFAULT_SECONDS : seconds;
                injectLinks = injectLinks != null && injectLinks;
            }
        }

        /** Whether a trap is set. */
        public boolean set() {
            return path != null;
        }

        /** Whether {@code requestPath} is the trap (the path itself or under it). */
        public boolean caught(String requestPath) {
            return path != null && requestPath != null && requestPath.startsWith(path);
        }
    }

    /** What the trap does to a client that fetched it. */
    public enum TrapAction {
        @JsonProperty("challenge") CHALLENGE,
        @JsonProperty("ban") BAN
    }
}
