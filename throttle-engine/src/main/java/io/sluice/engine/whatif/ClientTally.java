package io.sluice.engine.whatif;

import io.sluice.engine.RequestClass;
import java.util.LinkedHashMap;
import java.util.Map;

/** One client's counts in a {@link Tally}. Most clients are admitted by both sides: their arrays stay null. */
final class ClientTally {
    final String ip;
    final String userAgent;
    final RequestClass requestClass;
    final String crawlerName;
    long requests;
    long differing;
    /** Requests by outcome index on each side; null while every request was admitted by both. */
    private long[] live;
    private long[] candidate;

    ClientTally(String ip, String userAgent, RequestClass requestClass, String crawlerName) {
        this.ip = ip;
        this.userAgent = userAgent;
        this.requestClass = requestClass;
        this.crawlerName = crawlerName;
    }

    /** @return true when this request made the client a differing one */
    boolean add(Outcome liveOutcome, Outcome candidateOutcome) {
        if (live == null && (liveOutcome != Outcome.ADMIT || candidateOutcome != Outcome.ADMIT)) {
            expand();
        }
        requests++;
        if (live != null) {
            live[liveOutcome.index()]++;
            candidate[candidateOutcome.index()]++;
        }
        if (liveOutcome != candidateOutcome) {
            return differing++ == 0;
        }
        return false;
    }

    void merge(ClientTally other) {
        if (live == null && other.live != null) {
            expand();
        }
        if (live != null) {
            if (other.live == null) {
                live[Outcome.ADMIT.index()] += other.requests;
                candidate[Outcome.ADMIT.index()] += other.requests;
            } else {
                for (int i = 0; i < live.length; i++) {
                    live[i] += other.live[i];
                    candidate[i] += other.candidate[i];
                }
            }
        }
        requests += other.requests;
        differing += other.differing;
    }

    private void expand() {
        live = new long[Outcome.COUNT];
        candidate = new long[Outcome.COUNT];
        live[Outcome.ADMIT.index()] = requests;
        candidate[Outcome.ADMIT.index()] = requests;
    }

    WhatIfReport.ClientDifference difference() {
        return new WhatIfReport.ClientDifference(ip, userAgent, requestClass, crawlerName, requests, differing,
                byOutcome(live), byOutcome(candidate));
    }

    private Map<String, Long> byOutcome(long[] counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (counts == null) {
            out.put(Outcome.ADMIT.label(), requests);
            return out;
        }
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != 0) {
                out.put(Outcome.byIndex(i).label(), counts[i]);
            }
        }
        return out;
    }
}
