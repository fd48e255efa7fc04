package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.DoubleConsumer;
import java.util.function.Supplier;

/**
 * A discrete-event simulation of crawler workers, the governor and simulated sites, on simulated
 * time: minutes of crawling run in milliseconds and every run with the same seed is the same.
 *
 * <p>Workers share a frontier of domains. A worker takes the domain that is ready first, asks the
 * governor, and on "wait N ms" puts the domain back N ms later and takes another; on a grant it
 * fetches (the domain is out of the frontier while its fetch is in flight unless
 * {@code parallelPerDomain}), reports the answer and puts the domain back.
 *
 * <p>Workers poll, as real ones do over HTTP: a worker told to wait comes back after
 * {@code waitMillis} plus its own round trip to the permit API (a random 1 ms to
 * {@link #polling(long) maxPollDelayMillis}), never exactly on the slot. {@code polling(0)} models
 * workers whose call the server holds and answers the instant the slot opens.
 */
final class CrawlSimulation {
    private static final long MILLI = 1_000_000L;

    /** Every {@code periodSeconds}, until the run ends, hands {@code probe} the simulated time. */
    CrawlSimulation every(double periodSeconds, double untilSeconds, DoubleConsumer probe) {
        for (double t = periodSeconds; t <= untilSeconds; t += periodSeconds) {
            double at = t;
            at(at, () -> probe.accept(at));
        }
        return this;
    }

    /** One answered request, as the workers saw it. */
    record Fetch(long grantedNanos, String domain, int status, long latencyMillis) {
        double seconds() {
            return grantedNanos / 1e9;
        }
    }

    private record Event(long at, long seq, Runnable action) {
    }

    final SimClock clock = new SimClock();
    final CrawlGovernor governor;
    private final Map<String, SimSite> sites = new HashMap<>();
    private final PriorityQueue<Event> events = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private final PriorityQueue<long[]> frontier = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    private final List<String> domainIndex = new ArrayList<>();
    private final List<Integer> idleWorkers = new ArrayList<>();
    private final List<Fetch> fetches = new ArrayList<>();
    private final boolean parallelPerDomain;
    private final SplittableRandom pollRandom;
    private long maxPollDelayMillis = 20;
    private long seq;

    CrawlSimulation(Supplier<GovernorPolicy> policy, long seed, boolean parallelPerDomain) {
        this.governor = new CrawlGovernor(clock, policy, new SplittableRandom(seed), 10_000, Map.of());
        this.parallelPerDomain = parallelPerDomain;
        this.pollRandom = new SplittableRandom(seed + 1);
    }

    /** Workers come back 1 to {@code maxDelayMillis} after they were told; 0: the instant they were told. */
    CrawlSimulation polling(long maxDelayMillis) {
        this.maxPollDelayMillis = maxDelayMillis;
        return this;
    }

    /** One domain crawled by every worker at once: the fleet of independent workers of the issue. */
    static CrawlSimulation fleet(GovernorPolicy policy, long seed) {
        return new CrawlSimulation(() -> policy, seed, true);
    }

    CrawlSimulation site(String domain, SimSite site) {
        sites.put(domain, site);
        domainIndex.add(domain);
        frontier.add(new long[] {0, domainIndex.size() - 1});
        return this;
    }

    CrawlSimulation workers(int count) {
        for (int i = 0; i < count; i++) {
            idleWorkers.add(i);
        }
        return this;
    }

    /** Runs until {@code seconds} of simulated time have passed. */
    CrawlSimulation runFor(double seconds) {
        long end = clock.nanos() + (long) (seconds * 1e9);
        schedule(clock.nanos(), this::dispatch);
        while (!events.isEmpty() && events.peek().at <= end) {
            Event event = events.poll();
            clock.setNanos(event.at);
            event.action.run();
        }
        clock.setNanos(end);
        return this;
    }

    /** Schedules {@code action} at {@code atSeconds} of simulated time (e.g. a site changing). */
    CrawlSimulation at(double atSeconds, Runnable action) {
        schedule((long) (atSeconds * 1e9), action);
        return this;
    }

    List<Fetch> fetches() {
        return fetches;
    }

    private void dispatch() {
        while (!idleWorkers.isEmpty() && !frontier.isEmpty()) {
            int worker = idleWorkers.remove(idleWorkers.size() - 1);
            long[] next = frontier.poll();
            String domain = domainIndex.get((int) next[1]);
            if (parallelPerDomain) {
                frontier.add(next); // every worker may take the same domain
            }
            schedule(Math.max(next[0], clock.nanos()), () -> attempt(worker, domain));
        }
    }

    private void attempt(int worker, String domain) {
        Permit permit = governor.acquire(domain);
        if (permit.reason() == PermitReason.GIVEN_UP) {
            idleWorkers.add(worker); // the domain leaves the frontier for good
            if (parallelPerDomain) {
                frontier.removeIf(entry -> domainIndex.get((int) entry[1]).equals(domain));
            }
            dispatch();
            return;
        }
        if (!permit.granted()) {
            release(worker, domain, clock.nanos() + permit.waitMillis() * MILLI + pollDelay());
            return;
        }
        long granted = clock.nanos();
        SimSite.Answer answer = sites.get(domain).answer(granted);
        schedule(granted + answer.latencyMillis() * MILLI, () -> {
            fetches.add(new Fetch(granted, domain, answer.status(), answer.latencyMillis()));
            governor.report(new Feedback(domain, answer.status(), answer.retryAfterSeconds(),
                    answer.latencyMillis(), answer.crawlDelaySeconds()));
            release(worker, domain, clock.nanos() + pollDelay());
        });
    }

    private void release(int worker, String domain, long readyAt) {
        if (parallelPerDomain) {
            schedule(readyAt, () -> attempt(worker, domain));
            return;
        }
        frontier.add(new long[] {readyAt, domainIndex.indexOf(domain)});
        idleWorkers.add(worker);
        dispatch();
    }

    private long pollDelay() {
        return maxPollDelayMillis == 0 ? 0 : pollRandom.nextLong(1, maxPollDelayMillis + 1) * MILLI;
    }

    private void schedule(long at, Runnable action) {
        events.add(new Event(at, seq++, action));
    }
}
