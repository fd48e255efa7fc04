package io.sluice.engine.whatif;

import io.sluice.engine.ClientInfo;
import io.sluice.engine.RequestClass;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The counting both ways share (live shadow and replay): per class and outcome on each side, and per client.
 * The per-client table is bounded: a client first seen when it is full is counted in the totals and in
 * {@code untrackedRequests} only. Not thread-safe: the run's thread owns it.
 */
final class Tally {
    private static final RequestClass[] CLASSES = RequestClass.values();

    private final int maxClients;
    private final long[][] live = new long[CLASSES.length][Outcome.COUNT];
    private final long[][] candidate = new long[CLASSES.length][Outcome.COUNT];
    private final Map<ClientId, ClientTally> clients = new HashMap<>();
    /** The clients that differ, in the order they started to (a subset of {@link #clients}). */
    private final List<ClientTally> differing = new ArrayList<>();
    private long requests;
    private long untrackedRequests;
    private long firstMillis = Long.MAX_VALUE;
    private long lastMillis = Long.MIN_VALUE;

    private record ClientId(String ip, String userAgent) {
    }

    Tally(int maxClients) {
        this.maxClients = maxClients;
    }

    /** One request judged by both sides; {@code client} is the candidate's view of who sent it. */
    void record(long atMillis, ClientInfo client, Outcome liveOutcome, Outcome candidateOutcome) {
        requests++;
        firstMillis = Math.min(firstMillis, atMillis);
        lastMillis = Math.max(lastMillis, atMillis);
        int cls = client.requestClass().ordinal();
        live[cls][liveOutcome.index()]++;
        candidate[cls][candidateOutcome.index()]++;
        ClientId id = new ClientId(client.ip(), client.userAgent());
        ClientTally tally = clients.get(id);
        if (tally == null) {
            if (clients.size() >= maxClients) {
                untrackedRequests++;
                return;
            }
            tally = new ClientTally(client.ip(), client.userAgent(), client.requestClass(), client.crawlerName());
            clients.put(id, tally);
        }
        if (tally.add(liveOutcome, candidateOutcome)) {
            differing.add(tally);
        }
    }

    /** Adds {@code other}'s counts to this one (for a window made of several tallies). */
    void addAll(Tally other) {
        requests += other.requests;
        untrackedRequests += other.untrackedRequests;
        firstMillis = Math.min(firstMillis, other.firstMillis);
        lastMillis = Math.max(lastMillis, other.lastMillis);
        for (int c = 0; c < CLASSES.length; c++) {
            for (int o = 0; o < Outcome.COUNT; o++) {
                live[c][o] += other.live[c][o];
                candidate[c][o] += other.candidate[c][o];
            }
        }
        for (Map.Entry<ClientId, ClientTally> entry : other.clients.entrySet()) {
            ClientTally theirs = entry.getValue();
            ClientTally mine = clients.get(entry.getKey());
            if (mine == null) {
                mine = new ClientTally(theirs.ip, theirs.userAgent, theirs.requestClass, theirs.crawlerName);
                clients.put(entry.getKey(), mine);
            }
            boolean wasDiffering = mine.differing > 0;
            mine.merge(theirs);
            if (!wasDiffering && mine.differing > 0) {
                differing.add(mine);
            }
        }
    }

    long requests() {
        return requests;
    }

    long refused(boolean liveSide) {
        long[][] counts = liveSide ? live : candidate;
        long refused = 0;
        for (long[] byOutcome : counts) {
            for (int o = 0; o < Outcome.COUNT; o++) {
                if (Outcome.byIndex(o).isRefusal()) {
                    refused += byOutcome[o];
                }
            }
        }
        return refused;
    }

    /** Adds the differing clients' addresses and user agents to {@code seen}; returns how many were browsers. */
    int collectDiffering(Set<String> seen, Set<String> browsers) {
        for (ClientTally tally : differing) {
            String key = tally.ip + '|' + tally.userAgent;
            seen.add(key);
            if (tally.requestClass == RequestClass.BROWSER) {
                browsers.add(key);
            }
        }
        return browsers.size();
    }

    long firstMillis() {
        return firstMillis;
    }

    long lastMillis() {
        return lastMillis;
    }

    /**
     * The report over this tally.
     *
     * @param limit the most differing clients listed
     */
    WhatIfReport report(String source, String baseline, Instant from, Instant to, int limit, long dropped,
                        long skipped, List<String> notes) {
        List<WhatIfReport.OutcomeRow> rows = new ArrayList<>();
        for (int c = 0; c < CLASSES.length; c++) {
            for (int o = 0; o < Outcome.COUNT; o++) {
                if (live[c][o] != 0 || candidate[c][o] != 0) {
                    rows.add(new WhatIfReport.OutcomeRow(CLASSES[c], Outcome.byIndex(o).label(), live[c][o],
                            candidate[c][o]));
                }
            }
        }
        Set<String> seen = new HashSet<>();
        Set<String> browsers = new HashSet<>();
        collectDiffering(seen, browsers);
        List<WhatIfReport.ClientDifference> listed = differing.stream()
                .sorted(Comparator.comparing((ClientTally t) -> t.requestClass != RequestClass.BROWSER)
                        .thenComparing(t -> -t.differing)
                        .thenComparing(t -> -t.requests)
                        .thenComparing(t -> t.ip)
                        .thenComparing(t -> t.userAgent))
                .limit(limit)
                .map(ClientTally::difference)
                .toList();
        return new WhatIfReport(source, from, to, baseline, requests, refused(true), refused(false), seen.size(),
                browsers.size(), List.copyOf(rows), listed, untrackedRequests, dropped, skipped, List.copyOf(notes));
    }
}
