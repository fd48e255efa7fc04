package io.sluice.engine.robots;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A robots.txt as RFC 9309 (the Robots Exclusion Protocol) reads it, to judge whether a crawler's request keeps it.
 *
 * <ul>
 *   <li>A group is one or more {@code user-agent} lines followed by {@code allow} / {@code disallow} rules; a
 *       {@code user-agent} line after a rule starts the next group. Rules before any group, other keys
 *       ({@code sitemap}, {@code crawl-delay}) and lines that do not parse are ignored; keys are case-insensitive;
 *       {@code #} starts a comment.</li>
 *   <li>A crawler obeys the groups whose user agent is its product token (case-insensitive; the line's value is cut
 *       to the token's characters, letters, {@code -} and {@code _}, so {@code Googlebot/2.1} names Googlebot), all of
 *       them combined; when none names it, the {@code *} groups; when there are none, nothing is disallowed.</li>
 *   <li>Of the rules that match the path (with its query), the longest pattern wins, and {@code allow} wins a tie.
 *       {@code *} matches any run of characters, a final {@code $} the end of the path; a pattern otherwise matches
 *       a prefix. An empty {@code disallow} disallows nothing. {@code /robots.txt} is always allowed.</li>
 * </ul>
 * Only the first {@link #MAX_CHARS} characters are read (RFC 9309 asks crawlers to read at least 500 KiB).
 * Immutable and thread-safe; {@link #allowed} costs a pass over the crawler's rules, with no allocation.
 */
public final class RobotsTxt {

    /** What is read of a robots.txt; the rest is ignored. */
    public static final int MAX_CHARS = 512 * 1024;
    /** Longer patterns are cut: a rule longer than any real path would only cost matching time. */
    static final int MAX_PATTERN = 2_048;

    /** One allow or disallow rule. */
    record Rule(String pattern, boolean allow) {
    }

    /** Nothing disallowed for anyone (no robots.txt, or an empty one). */
    public static final RobotsTxt EMPTY = new RobotsTxt(Map.of(), List.of(), 0);

    /** The rules of the groups that name each product token (lower case). */
    private final Map<String, List<Rule>> byAgent;
    /** The rules of the {@code *} groups. */
    private final List<Rule> star;
    private final int groups;

    private RobotsTxt(Map<String, List<Rule>> byAgent, List<Rule> star, int groups) {
        this.byAgent = byAgent;
        this.star = star;
        this.groups = groups;
    }

    /** Reads {@code text} (null reads as empty). Never fails: what does not parse is ignored, as RFC 9309 asks. */
    public static RobotsTxt parse(String text) {
        if (text == null || text.isEmpty()) {
            return EMPTY;
        }
        String body = text.length() > MAX_CHARS ? text.substring(0, MAX_CHARS) : text;
        Map<String, List<Rule>> byAgent = new HashMap<>();
        List<Rule> star = new ArrayList<>();
        List<String> agents = new ArrayList<>();
        List<Rule> rules = new ArrayList<>();
        boolean inRules = false;
        int groups = 0;
        for (String raw : body.split("\r\n|\r|\n", -1)) {
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String key = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            switch (key) {
                case "user-agent" -> {
                    if (inRules) {
                        groups += close(agents, rules, byAgent, star);
                        agents = new ArrayList<>();
                        rules = new ArrayList<>();
                        inRules = false;
                    }
                    String token = token(value);
                    if (!token.isEmpty()) {
                        agents.add(token);
                    }
                }
                case "allow", "disallow" -> {
                    if (agents.isEmpty()) {
                        continue; // a rule outside any group
                    }
                    inRules = true;
                    if (!value.isEmpty()) {
                        String pattern = value.length() > MAX_PATTERN ? value.substring(0, MAX_PATTERN) : value;
                        rules.add(new Rule(pattern, key.equals("allow")));
                    }
                }
                default -> {
                    // sitemap, crawl-delay, anything else: not part of a group's rules
                }
            }
        }
        groups += close(agents, rules, byAgent, star);
        Map<String, List<Rule>> frozen = new HashMap<>();
        byAgent.forEach((agent, list) -> frozen.put(agent, List.copyOf(list)));
        return new RobotsTxt(Map.copyOf(frozen), List.copyOf(star), groups);
    }

    private static int close(List<String> agents, List<Rule> rules, Map<String, List<Rule>> byAgent,
                             List<Rule> star) {
        if (agents.isEmpty()) {
            return 0;
        }
        for (String agent : agents) {
            if (agent.equals("*")) {
                star.addAll(rules);
            } else {
                byAgent.computeIfAbsent(agent, k -> new ArrayList<>()).addAll(rules);
            }
        }
        return 1;
    }

    /** The product token a {@code user-agent} line names, lower case: {@code *}, or its leading token characters. */
    static String token(String value) {
        if (value.startsWith("*")) {
            return "*";
        }
        int end = 0;
        while (end < value.length() && isTokenChar(value.charAt(end))) {
            end++;
        }
        return value.substring(0, end).toLowerCase(Locale.ROOT);
    }

    private static boolean isTokenChar(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_');
    }

    /** How many groups were read. */
    public int groups() {
        return groups;
    }

    /** Whether some group names {@code productToken} (else the crawler obeys the {@code *} groups). */
    public boolean names(String productToken) {
        return productToken != null && byAgent.containsKey(token(productToken));
    }

    /**
     * Whether the crawler whose product token is {@code productToken} may fetch {@code pathAndQuery} (the path, with
     * {@code ?query} when there is one).
     */
    public boolean allowed(String productToken, String pathAndQuery) {
        if (pathAndQuery == null || pathAndQuery.equals("/robots.txt")) {
            return true;
        }
        List<Rule> rules = productToken == null ? null : byAgent.get(token(productToken));
        if (rules == null) {
            rules = star;
        }
        int best = -1;
        boolean allow = true;
        for (Rule rule : rules) {
            int length = rule.pattern().length();
            if (length < best || length == best && allow) {
                continue; // cannot win: shorter, or a tie that allow already holds
            }
            if (matches(rule.pattern(), pathAndQuery)) {
                allow = length == best ? allow || rule.allow() : rule.allow();
                best = length;
            }
        }
        return allow;
    }

    /**
     * Whether {@code pattern} matches {@code path} from its start: {@code *} is any run of characters, a final
     * {@code $} is the path's end, and without it any rest of the path is allowed. Greedy with one back-up point
     * (the last {@code *}), so linear in practice and at worst pattern times path.
     */
    static boolean matches(String pattern, String path) {
        boolean anchored = pattern.endsWith("$");
        int end = anchored ? pattern.length() - 1 : pattern.length();
        int p = 0;
        int s = 0;
        int starP = -1;
        int starS = 0;
        while (true) {
            if (p < end && pattern.charAt(p) == '*') {
                starP = ++p;
                starS = s;
                continue;
            }
            if (p == end) {
                if (!anchored || s == path.length()) {
                    return true;
                }
            } else if (s < path.length() && pattern.charAt(p) == path.charAt(s)) {
                p++;
                s++;
                continue;
            }
            if (starP < 0 || starS >= path.length()) {
                return false;
            }
            p = starP;
            s = ++starS;
        }
    }

    /**
     * {@code text} with {@code Disallow: path} added to every group, and a {@code *} group with it when there is none:
     * the robots.txt Sluice serves when a trap path is set, the upstream's otherwise unchanged. The line goes after
     * each run of {@code user-agent} lines, so it belongs to that group whatever rules follow.
     */
    public static String withDisallowEverywhere(String text, String path) {
        String body = text == null ? "" : text;
        String line = "Disallow: " + path;
        StringBuilder out = new StringBuilder(body.length() + 256);
        boolean inAgents = false;
        boolean sawStar = false;
        String[] lines = body.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String raw = lines[i];
            String content = raw.contains("#") ? raw.substring(0, raw.indexOf('#')) : raw;
            int colon = content.indexOf(':');
            boolean agentLine = colon > 0
                    && content.substring(0, colon).strip().equalsIgnoreCase("user-agent");
            if (inAgents && !agentLine && !content.isBlank()) {
                out.append(line).append('\n');
            }
            if (agentLine && token(content.substring(colon + 1).strip()).equals("*")) {
                sawStar = true;
            }
            if (agentLine || !content.isBlank()) {
                inAgents = agentLine;
            }
            out.append(raw);
            if (i < lines.length - 1) {
                out.append('\n');
            }
        }
        if (inAgents) {
            out.append(body.endsWith("\n") ? "" : "\n").append(line).append('\n');
        }
        if (!sawStar) {
            if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
            out.append(out.length() > 0 ? "\n" : "").append("User-agent: *\n").append(line).append('\n');
        }
        return out.toString();
    }
}
