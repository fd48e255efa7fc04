package io.sluice.engine.internal;

/**
 * What a regular expression will cost RE2/J, read from its text before it is compiled: how deep its groups
 * nest and an upper bound of the instructions of its compiled program.
 *
 * <p>Why before compiling. RE2/J checks each repeat count ({@code <= 1000}) but not their product, and expands
 * every repeat into copies while compiling: {@code ((a{1000}){1000}){1000}} is a billion copies of {@code a}, an
 * {@code OutOfMemoryError} before any check could look at the program. Its simplifier and compiler also recurse
 * once per level of nesting. RE2 itself refuses both (a cap on nested repeats, a memory budget for the program);
 * this is our equivalent: one pass over the text, a stack as deep as the nesting allowed, no allocation that
 * grows with the pattern's meaning. The bound is deliberately loose in the expensive direction (a repeat
 * {@code x{n,m}} counts {@code max(n,m)} copies of {@code x} plus one instruction each); the exact size is read
 * from the compiled program afterwards (docs/manual/engine.md, "Regular expressions").
 *
 * <p>It also finds what makes RE2/J 1.8 loop forever: its case folding follows a letter's orbit of equivalent
 * letters until it comes back, and for {@link #FOLD_LOOP_FIRST} to {@link #FOLD_LOOP_LAST} (Cyrillic letter variants
 * that its tables predate; the JDK maps them into the orbit of another letter) it never does. So one of those
 * letters, or a range holding one, in an expression matched without regard to case hangs the compiling thread
 * (found by the fuzz test; {@code PolicyFuzzTest} recomputes the range from RE2/J). Unicode classes such as
 * {@code \p{Cyrillic}} are folded from a table and are safe.
 *
 * @param depth        how deep its groups nest (0 for none); past {@code maxDepth} the scan stops, and this is
 *                     {@code maxDepth + 1}
 * @param instructions an upper bound of the compiled program's instructions, saturated at {@link #SATURATED}
 * @param foldLoop     it names a letter RE2/J cannot fold (literally, by {@code \x}, or in a range)
 * @param inlineFold   it turns case folding on itself ({@code (?i)})
 */
public record RegexShape(int depth, long instructions, boolean foldLoop, boolean inlineFold) {

    /** The first and last letter whose case-folding orbit never closes in RE2/J 1.8. */
    public static final int FOLD_LOOP_FIRST = 0x1C80;
    public static final int FOLD_LOOP_LAST = 0x1C88;

    /** Where the count stops growing: far beyond any limit, far below overflow. */
    public static final long SATURATED = 1L << 40;

    /** Instructions every program has besides its pattern's: the failure and match instructions, capture 0. */
    private static final int PROGRAM_OVERHEAD = 4;

    /** A pattern that nests deeper than {@code maxDepth}: the scan stopped there. */
    public boolean tooDeep(int maxDepth) {
        return depth > maxDepth;
    }

    /** Scans {@code expression} (RE2 syntax) in time linear in its length and memory linear in {@code maxDepth}. */
    public static RegexShape of(String expression, int maxDepth) {
        return new Scan(expression, maxDepth).run();
    }

    /** One pass over the text; a frame per open group. */
    private static final class Scan {
        private final String text;
        private final int maxDepth;
        /** Per open group: the finished alternatives, the sequence being read, its last atom, capturing. */
        private final long[] alternatives;
        private final long[] sequence;
        private final long[] lastAtom;
        private final boolean[] capturing;
        private int depth;
        private int deepest;
        private int at;
        private boolean foldLoop;
        private boolean inlineFold;

        Scan(String text, int maxDepth) {
            this.text = text;
            this.maxDepth = maxDepth;
            this.alternatives = new long[maxDepth + 1];
            this.sequence = new long[maxDepth + 1];
            this.lastAtom = new long[maxDepth + 1];
            this.capturing = new boolean[maxDepth + 1];
        }

