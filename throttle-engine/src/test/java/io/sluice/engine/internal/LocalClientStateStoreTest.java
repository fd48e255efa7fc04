package io.sluice.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.ClientInfo;
import io.sluice.engine.ManualClock;
import io.sluice.engine.RequestClass;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Requests in flight survive the eviction of their client, and are counted once when it returns; newcomers are
 * held apart from the main table until their second request.
 */
class LocalClientStateStoreTest {

    private static final Policy.HitStack LIMITS = new Policy.HitStack(15, 1_000);
    private static final int IDLE_SECONDS = 60;

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final LocalClientStateStore store = new LocalClientStateStore(100, Duration.ofSeconds(IDLE_SECONDS), clock);
    private final ClientKey key = new ClientKey(IpAddress.parse("192.0.2.1"), "curl/8.5.0");
    private final ClientInfo info = new ClientInfo("192.0.2.1", "curl/8.5.0", RequestClass.BOT, null, false);

    private HitStackState<ClientState> push() {
        return store.pushHit(new ClientKey(IpAddress.parse("192.0.2.1"), "curl/8.5.0"), info, clock.millis(), LIMITS,
                1);
    }

    /** Idles the client out of the table (an eviction, as a full table would do). */
    private void evict() {
        clock.advance(Duration.ofSeconds(IDLE_SECONDS + ClientState.REPORT_SECONDS + 1));
        assertThat(store.tracked()).isZero();
    }

    @Test
    void anEvictedClientWithRequestsInFlightComesBackWithThemCounted() {
        HitStackState<ClientState> first = push();
        ClientState a = store.acquireInFlight(key, first.client(), 2);
        ClientState b = store.acquireInFlight(key, first.client(), 2);
        assertThat(a).isNotNull();
        assertThat(b).isNotNull();
        assertThat(store.acquireInFlight(key, first.client(), 2)).isNull();

        evict();
        assertThat(store.evicted()).isEqualTo(1);
        assertThat(store.orphaned()).isEqualTo(1);
        // a request that pushed its hit before the eviction cannot take a slot on the evicted state behind
        // the table's back: it is sent to the live one, which still counts the two running requests
        assertThat(store.acquireInFlight(key, first.client(), 2)).isNull();

        HitStackState<ClientState> again = push();
        assertThat(again.hitsInWindow()).isEqualTo(1); // forgotten hits, as for any evicted client
        assertThat(store.orphaned()).isZero();
        assertThat(store.acquireInFlight(key, again.client(), 2)).isNull();
        store.releaseInFlight(a);
        ClientState c = store.acquireInFlight(key, again.client(), 2);
        assertThat(c).isNotNull();
        assertThat(store.acquireInFlight(key, again.client(), 2)).isNull();
        store.releaseInFlight(b);
        store.releaseInFlight(c);
        assertThat(store.busiest(1, clock.millis(), 15).get(0).inFlight()).isZero();
    }

    @Test
    void theOrphanIsDroppedWhenItsLastRequestCompletes() {
        HitStackState<ClientState> first = push();
        ClientState a = store.acquireInFlight(key, first.client(), 1);
        evict();
        assertThat(store.orphaned()).isEqualTo(1);
        store.releaseInFlight(a);
        assertThat(store.orphaned()).isZero();

        HitStackState<ClientState> again = push();
        assertThat(store.acquireInFlight(key, again.client(), 1)).isNotNull();
        assertThat(store.acquireInFlight(key, again.client(), 1)).isNull();
    }

    @Test
    void aLateReleaseDoesNotDropTheOrphanOfAClientThatCameBackAndWasEvictedAgain() {
        ClientState state = store.acquireInFlight(key, push().client(), 2);
        evict();
        // its request completes, and the thread is descheduled between giving the slot back and tidying the orphans
        assertThat(state.release()).isTrue();
        HitStackState<ClientState> back = push();
        assertThat(back.client()).isSameAs(state); // the client came back and took its state back
        ClientState a = store.acquireInFlight(key, back.client(), 2);
        ClientState b = store.acquireInFlight(key, back.client(), 2);
        evict();
        assertThat(store.orphaned()).isEqualTo(1);

        store.forgetOrphan(state); // the late thread resumes
        assertThat(store.orphaned()).isEqualTo(1);
        assertThat(store.acquireInFlight(key, push().client(), 2)).isNull(); // both requests still counted
        store.releaseInFlight(a);
        store.releaseInFlight(b);
        assertThat(store.acquireInFlight(key, push().client(), 2)).isNotNull();
    }

