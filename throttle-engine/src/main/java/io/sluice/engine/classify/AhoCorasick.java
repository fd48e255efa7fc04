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
 * <p>The scan is a chain of dependent loads, one per character, so its speed is the memory latency of
 * the table. The table is kept small and hot: one column per character that occurs in some literal
 * (every other character leads back to the root), 16-bit cells (the top bit marks "a literal ends
 * here", so the loop reads one array), and states numbered breadth-first so the shallow states that
 * ordinary text keeps visiting sit together at the front. About 1,500 crawler literals give some
 * 14,000 states: when there are more than 32,767, cells fall back to {@code int}.
 */
final class AhoCorasick {

    private static final int[] NONE = new int[0];

    private final int[] column = new int[128]; // ASCII char -> alphabet column; 0 = in no literal
    private final char[] nonAsciiChars;
    private final int nonAsciiBase;
    private final int width;
    private final char[] narrow;   // state * width + column -> next state | 0x8000 if it has output
    private final int[] wide;      // the same with int cells (flag 0x80000000), when states exceed 15 bits
    private final int[][] outputs; // literal ids ending at a state, including via suffix links
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
        nonAsciiChars = nonAscii;
        nonAsciiBase = columns;
        width = columns + nonAscii.length;

        // 1. the trie, in insertion numbering
        List<int[]> children = new ArrayList<>();
        List<List<Integer>> ends = new ArrayList<>();
        children.add(new int[width]);
        ends.add(new ArrayList<>());
        for (int id = 0; id < literals.size(); id++) {
            String literal = literals.get(id);
            int state = 0;
            for (int i = 0; i < literal.length(); i++) {
                int col = columnOf(literal.charAt(i));
                int target = children.get(state)[col];
                if (target == 0) {
                    target = children.size();
                    children.add(new int[width]);
                    ends.add(new ArrayList<>());
                    children.get(state)[col] = target;
                }
                state = target;
            }
            ends.get(state).add(id);
        }
        int states = children.size();

        // 2. breadth-first renumbering: order[newId] = oldId
        int[] order = new int[states];
        int[] renumber = new int[states];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(0);
        int assigned = 0;
        while (!queue.isEmpty()) {
            int old = queue.poll();
            renumber[old] = assigned;
            order[assigned++] = old;
            for (int child : children.get(old)) {
                if (child != 0) {
                    queue.add(child);
                }
            }
        }

        // 3. failure links folded into a full table, outputs merged along them (breadth-first = new order)
        int[] fail = new int[states];
        int[] next = new int[states * width];
        outputs = new int[states][];
        for (int s = 0; s < states; s++) {
            int old = order[s];
            int[] kids = children.get(old);
            if (s == 0) {
                outputs[0] = toArray(ends.get(old), NONE);
                for (int col = 0; col < width; col++) {
                    next[col] = kids[col] == 0 ? 0 : renumber[kids[col]];
                }
                continue;
            }
            outputs[s] = toArray(ends.get(old), outputs[fail[s]]);
            for (int col = 0; col < width; col++) {
                if (kids[col] != 0) {
                    int child = renumber[kids[col]];
                    next[s * width + col] = child;
                    fail[child] = next[fail[s] * width + col];
                } else {
                    next[s * width + col] = next[fail[s] * width + col];
                }
            }
        }

        if (states <= 0x7FFF) {
            narrow = new char[next.length];
            for (int i = 0; i < next.length; i++) {
                narrow[i] = (char) (next[i] | (outputs[next[i]].length > 0 ? 0x8000 : 0));
            }
            wide = null;
        } else {
            for (int i = 0; i < next.length; i++) {
                if (outputs[next[i]].length > 0) {
                    next[i] |= Integer.MIN_VALUE;
                }
            }
            wide = next;
            narrow = null;
        }
    }

    int literalCount() {
        return literalCount;
    }

    int stateCount() {
        return outputs.length;
    }

    /** Calls {@code sink} with the id of each literal occurring in {@code text} (repeats possible). */
    void scan(String text, IntSink sink) {
        if (narrow == null) {
            scanWide(text, sink);
            return;
        }
        char[] table = narrow;
        int[] columns = column;
        int w = width;
        int state = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            int col = c < 128 ? columns[c >= 'A' && c <= 'Z' ? c + 32 : c] : columnOf(c);
            int target = table[state * w + col];
            state = target & 0x7FFF;
            if (target >= 0x8000) {
                for (int id : outputs[state]) {
                    sink.accept(id);
                }
            }
        }
    }

    private void scanWide(String text, IntSink sink) {
        int[] table = wide;
        int w = width;
        int state = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            int col = c < 128 ? column[c >= 'A' && c <= 'Z' ? c + 32 : c] : columnOf(c);
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

    private static int[] toArray(List<Integer> own, int[] inherited) {
        if (own.isEmpty()) {
            return inherited;
        }
        int[] out = Arrays.copyOf(inherited, inherited.length + own.size());
        for (int i = 0; i < own.size(); i++) {
            out[inherited.length + i] = own.get(i);
        }
        return out;
    }

    /** Receives literal ids; a functional interface so scanning allocates nothing. */
    @FunctionalInterface
    interface IntSink {
        void accept(int id);
    }
}