        RegexShape run() {
            while (at < text.length()) {
                char c = text.charAt(at);
                switch (c) {
                    case '(' -> {
                        if (depth == maxDepth) {
                            return new RegexShape(maxDepth + 1, SATURATED, foldLoop, inlineFold);
                        }
                        openGroup();
                    }
                    case ')' -> closeGroup();
                    case '|' -> {
                        // an alternation instruction per branch, and an empty branch still compiles to one
                        alternatives[depth] = add(alternatives[depth], add(sequence[depth], 2));
                        sequence[depth] = 0;
                        lastAtom[depth] = 0;
                        at++;
                    }
                    case '*', '+', '?' -> {
                        repeat(0, 1);
                        at++;
                        skipLazy();
                    }
                    case '{' -> braces();
                    case '[' -> {
                        skipClass();
                        atom(1);
                    }
                    case '\\' -> escape();
                    default -> {
                        foldLoop |= unfoldable(c);
                        at++;
                        atom(1);
                    }
                }
            }
            // Unclosed groups are RE2/J's syntax error to report; count them as if closed.
            while (depth > 0) {
                closeGroup();
            }
            long total = add(add(alternatives[0], sequence[0]), PROGRAM_OVERHEAD);
            return new RegexShape(deepest, total, foldLoop, inlineFold);
        }

        private void openGroup() {
            boolean capture = true;
            if (at + 1 < text.length() && text.charAt(at + 1) == '?') {
                int end = at + 2;
                if (end < text.length() && (text.charAt(end) == 'P' || text.charAt(end) == '<')) {
                    // (?P<name>...) and (?<name>...) capture
                    int close = text.indexOf('>', end);
                    at = close < 0 ? text.length() : close + 1;
                    push(true);
                    return;
                }
                while (end < text.length() && text.charAt(end) != ':' && text.charAt(end) != ')') {
                    inlineFold |= text.charAt(end) == 'i';
                    end++;
                }
                if (end >= text.length() || text.charAt(end) == ')') {
                    // (?i): flags for the rest of the group, no atom
                    at = end + 1;
                    return;
                }
                capture = false;
                at = end + 1;
            } else {
                at++;
            }
            push(capture);
        }

        private void push(boolean capture) {
            depth++;
            deepest = Math.max(deepest, depth);
            alternatives[depth] = 0;
            sequence[depth] = 0;
            lastAtom[depth] = 0;
            capturing[depth] = capture;
        }

        private void closeGroup() {
            at++;
            if (depth == 0) {
                return; // an unmatched ')': RE2/J refuses it
            }
            long size = add(add(alternatives[depth], sequence[depth]), capturing[depth] ? 3 : 1);
            depth--;
            atom(size);
        }

        private void atom(long size) {
            sequence[depth] = add(sequence[depth], size);
            lastAtom[depth] = size;
        }

        /** The last atom becomes {@code times} copies of itself plus an instruction each, plus {@code extra}. */
        private void repeat(long times, long extra) {
            long last = lastAtom[depth];
            long copies = Math.max(1, times);
            long repeated = add(multiply(copies, add(last, 1)), extra);
            sequence[depth] = add(sequence[depth] - last, repeated);
            lastAtom[depth] = repeated;
        }

        /** {@code {n}}, {@code {n,}} or {@code {n,m}}; anything else is a literal brace, as in RE2. */
        private void braces() {
            int end = at + 1;
            long min = 0;
            long max = -1;
            int digits = 0;
            while (end < text.length() && Character.isDigit(text.charAt(end))) {
                min = Math.min(SATURATED, min * 10 + (text.charAt(end) - '0'));
                end++;
                digits++;
            }
            boolean valid = digits > 0 && end < text.length();
            if (valid && text.charAt(end) == ',') {
                end++;
                int maxDigits = 0;
                long value = 0;
                while (end < text.length() && Character.isDigit(text.charAt(end))) {
                    value = Math.min(SATURATED, value * 10 + (text.charAt(end) - '0'));
                    end++;
                    maxDigits++;
                }
                max = maxDigits > 0 ? value : -1;
            } else {
                max = min;
            }
            if (!valid || end >= text.length() || text.charAt(end) != '}') {
                at++;
                atom(1);
                return;
            }
            at = end + 1;
            repeat(max < 0 ? add(min, 1) : Math.max(min, max), 1);
            skipLazy();
        }

        private void skipLazy() {
            if (at < text.length() && text.charAt(at) == '?') {
                at++;
            }
        }

