package io.sluice.engine.governor;

import java.util.ArrayList;
import java.util.List;

/** The last statuses a domain answered, oldest first. Guarded by its domain's lock. */
final class StatusHistory {
    static final int SIZE = 50;

    private final int[] statuses = new int[SIZE];
    private int count;
    private int next;

    void add(int status) {
        statuses[next] = status;
        next = (next + 1) % SIZE;
        count = Math.min(SIZE, count + 1);
    }

    List<Integer> oldestFirst() {
        List<Integer> list = new ArrayList<>(count);
        int start = (next - count + SIZE) % SIZE;
        for (int i = 0; i < count; i++) {
            list.add(statuses[(start + i) % SIZE]);
        }
        return list;
    }

    void clear() {
        count = 0;
        next = 0;
    }
}
