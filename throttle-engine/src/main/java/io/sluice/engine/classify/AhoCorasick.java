package io.sluice.engine.classify;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds which of a fixed set of literals occur in a text, in one pass over the text (Aho-Corasick
 * compiled to a full transition table). The text is lower-cased (ASCII) on the fly; literals are
 * given lower-cased.
 *
 * <p>Memory: the transition table has one row per trie node over a compact alphabet (only the
 * characters that occur in some literal get a column; every other character leads back to the root),
 * so about 1,500 crawler literals cost a few MB of {@code int}s, read sequentially per character.
 */
final class AhoCorasick {

    private final int[] column = new int[128]; // ASCII char -> alphabet column; 0 = not in any literal
    private final int width;
    private final int[] next;       // state * width + column -> state
    private final int[][] outputs;  // literal ids ending at a state, including via suffix links
    private final int literalCount;

    AhoCorasick(List<String> literals) {
        literalCount = literals.size();
        int columns = 1;
        char[] nonAscii = new char[0];
        for (String literal : literals) {
            for (int i = 0; i < literal.length(); i++) {
                char c = literal.charAt(i);
                if (c < 128) {
                    if (column[c] == 0) {
                        column[c] = columns++;
                    }
                } else if (Arrays.binarySearch(nonAscii, c) < 0) {
                    nonAscii = Arrays.copyOf(nonAscii, nonAscii.length + 1);
                    nonAscii[nonAscii.length - 1] = c;
                    Arrays.sort(nonAscii);
                }
            }
        }
        this.nonAsciiChars = nonAscii;
        this.nonAsciiBase = columns;
        width = columns + nonAscii.length;

        // trie
        List<int[]> rows = new ArrayList<>();
        List<List<Integer>> ends = new ArrayList<>();
        rows.add(new int[width]);
        ends.add(new ArrayList<>());
        for (int id = 0; id < literals.size(); id++) {
            String literal = literals.get(id);
            int state = 0;
            for (int i = 0; i < literal.length(); i++) {
                int col = columnOf(literal.charAt(i));
                int target = rows.get(state)[col];
                if (target == 0) {
                    target = rows.size();
                    rows.add(new int[width]);
                    ends.add(new ArrayList<>());
                    rows.get(state)[col] = target;
                }
                state = target;
            }
            ends.get(state).add(id);
        }

        // breadth-first: failure links folded into the table, outputs merged along them
        int states = rows.size();
        int[] fail = new int[states];
        next = new int[states * width];
        outputs = new int[states][];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        outputs[0] = toArray(ends.get(0));
        for (int col = 0; col < width; col++) {
            int child = rows.get(0)[col];
            next[col] = child;
            if (child != 0) {
                fail[child] = 0;
                queue.add(child);
            }
        }
        while (!queue.isEmpty()) {
            int state = queue.poll();
            List<Integer> out = new ArrayList<>(ends.get(state));
            for (int id : outputs[fail[state]]) {
                out.add(id);
            }
            outputs[state] = toArray(out);
            for (int col = 0; col < width; col++) {
                int child = rows.get(state)[col];
                if (child != 0) {
                    fail[child] = next[fail[state] * width + col]; // not yet sign-marked here
                    next[state * width + col] = child;
                    queue.add(child);
                } else {
                    next[state * width + col] = next[fail[state] * width + col];
                }
            }
        }
        // mark transitions into states with output by the sign bit, so the scan loop reads one array
        for (int i = 0; i < next.length; i++) {
            if (outputs[next[i]].length > 0) {
                next[i] |= Integer.MIN_VALUE;
            }
        }
    }

    private final char[] nonAsciiChars;
    private final int nonAsciiBase;

    int literalCount() {
        return literalCount;
    }

    int stateCount() {
        return outputs.length;
    }

    /** Calls {@code sink} with the id of each literal occurring in {@code text} (repeats possible). */
    void scan(String text, IntSink sink) {
        int state = 0;
        int[] table = next;
        int w = width;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            int col;
            if (c < 128) {
                col = column[c >= 'A' && c <= 'Z' ? c + 32 : c];
            } else {
                col = columnOf(c);
            }
            int target = table[state * w + col];
            state = target & Integer.MAX_VALUE;
            if (target < 0) {
                for (int id : outputs[state]) {
                    sink.accept(id);
                }
            }
        }
    }

    private int columnOf(char c) {
        if (c < 128) {
            return column[c];
        }
        int at = Arrays.binarySearch(nonAsciiChars, c);
        return at < 0 ? 0 : nonAsciiBase + at;
    }

    private static int[] toArray(List<Integer> list) {
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }

    /** Receives literal ids; a functional interface so scanning allocates nothing. */
    @FunctionalInterface
    interface IntSink {
        void accept(int id);
    }
}