        /** A bracket expression compiles to one instruction, however many ranges it holds. */
        private void skipClass() {
            int i = at + 1;
            if (i < text.length() && text.charAt(i) == '^') {
                i++;
            }
            if (i < text.length() && text.charAt(i) == ']') {
                i++;
            }
            int previous = -1; // the last single letter, which a '-' makes the start of a range
            while (i < text.length() && text.charAt(i) != ']') {
                char c = text.charAt(i);
                if (c == '\\') {
                    int end = afterEscape(i);
                    previous = escapedLetter(i, end);
                    i = end;
                } else if (c == '[' && i + 1 < text.length() && text.charAt(i + 1) == ':') {
                    int close = text.indexOf(":]", i + 2);
                    i = close < 0 ? i + 1 : close + 2;
                    previous = -1;
                } else if (c == '-' && previous >= 0 && i + 1 < text.length() && text.charAt(i + 1) != ']') {
                    int end = text.charAt(i + 1) == '\\' ? afterEscape(i + 1) : i + 2;
                    int last = text.charAt(i + 1) == '\\' ? escapedLetter(i + 1, end) : text.charAt(i + 1);
                    foldLoop |= last >= FOLD_LOOP_FIRST && previous <= FOLD_LOOP_LAST;
                    previous = -1;
                    i = end;
                } else {
                    foldLoop |= unfoldable(c);
                    previous = c;
                    i++;
                }
            }
            at = Math.min(text.length(), i + 1);
        }

        private static boolean unfoldable(int letter) {
            return letter >= FOLD_LOOP_FIRST && letter <= FOLD_LOOP_LAST;
        }

        /**
         * The letter the escape {@code text[start, end)} stands for ({@code \x{1C80}}, {@code \]}), or -1 for a class
         * ({@code \d}, {@code \p{Cyrillic}}); notes a fold loop it may bring.
         */
        private int escapedLetter(int start, int end) {
            String escape = text.substring(start, end);
            if (escape.length() < 2) {
                return -1;
            }
            char kind = escape.charAt(1);
            if (kind == 'x') {
                String hex = escape.startsWith("\\x{") ? escape.substring(3, Math.max(3, escape.length() - 1))
                        : escape.substring(2);
                int letter;
                try {
                    letter = hex.length() > 8 ? -1 : Integer.parseInt(hex, 16);
                } catch (NumberFormatException e) {
                    letter = -1;
                }
                foldLoop |= unfoldable(letter);
                return letter;
            }
            if (Character.isLetterOrDigit(kind)) {
                return -1; // \d, \w, \s, octal (ASCII); \p{Name}, whose folding RE2/J takes from a table
            }
            return kind; // an escaped punctuation mark
        }

        private void escape() {
            if (at + 1 < text.length() && text.charAt(at + 1) == 'Q') {
                // \Q...\E: every character literal, a quantifier after it repeats the last one
                int end = text.indexOf("\\E", at + 2);
                int stop = end < 0 ? text.length() : end;
                for (int i = at + 2; i < stop; i++) {
                    foldLoop |= unfoldable(text.charAt(i));
                    atom(1);
                }
                at = end < 0 ? text.length() : end + 2;
                return;
            }
            int end = afterEscape(at);
            escapedLetter(at, end);
            at = end;
            atom(1);
        }

        /** The index after the escape starting at {@code i} ({@code \p{Greek}}, {@code \x{263a}}, {@code \123}). */
        private int afterEscape(int i) {
            int next = i + 1;
            if (next >= text.length()) {
                return text.length();
            }
            char kind = text.charAt(next);
            if ((kind == 'p' || kind == 'P' || kind == 'x') && next + 1 < text.length()
                    && text.charAt(next + 1) == '{') {
                int close = text.indexOf('}', next + 2);
                return close < 0 ? text.length() : close + 1;
            }
            if (kind == 'x') {
                return Math.min(text.length(), next + 3);
            }
            if (kind == 'p' || kind == 'P') {
                return Math.min(text.length(), next + 2);
            }
            if (kind >= '0' && kind <= '7') {
                int end = next + 1;
                while (end < text.length() && end < next + 3 && text.charAt(end) >= '0' && text.charAt(end) <= '7') {
                    end++;
                }
                return end;
            }
            return next + 1;
        }

        private static long add(long a, long b) {
            return Math.min(SATURATED, a + b);
        }

        private static long multiply(long a, long b) {
            if (a != 0 && b > SATURATED / a) {
                return SATURATED;
            }
            return Math.min(SATURATED, a * b);
        }
    }
}
