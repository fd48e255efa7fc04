package io.sluice.engine.governor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workers asking for one domain (docs/manual/governor.md, "Several workers, one domain"): whose turn the next
 * slot is, and how far each worker's reports are credible. {@code governor.lua} restates it for the cluster.
 *
 * <p><b>Turns.</b> A worker refused a permit joins the domain's turn list (once, at the back). When the slot opens,
 * it is kept for the worker at the head of the list for a grace of a quarter interval (at most
 * {@link #MAX_GRACE_MICROS}); any other named worker asking within it is told to come back at its end. The head
 * taking its slot leaves the list; a head that does not come within its grace loses its place to whoever asks
 * next. So a worker polling ten times as often as another gets no more than its turn, and a grant taken in a turn
 * other workers waited through is spaced from its slot, not from the moment it was taken
 * ({@link Pacer#tryAcquireTurn}): the wait costs the domain's rate nothing beyond its floors.
 *
 * <p><b>Credit.</b> Each grant gives its worker one credit for the domain (at most {@link #CREDITS}, lasting
 * {@link #CREDIT_MICROS} after its latest grant); a report spends one, and a report with none to spend is ignored
 * (and counted): a worker's reports count only for grants it was given. <b>Giving up</b> needs more than errors in
 * a row: every worker active on the domain (seen within {@link #ACTIVE_MICROS}) must have reported its share of
 * them ({@code giveUpAfterErrors / active workers}, rounded up), so one worker cannot give up a domain another
 * finds healthy, while a lone worker on a dead domain gives it up as before.
 *
 * <p>A call with no worker named (the governor used in-process) is trusted: always credited, never held for a
 * turn nor listed. At most {@link #MAX_WORKERS} workers are remembered per domain, the least recently seen
 * forgotten first. Guarded by its domain's lock, but for {@link #holdFor} and {@link #heldTurn}, which the grant
 * path reads lock-free from an immutable turn list.
 */
final class DomainWorkers {
    static final int MAX_WORKERS = 16;
    static final int CREDITS = 64;
    private static final long SECOND = 1_000_000;
    static final long CREDIT_MICROS = 600 * SECOND;
    static final long ACTIVE_MICROS = 120 * SECOND;
    static final long MAX_GRACE_MICROS = 250_000;
    /** The trusted caller's name in the error tally (a token's name is never empty). */
    private static final String TRUSTED = "";

    private static final class Worker {
        int credits;
        long lastGrant = Long.MIN_VALUE;
        long lastSeen;
        int errors;
    }

    /** Least recently seen first. */
    private final LinkedHashMap<String, Worker> workers = new LinkedHashMap<>(4, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Worker> eldest) {
            return size() > MAX_WORKERS;
        }
    };
    private volatile List<String> turns = List.of();

    /** How long a slot is kept for the worker whose turn it is. */
    static long grace(long interval) {
        return Math.min(interval / 4, MAX_GRACE_MICROS);
    }

    /**
     * 0 when {@code worker} may take the slot that opened at {@code opensAt}; else the micros until the grace of the
     * worker whose turn it is ends. Lock-free.
     */
    long holdFor(String worker, long opensAt, long now, long interval) {
        List<String> list = turns;
        if (worker == null || list.isEmpty() || opensAt == Long.MIN_VALUE || now < opensAt
                || list.get(0).equals(worker)) {
            return 0;
        }
        long end = opensAt + grace(interval);
        return now < end ? end - now : 0;
    }

    /** {@code worker} takes its turn while another waits: its grant is spaced from the slot. Lock-free. */
    boolean heldTurn(String worker) {
        List<String> list = turns;
        return worker != null && list.size() > 1 && list.get(0).equals(worker);
    }

    /** A permit refused: the worker waits its turn. */
    void refused(String worker, long now) {
        seen(worker, now);
        List<String> list = turns;
        if (worker != null && list.size() < MAX_WORKERS && !list.contains(worker)) {
            List<String> longer = new ArrayList<>(list);
            longer.add(worker);
            turns = List.copyOf(longer);
        }
    }

    /** A permit granted: the worker leaves the turn list (a head that missed its turn too) and gains a credit. */
    void granted(String worker, long now) {
        credit(worker, now);
        if (worker == null) {
            return;
        }
        List<String> list = turns;
        if (!list.isEmpty()) {
            List<String> shorter = new ArrayList<>(list);
            if (!shorter.get(0).equals(worker)) {
                shorter.remove(0); // it was not there within its grace
            }
            shorter.remove(worker);
            turns = List.copyOf(shorter);
        }
    }

    /** One more credit for the worker's reports; credits older than {@link #CREDIT_MICROS} are gone first. */
    private void credit(String worker, long now) {
        Worker w = seen(worker, now);
        if (w.lastGrant == Long.MIN_VALUE || now - w.lastGrant > CREDIT_MICROS) {
            w.credits = 0;
        }
        w.credits = Math.min(CREDITS, w.credits + 1);
        w.lastGrant = now;
    }

    /** Spends one of the worker's credits for a report: false when it has none (the report is to be ignored). */
    boolean spend(String worker, long now) {
        if (worker == null) {
            seen(null, now);
            return true;
        }
        Worker w = workers.get(worker);
        if (w == null || w.credits <= 0 || now - w.lastGrant > CREDIT_MICROS) {
            return false;
        }
        w.credits--;
        w.lastSeen = now;
        return true;
    }

    /** A healthy answer ends the run of errors for every worker. */
    void healthy() {
        for (Worker w : workers.values()) {
            w.errors = 0;
        }
    }

    /**
     * The worker reported an error; true when every worker active on the domain has now reported its share of the
     * {@code errorsInARow} (so giving the domain up is credible).
     */
    boolean erred(String worker, long now, int errorsInARow) {
        seen(worker, now).errors++;
        int active = 0;
        for (Worker w : workers.values()) {
            if (now - w.lastSeen <= ACTIVE_MICROS) {
                active++;
            }
        }
        int share = (errorsInARow + Math.max(1, active) - 1) / Math.max(1, active);
        for (Worker w : workers.values()) {
            if (now - w.lastSeen <= ACTIVE_MICROS && w.errors < share) {
                return false;
            }
        }
        return true;
    }

    /** Forgets the turns and the run of errors (an operator's reset or revive); credits stand. */
    void clear() {
        turns = List.of();
        healthy();
    }

    private Worker seen(String worker, long now) {
        String name = worker == null ? TRUSTED : worker;
        Worker w = workers.get(name);
        if (w == null) {
            w = new Worker();
            workers.put(name, w);
        }
        w.lastSeen = now;
        return w;
    }
}
