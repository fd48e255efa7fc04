package io.sluice.engine.classify;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds, for a regular expression, literal strings at least one of which occurs in every text the
 * expression matches: the prefilter key. The answer is lower-cased (ASCII) and meant to be looked for
 * in the ASCII-lower-cased text, which keeps it a necessary condition even for {@code [wW]get} or
 * {@code (?i)} patterns.
 *
 * <p>The analysis is deliberately small and conservative. It understands literal characters,
 * escaped punctuation, single-letter case classes ({@code [cC]}), quantifiers, anchors, groups (skipped)
 * and top-level alternation. Anything it does not understand (an escape like {@code \x41} or
 * {@code \Q}, a nested class) makes it give up, returning null: that pattern is then always run,
 * which is slower but never wrong.
 */
final class RequiredLiterals {

    private RequiredLiterals() {
    }

    /**
     * One required literal per top-level alternative (the text contains at least one of them), or null
     * when some alternative has none that can be proven.
     */
    static List<String> of(String regex) {
        for (int f = regex.indexOf("(?"); f >= 0; f = regex.indexOf("(?", f + 1)) {
            char flag = f + 2 < regex.length() ? regex.charAt(f + 2) : ')';
            if (Character.isLetter(flag) || flag == '-') {
                return null; // inline flags ((?x) comments, (?iu) Unicode case) change what a literal means
            }
        }
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        int i = 0;
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0) {
                    return null;
                }
                i = end + 1;
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == '|' && depth == 0) {
                String literal = longestInSequence(regex, start, i);
                if (literal == null) {
                    return null;
                }
                out.add(literal);
                start = i + 1;
            }
            i++;
        }
        String literal = longestInSequence(regex, start, regex.length());
        if (literal == null || depth != 0) {
            return null;
        }
        out.add(literal);
        return out;
    }

    /** The longest run of required literal characters in a sequence without top-level '|'. */
    private static String longestInSequence(String regex, int from, int to) {
        StringBuilder run = new StringBuilder();
        String best = "";
        int i = from;
        while (i < to) {
            char c = regex.charAt(i);
            int next;
            char literal;
            boolean isLiteral;
            if (c == '\\') {
                if (i + 1 >= to) {
                    return null;
                }
                char e = regex.charAt(i + 1);
                next = i + 2;
                if (Character.isLetterOrDigit(e)) {
                    if ("dDsSwWbB".indexOf(e) < 0) {
                        return null; // hex, unicode, quoting, property escapes, back references: not analysed
                    }
                    isLiteral = false;
                    literal = 0;
                } else {
                    isLiteral = true;
                    literal = e;
                }
            } else if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0 || end >= to) {
                    return null;
                }
                next = end + 1;
                char letter = caseClassLetter(regex, i + 1, end);
                isLiteral = letter != 0;
                literal = letter;
            } else if (c == '(') {
                int end = groupEnd(regex, i, to);
                if (end < 0) {
                    return null;
                }
                next = end + 1;
                isLiteral = false;
                literal = 0;
            } else if (".^$".indexOf(c) >= 0) {
                next = i + 1;
                isLiteral = false;
                literal = 0;
            } else if ("?*+{})]|".indexOf(c) >= 0) {
                return null; // a quantifier with nothing before it, or an unbalanced bracket
            } else {
                next = i + 1;
                isLiteral = true;
                literal = c;
            }
            // what quantifies this atom?
            boolean optional = false;
            boolean repeated = false;
            if (next < to) {
                char q = regex.charAt(next);
                if (q == '?' || q == '*') {
                    optional = true;
                    next++;
                } else if (q == '+') {
                    repeated = true;
                    next++;
                } else if (q == '{') {
                    int close = regex.indexOf('}', next);
                    if (close < 0 || close >= to) {
                        return null;
                    }
                    String body = regex.substring(next + 1, close);
                    if (!body.matches("\\d+(,\\d*)?")) {
                        return null;
                    }
                    optional = body.startsWith("0") && (body.length() == 1 || body.charAt(1) == ',');
                    repeated = true;
                    next = close + 1;
                }
                if ((optional || repeated) && next < to && (regex.charAt(next) == '?' || regex.charAt(next) == '+')) {
                    next++; // lazy or possessive: same required text
                }
            }
            if (isLiteral && !optional) {
                run.append(lower(literal));
                if (repeated) {
                    best = longer(best, run);
                    run.setLength(0);
                }
            } else {
                best = longer(best, run);
                run.setLength(0);
            }
            i = next;
        }
        best = longer(best, run);
        return best.isEmpty() ? null : best;
    }

    private static String longer(String best, StringBuilder run) {
        return run.length() > best.length() ? run.toString() : best;
    }

    /** For a class body of exactly one letter in both cases ({@code wW}, {@code Ww}), that letter. */
    private static char caseClassLetter(String regex, int from, int to) {
        if (to - from != 2) {
            return 0;
        }
        char a = regex.charAt(from);
        char b = regex.charAt(from + 1);
        if (a != b && isAsciiLetter(a) && lower(a) == lower(b)) {
            return lower(a);
        }
        return 0;
    }

    /** Index of the ']' closing the class opened at {@code open}, or -1 (also for nested classes). */
    static int classEnd(String regex, int open) {
        int i = open + 1;
        if (i < regex.length() && regex.charAt(i) == '^') {
            i++;
        }
        if (i < regex.length() && regex.charAt(i) == ']') {
            i++; // a leading ']' is literal
        }
        while (i < regex.length()) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == '[') {
                return -1;
            }
            if (c == ']') {
                return i;
            }
            i++;
        }
        return -1;
    }

    private static int groupEnd(String regex, int open, int to) {
        int depth = 0;
        int i = open;
        while (i < to) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0) {
                    return -1;
                }
                i = end + 1;
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
            i++;
        }
        return -1;
    }

    private static boolean isAsciiLetter(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
    }
}