    @Test
    void aClientEvictedWithNothingInFlightLeavesNoOrphanAndStartsAtZero() {
        HitStackState<ClientState> first = push();
        store.releaseInFlight(store.acquireInFlight(key, first.client(), 1));
        evict();
        assertThat(store.orphaned()).isZero();
        // the stale handle of a request that raced the eviction finds the new state
        ClientState slot = store.acquireInFlight(key, first.client(), 1);
        assertThat(slot).isNotNull();
        assertThat(store.tracked()).isEqualTo(1);
        assertThat(store.acquireInFlight(key, push().client(), 1)).isNull();
        store.releaseInFlight(slot);
    }
    private HitStackState<ClientState> pushFrom(String ip) {
        ClientInfo other = new ClientInfo(ip, "curl/8.5.0", RequestClass.BOT, null, false);
        return store.pushHit(new ClientKey(IpAddress.parse(ip), "curl/8.5.0"), other, clock.millis(), LIMITS, 1);
    }

    /** One request each from {@code count} new addresses: more than the newcomers' table holds. */
    private void spray(int from, int count) {
        for (int i = from; i < from + count; i++) {
            pushFrom("10.0." + (i >> 8) + "." + (i & 255));
        }
    }

    @Test
    void aNewcomersSecondRequestMovesTheSameStateToTheMainTable() {
        HitStackState<ClientState> first = push();
        assertThat(store.isNewcomer(key)).isTrue();
        ClientState running = store.acquireInFlight(key, first.client(), 1);
        assertThat(running).isNotNull();

        HitStackState<ClientState> second = push();

        assertThat(store.isNewcomer(key)).isFalse();
        assertThat(second.client()).isSameAs(first.client());
        assertThat(second.hitsInWindow()).isEqualTo(2);
        assertThat(store.acquireInFlight(key, second.client(), 1)).as("the first request still counts").isNull();
        spray(0, 500); // newcomers come and go; the main table keeps the client
        assertThat(push().hitsInWindow()).isEqualTo(3);
        store.releaseInFlight(running);
        assertThat(store.busiest(1, clock.millis(), 15).get(0).inFlight()).isZero();
    }

    @Test
    void aSprayOfNewcomersIsHeldInTheirOwnSmallTable() {
        spray(0, 5_000);

        assertThat(store.tracked()).isBetween(1L, 16L); // 2% of 100, at least 16
        assertThat(store.tracked() + store.evicted()).isEqualTo(5_000);
        assertThat(store.capacity()).isEqualTo(100);
    }

    @Test
    void aClientReturningAfterItsNewcomerStateWasDroppedGoesStraightToTheMainTable() {
        push();
        evict();

        HitStackState<ClientState> again = push();

        assertThat(again.hitsInWindow()).as("its first hit was forgotten").isEqualTo(1);
        assertThat(store.isNewcomer(key)).as("seen before: kept in the main table at once").isFalse();
        assertThat(store.tracked()).isEqualTo(1);
    }

    @Test
    void aClientWhoseStateExpiredWithARequestRunningIsNotCountedAfreshWhenItReturns() {
        push();
        HitStackState<ClientState> second = push(); // in the main table now
        ClientState running = store.acquireInFlight(key, second.client(), 1);
        assertThat(running).isNotNull();
        // expired, but not removed: nothing has cleaned the table
        clock.advance(Duration.ofSeconds(IDLE_SECONDS + ClientState.REPORT_SECONDS + 1));
        spray(0, 1_000); // new clients come by: the returning client is no longer remembered as seen

        HitStackState<ClientState> back = push();

        assertThat(store.acquireInFlight(key, back.client(), 1)).as("the running request still counts").isNull();
        store.releaseInFlight(running);
        assertThat(store.acquireInFlight(key, back.client(), 1)).isNotNull();
        assertThat(store.orphaned()).isZero();
    }
}
