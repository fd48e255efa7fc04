package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.random.RandomGenerator;

/**
 * The governor's tie to a shared {@link DomainLedger} (cluster mode, docs/architecture-cluster.md, "The crawl
 * governor"): whether there is one, where the pace is decided now ({@link Pacing}: {@code CLUSTER} while the
 * ledger answers, {@code DEGRADED} while it does not, with one log line per change), and what a call adds to
 * the ledger's ({@link LedgerContext}). Without a ledger the node paces alone ({@code LOCAL}). Thread-safe.
 */
final class LedgerLink {
    /** An operator's change waits at most this for the shared ledger (which gives up at its own deadline). */
    static final Duration PATIENCE = Duration.ofSeconds(2);
    private static final System.Logger LOG = System.getLogger(CrawlGovernor.class.getName());

    private final GovernorClock clock;
    private final RandomGenerator random;
    private volatile DomainLedger ledger;
    private volatile Pacing pacing;

    LedgerLink(GovernorClock clock, RandomGenerator random) {
        this.clock = clock;
        this.random = random;
        this.pacing = Pacing.local(clock.instant());
    }

    /** The shared ledger, or null on a single node. */
    DomainLedger ledger() {
        return ledger;
    }

    void shareWith(DomainLedger shared) {
        this.ledger = shared;
        this.pacing = new Pacing(Pacing.Mode.CLUSTER, shared.nodes(), "pace shared by the cluster", clock.instant());
    }

    Pacing pacing() {
        return pacing;
    }

    /** Whether {@code shared} may be asked now; when it says it cannot be reached, the node is DEGRADED. */
    boolean reachable(DomainLedger shared) {
        if (!shared.available()) {
            degraded(shared, shared.unavailableReason());
            return false;
        }
        return true;
    }

    /** The ledger answered: the pace is the cluster's (again). */
    void answered(DomainLedger shared) {
        Pacing was = pacing;
        if (was.mode() != Pacing.Mode.CLUSTER || was.nodes() != shared.nodes()) {
            pacing = new Pacing(Pacing.Mode.CLUSTER, shared.nodes(), "pace shared by the cluster",
                    was.mode() == Pacing.Mode.CLUSTER ? was.since() : clock.instant());
            if (was.mode() != Pacing.Mode.CLUSTER) {
                LOG.log(System.Logger.Level.INFO, "crawl governor: pacing with the cluster again");
            }
        }
    }

    /** The ledger failed or did not answer in time: this node paces alone at {@code 1 / nodes}. */
    void failed(DomainLedger shared, Throwable failure) {
        degraded(shared, describe(failure));
    }

    /** This node paces alone at {@code 1 / nodes}, for {@code reason}. */
    void degraded(DomainLedger shared, String reason) {
        Pacing was = pacing;
        if (was.mode() != Pacing.Mode.DEGRADED || was.nodes() != shared.nodes()) {
            int nodes = shared.nodes();
            pacing = new Pacing(Pacing.Mode.DEGRADED, nodes, reason + ": pacing alone at 1/" + nodes
                    + " of each domain's rate", was.mode() == Pacing.Mode.DEGRADED ? was.since() : clock.instant());
            if (was.mode() != Pacing.Mode.DEGRADED) {
                LOG.log(System.Logger.Level.WARNING, "crawl governor: DEGRADED (" + reason + "): pacing alone at 1/"
                        + nodes + " of each domain's rate until the cluster's state answers again");
            }
        }
    }

    LedgerContext context(DomainState state, GovernorPolicy current) {
        return context(state, current, null);
    }

    LedgerContext context(DomainState state, GovernorPolicy current, String worker) {
        double jitter;
        synchronized (random) {
            jitter = random.nextDouble();
        }
        return new LedgerContext(current, state.floorMicros(), state.givenUp(), jitter, worker);
    }

    /** An operator's change, made here, for every node: waits at most {@link #PATIENCE}. */
    void change(DomainLedger shared, String domain, LedgerChange change, DomainState state, GovernorPolicy current) {
        if (!reachable(shared)) {
            return;
        }
        try {
            LedgerAnswer answer = shared.change(domain, change, context(state, current)).toCompletableFuture()
                    .get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            answered(shared);
            state.mirror(answer, clock.micros());
        } catch (ExecutionException | TimeoutException e) {
            failed(shared, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return cause instanceof TimeoutException ? "the cluster's state did not answer in time"
                : message == null ? cause.getClass().getSimpleName() : message;
    }
}
