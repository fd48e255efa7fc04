package io.sluice.engine.internal;

import com.google.re2j.Pattern;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The policy's routes, compiled: what a request weighs and which route limit applies to it. The first route
 * that matches decides; a request no route matches weighs 1.
 *
 * <p>Cost. Every request is matched, so the common shapes are matched without a regular expression: a prefix
 * is {@code startsWith}, and a glob that only names file extensions ({@code **.{css,js}}, {@code **}{@code /*.png},
 * the default static-asset route) is a look-up of the path's extension among them, with no allocation. Other
 * globs and regular expressions run on RE2/J, in time linear in the path.
 */
public final class RouteTable {

    /** The {@link Compiled#label} of requests no route matched. */
    public static final String NO_ROUTE = "(no route)";
    /** The request weighs 1 and no route limit applies. */
    public static final Compiled NONE = new Compiled(null, 1, null, path -> true);

    private final Compiled[] routes;

    public RouteTable(List<Route> routes) {
        List<Compiled> compiled = new ArrayList<>(routes.size());
        for (Route route : routes) {
            compiled.add(Compiled.of(route));
        }
        this.routes = compiled.toArray(new Compiled[0]);
    }

    /** The first route matching the request, or {@link #NONE}. */
    public Compiled match(String method, String path, String query, String secFetchDest, RequestClass cls) {
        for (Compiled route : routes) {
            if (route.matches(method, path, query, secFetchDest, cls)) {
                return route;
            }
        }
        return NONE;
    }

    /**
     * A glob as an RE2 expression over the whole path: {@code **} any characters, {@code *} any but {@code /},
     * {@code ?} one character but {@code /}, {@code {a,b}} either; everything else literal.
     *
     * @throws IllegalArgumentException for an unclosed or nested brace
     */
    public static String globToRegex(String glob) {
        StringBuilder regex = new StringBuilder(glob.length() * 2);
        boolean inBraces = false;
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*') {
                if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                    regex.append(".*");
                    i++;
                } else {
                    regex.append("[^/]*");
                }
            } else if (c == '?') {
                regex.append("[^/]");
            } else if (c == '{') {
                if (inBraces) {
                    throw new IllegalArgumentException("a glob's braces cannot be nested");
                }
                inBraces = true;
                regex.append("(?:");
            } else if (c == '}' && inBraces) {
                inBraces = false;
                regex.append(')');
            } else if (c == ',' && inBraces) {
                regex.append('|');
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        if (inBraces) {
            throw new IllegalArgumentException("a '{' in the glob is not closed");
        }
        return regex.toString();
    }

    /**
     * The regular expression {@code route} runs on every request's path, or null when it runs none (a prefix, a
     * glob that only names extensions): what {@link RegexBudget#ROUTE} bounds.
     *
     * @throws IllegalArgumentException for a glob with an unclosed or nested brace
     */
    public static String regexOf(Route route) {
        return switch (route.match()) {
            case PREFIX -> null;
            case GLOB -> extensionsOnly(route.path()) != null ? null : globToRegex(route.path());
            case REGEX -> route.path();
        };
    }

    /**
     * The extensions of a glob that only names extensions ({@code **.{a,b}}, {@code **.a}, {@code **}{@code /*.{a,b}},
     * {@code **}{@code /*.a}), each without its dot; null for any other glob.
     */
    static String[] extensionsOnly(String glob) {
        String rest;
        if (glob.startsWith("**/*.")) {
            rest = glob.substring(5);
        } else if (glob.startsWith("**.")) {
            rest = glob.substring(3);
        } else {
            return null;
        }
        if (rest.startsWith("{") && rest.endsWith("}")) {
            rest = rest.substring(1, rest.length() - 1);
        }
        String[] extensions = rest.split(",", -1);
        for (String extension : extensions) {
            if (extension.isEmpty() || !extension.chars().allMatch(ch -> Character.isLetterOrDigit(ch) || ch == '_'
                    || ch == '-')) {
                return null;
            }
        }
        return extensions;
    }

    /** One route, ready to match. */
    public static final class Compiled {
        private final Route route;
        private final int weight;
        private final Policy.HitStack limits;
        private final String id;
        private final String label;
        private final PathMatcher path;

        Compiled(Route route, int weight, Policy.HitStack limits, PathMatcher path) {
            this.route = route;
            this.label = route == null ? NO_ROUTE : route.path() + (route.query() == null ? "" : "?" + route.query());
            this.weight = weight;
            this.limits = limits;
            this.path = path;
            this.id = route == null ? "" : route.match() + " " + route.path()
                    + (route.query() == null ? "" : "?" + route.query()) + " " + route.methods() + " "
                    + route.classes() + " " + route.secFetchDest();
        }

        static Compiled of(Route route) {
            return new Compiled(route, route.weight(), route.limits(), PathMatcher.of(route));
        }

        /** The route as the policy has it; null for {@link #NONE}. */
        public Route route() {
            return route;
        }

        /** Hits a matching request pushes on the hit stacks. */
        public int weight() {
            return weight;
        }

        /** The route's own per-client limit, or null. */
        public Policy.HitStack limits() {
            return limits;
        }

        /** How an operator knows the route: its path (and query parameter); {@link #NO_ROUTE} for none. */
        public String label() {
            return label;
        }

        /** What identifies the route's own hit stacks across policy versions: its matching conditions. */
        public String id() {
            return id;
        }

        boolean matches(String method, String requestPath, String query, String secFetchDest, RequestClass cls) {
            return path.matches(requestPath)
                    && (route.methods().isEmpty() || route.methods().contains(method))
                    && (route.classes().isEmpty() || route.classes().contains(cls))
                    && (route.query() == null || hasParameter(query, route.query()))
                    && (route.secFetchDest().isEmpty() || secFetchDest != null
                            && route.secFetchDest().contains(secFetchDest.toLowerCase(Locale.ROOT)));
        }
    }

    /** How one route's path is matched. */
    private interface PathMatcher {
        boolean matches(String path);

        static PathMatcher of(Route route) {
            switch (route.match()) {
                case PREFIX:
                    String prefix = route.path();
                    return path -> path.startsWith(prefix);
                case GLOB:
                    String[] extensions = extensionsOnly(route.path());
                    if (extensions != null) {
                        return new ExtensionMatcher(extensions);
                    }
                    return regex(regexOf(route), literalPrefix(route.path(), "*?{"));
                default:
                    return regex(regexOf(route), literalPrefix(route.path(), "\\.[]{}()*+?^$|"));
            }
        }

        /**
         * A regular expression, tried only on paths that start with its literal prefix: most routes begin with a
         * literal directory ({@code /api/v[0-9]+/export}), and most paths are rejected by {@code startsWith}
         * without running the expression.
         */
        private static PathMatcher regex(String expression, String literalPrefix) {
            Pattern pattern = RegexBudget.ROUTE.compile(expression, 0);
            return path -> path.startsWith(literalPrefix) && pattern.matches(path);
        }

        /**
         * The characters before the first of {@code special}; a character before a quantifier is not literal, and an
         * alternation anywhere ({@code a|b}) leaves no prefix every match must have.
         */
        private static String literalPrefix(String pattern, String special) {
            if (special.indexOf('|') >= 0 && pattern.indexOf('|') >= 0) {
                return "";
            }
            int end = 0;
            while (end < pattern.length() && special.indexOf(pattern.charAt(end)) < 0) {
                end++;
            }
            if (end < pattern.length() && "*+?{".indexOf(pattern.charAt(end)) >= 0 && end > 0) {
                end--; // "ab*" does not require the b
            }
            return pattern.substring(0, end);
        }
    }

    /**
     * "The path's last segment ends in one of these extensions", without allocating: the extensions are grouped
     * by length, and the path's extension is compared in place with those of its length.
     */
    private static final class ExtensionMatcher implements PathMatcher {
        private final String[][] byLength;

        ExtensionMatcher(String[] extensions) {
            int longest = 0;
            for (String extension : extensions) {
                longest = Math.max(longest, extension.length());
            }
            List<List<String>> groups = new ArrayList<>();
            for (int i = 0; i <= longest; i++) {
                groups.add(new ArrayList<>());
            }
            for (String extension : extensions) {
                groups.get(extension.length()).add(extension);
            }
            this.byLength = new String[longest + 1][];
            for (int i = 0; i <= longest; i++) {
                byLength[i] = groups.get(i).toArray(new String[0]);
            }
        }

        @Override
        public boolean matches(String path) {
            int dot = path.lastIndexOf('.');
            int length = path.length() - dot - 1;
            if (dot < 0 || length >= byLength.length || path.indexOf('/', dot) >= 0) {
                return false;
            }
            for (String extension : byLength[length]) {
                if (path.regionMatches(dot + 1, extension, 0, length)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Whether {@code query} has the parameter {@code wanted} ({@code name=value} or {@code name}), exactly. */
    static boolean hasParameter(String query, String wanted) {
        if (query == null) {
            return false;
        }
        int from = 0;
        while (from <= query.length()) {
            int amp = query.indexOf('&', from);
            int to = amp < 0 ? query.length() : amp;
            if (to - from == wanted.length() && query.regionMatches(from, wanted, 0, wanted.length())) {
                return true;
            }
            if (!wanted.contains("=") && to - from > wanted.length() && query.charAt(from + wanted.length()) == '='
                    && query.regionMatches(from, wanted, 0, wanted.length())) {
                return true;
            }
            if (amp < 0) {
                return false;
            }
            from = amp + 1;
        }
        return false;
    }
}
