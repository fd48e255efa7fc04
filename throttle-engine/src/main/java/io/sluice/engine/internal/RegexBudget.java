package io.sluice.engine.internal;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Locale;

/**
 * How much one kind of regular expression in the policy may cost, and the one place those expressions are
 * compiled (docs/manual/engine.md, "Regular expressions").
 *
 * <p>RE2/J matches in time linear in its input, but the constant is the compiled program: its Pike machine may
 * step every instruction for every character (measured here: 1 to 11 ns a step, the upper end for programs
 * that keep every thread alive, such as {@code (?:.?){1000}z}). So the work of one match is bounded by the
 * program's size times the longest input it is ever given, and both factors are bounded: the input by the
 * engine (user agents are cut to 512 characters) or the front end (a path fits in the request head), the
 * program here, at validation. The machine also recurses once per instruction of an empty-width path, so a
 * bounded program is a bounded stack too.
 *
 * @param kind            the kind, in the operator's words, singular ("user-agent regular expression")
 * @param input           what it is matched against, for messages ("the user agent, up to 512 characters")
 * @param maxInstructions the largest program of one expression
 * @param maxTotal        the largest programs of all expressions of this kind in one policy, together: every
 *                        request (or every new user agent) may run all of them
 */
public record RegexBudget(String kind, String input, int maxInstructions, int maxTotal) {

    /** Deeper nesting than this is refused before anything recursive runs on it. */
    public static final int MAX_DEPTH = 32;
    /** Above this estimate a pattern is refused without compiling: compiling it would be the attack. */
    static final long COMPILE_CEILING = 20_000;
    /** Instructions one validation compiles at most, over every pattern of a kind; the rest are only scanned. */
    static final long COMPILE_WORK = 100_000;

    /**
     * User-agent bans written {@code /.../}: matched once per new user agent (remembered after), against at most
     * {@link io.sluice.engine.UserAgents#MAX_LENGTH} characters: 1,000 instructions are at most 512,000
     * steps, and all of them together 1,024,000.
     */
    public static final RegexBudget AGENT = new RegexBudget("user-agent regular expression",
            "the user agent, cut to 512 characters", 1_000, 2_000);

    /**
     * Route paths written as a glob or a regular expression: matched on every request (whose literal prefix
     * they share) against the path, which the front end bounds by its request-head limit (8 KiB by default):
     * 250 instructions are at most about 2 million steps on the longest path, and all routes together 4 million;
     * on a path of ordinary length (under 100 characters) that is 25,000 and 50,000.
     */
    public static final RegexBudget ROUTE = new RegexBudget("route path pattern",
            "the request path", 250, 500);

    /**
     * Compiles {@code expression} within this budget.
     *
     * @throws IllegalArgumentException with the operator's message when it is not valid RE2 syntax or over budget
     */
    public Pattern compile(String expression, int flags) {
        Tally tally = tally();
        Pattern pattern = tally.compile(expression, flags);
        if (pattern == null) {
            throw new IllegalArgumentException(tally.lastProblem);
        }
        return pattern;
    }

    /** A fresh count of one policy's expressions of this kind. */
    public Tally tally() {
        return new Tally(this);
    }

    /**
     * Checks a policy's expressions of one kind one by one and keeps their total. Bounded whatever the input: each
     * pattern is scanned in linear time, compiled only when its estimate is below {@link #COMPILE_CEILING}, and
     * compiling stops once {@link #COMPILE_WORK} instructions were compiled (the total is then over budget anyway,
     * and said so).
     */
    public static final class Tally {
        private final RegexBudget budget;
        private long total;
        private long compiled;
        private boolean skipped;
        private String lastProblem;

        Tally(RegexBudget budget) {
            this.budget = budget;
        }

        /** The problem of {@code expression}, or null when it is valid and within its own budget. */
        public String check(String expression, int flags) {
            return compile(expression, flags) == null ? lastProblem : null;
        }

        /** The compiled expression, or null with {@link #lastProblem} set. */
        Pattern compile(String expression, int flags) {
            lastProblem = null;
            RegexShape shape = RegexShape.of(expression, MAX_DEPTH);
            if (shape.tooDeep(MAX_DEPTH)) {
                return refuse("nests groups more than " + MAX_DEPTH + " deep: remove the groups that only "
                        + "gather (a sequence needs none), or split it into several simpler expressions");
            }
            if (shape.foldLoop() && ((flags & Pattern.CASE_INSENSITIVE) != 0 || shape.inlineFold())) {
                return refuse(String.format(Locale.ROOT, "names a letter from U+%04X to U+%04X (Cyrillic letter "
                        + "variants), which RE2/J cannot match without regard to case (its case folding never "
                        + "ends for them): leave them out, and the ranges that hold "
                        + "them (\\p{Cyrillic} is fine)", RegexShape.FOLD_LOOP_FIRST, RegexShape.FOLD_LOOP_LAST));
            }
            if (shape.instructions() > COMPILE_CEILING) {
                return refuse("would compile to about " + count(shape.instructions()) + " instructions; "
                        + "a " + budget.kind + " may have at most " + count(budget.maxInstructions) + tooBig());
            }
            if (compiled + shape.instructions() > COMPILE_WORK) {
                skipped = true;
                total = Math.min(RegexShape.SATURATED, total + shape.instructions());
                return null;
            }
            compiled += shape.instructions();
            Pattern pattern;
            try {
                pattern = Pattern.compile(expression, flags);
            } catch (PatternSyntaxException e) {
                return refuse("not a valid regular expression (RE2 syntax, matched in linear time; "
                        + "back-references and look-around are not supported): " + e.getMessage());
            } catch (RuntimeException e) {
                return refuse("not a valid regular expression (RE2 syntax): " + e.getMessage());
            }
            int size = pattern.programSize();
            if (size > budget.maxInstructions) {
                return refuse("compiles to " + count(size) + " instructions; a " + budget.kind
                        + " may have at most " + count(budget.maxInstructions) + tooBig());
            }
            total += size; // only what would be installed: a refused pattern is said so on its own
            return pattern;
        }

        /**
         * The problem of all the expressions checked so far together, or null: their programs add up past the
         * total (each may run on the same request), or there were too many to check.
         */
        public String totalProblem() {
            if (skipped) {
                return "too many regular expressions to check at once: together they are far beyond "
                        + count(budget.maxTotal) + " instructions; use fewer";
            }
            if (total > budget.maxTotal) {
                return "the " + budget.kind + "s together compile to " + count(total) + " instructions, at most "
                        + count(budget.maxTotal) + " are allowed (each runs on " + budget.input
                        + "): use fewer, or merge literal alternatives into plain substrings or prefixes";
            }
            return null;
        }

        private String tooBig() {
            return " (each instruction costs a step for every character of " + budget.input + "): lower the "
                    + "{n,m} counts, do not nest repeats inside repeats (their counts multiply), or split it into "
                    + "simpler expressions";
        }

        private Pattern refuse(String problem) {
            lastProblem = problem;
            return null;
        }

        private static String count(long n) {
            return String.format(Locale.ROOT, "%,d", n);
        }
    }
}
