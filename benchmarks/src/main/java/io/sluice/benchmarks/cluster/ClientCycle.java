package io.sluice.benchmarks.cluster;

import io.sluice.engine.Request;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clients of bench/front/many-clients.lua: {@code count} addresses {@code 10.A.B.C}, one user agent, asked in
 * turn; shared by every node's load, as a load balancer spreads one population of clients over the nodes.
 */
final class ClientCycle {
    private static final String USER_AGENT = "loadtest/1.0";

    private final Request[] requests;
    private final AtomicLong next = new AtomicLong();

    ClientCycle(int count) {
        requests = new Request[count];
        for (int i = 0; i < count; i++) {
            String ip = "10." + (i % 250) + "." + (i / 250 % 250) + "." + (i / 62_500 % 250 + 1);
            requests[i] = Request.direct(ip, USER_AGENT);
        }
    }

    /** The next client's request ({@code GET /}, straight from its address). */
    Request next() {
        return requests[(int) (next.getAndIncrement() % requests.length)];
    }
}
