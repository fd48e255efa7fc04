package io.sluice.server.botauth;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A directory fetcher a test answers by hand: every fetch is recorded and left pending until answered. */
final class FakeFetcher implements DirectoryFetcher {

    record Call(URI uri, CompletableFuture<Fetched> answer) {
        void answer(String body, Long maxAge) {
            answer.complete(new Fetched(body.getBytes(StandardCharsets.UTF_8), maxAge));
        }

        void fail() {
            answer.completeExceptionally(new IllegalStateException("status 503"));
        }
    }

    final List<Call> calls = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<Fetched> fetch(URI uri) {
        CompletableFuture<Fetched> answer = new CompletableFuture<>();
        calls.add(new Call(uri, answer));
        return answer;
    }

    synchronized Call last() {
        return calls.get(calls.size() - 1);
    }

    synchronized int count() {
        return calls.size();
    }
}
