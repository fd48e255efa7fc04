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
 * A client's state carries its address aggregate so the aggregate needs no second lookup, but the link is only a
 * hint: an evicted aggregate, a newcomer's aggregate or another address's is never counted through it.
 */
class AggregateLinkTest {

    private static final Policy.HitStack LIMITS = new Policy.HitStack(15, 1_000);
    private static final IpAddress ADDRESS = IpAddress.parse("198.51.100.7");

    private final ManualClock clock = ManualClock.at("2026-11-23T10:00:00Z");
    /** Clients idle out long after addresses, so a client's link outlives its aggregate. */
    private final LocalClientStateStore clients = new LocalClientStateStore(100, Duration.ofSeconds(600), clock);
    private final LocalClientStateStore addresses = new LocalClientStateStore(100, Duration.ofSeconds(60), clock);
    private final ClientKey addressKey = ClientKey.ofAddress(ADDRESS, 32, 64);

    /** One request of {@code userAgent} from {@link #ADDRESS}: its client's hit, then its address's. */
    private HitStackState<ClientState> request(String userAgent) {
        ClientInfo info = new ClientInfo(ADDRESS.toString(), userAgent, RequestClass.BOT, null, false);
        HitStackState<ClientState> client = clients.pushHit(new ClientKey(ADDRESS, userAgent), info, clock.millis(),
                LIMITS, 1);
        return addresses.pushAggregateHit(addressKey, client.client(), info, clock.millis(), LIMITS, 1);
    }

    @Test
    void everyUserAgentOfOneAddressCountsOnTheOneAggregate() {
        for (int i = 0; i < 5; i++) {
            request("agent-a");
            request("agent-b");
        }
        assertThat(request("agent-c").hitsInWindow()).isEqualTo(11);
        assertThat(addresses.tracked()).isEqualTo(1);
    }

    @Test
    void aNewcomerAggregateIsNotLinkedSoItsSecondRequestMovesItToTheMainTable() {
        HitStackState<ClientState> first = request("agent-a");
        ClientInfo info = new ClientInfo(ADDRESS.toString(), "agent-a", RequestClass.BOT, null, false);
        HitStackState<ClientState> client = clients.pushHit(new ClientKey(ADDRESS, "agent-a"), info, clock.millis(),
                LIMITS, 1);
        assertThat(client.client().linkedAggregate()).isNull();

        HitStackState<ClientState> second = request("agent-a");
        assertThat(second.client()).isSameAs(first.client());
        assertThat(second.client().linkedAggregate()).isNull(); // the aggregate's state, not the client's
        assertThat(client.client().linkedAggregate()).isSameAs(second.client());
    }

    @Test
    void anEvictedAggregateIsLookedUpAgainNotCountedThroughTheStaleLink() {
        request("agent-a");
        HitStackState<ClientState> linked = request("agent-a");
        ClientState stale = linked.client();

        clock.advance(Duration.ofSeconds(60 + ClientState.REPORT_SECONDS + 1));
        assertThat(addresses.tracked()).isZero(); // the aggregate idled out; the client (and its link) did not
        assertThat(clients.tracked()).isEqualTo(1);
        HitStackState<ClientState> after = request("agent-a");

        assertThat(after.client()).isNotSameAs(stale);
        assertThat(after.hitsInWindow()).isEqualTo(1);
        assertThat(stale.hitsInWindow(clock.millis(), 60)).isZero(); // nothing was pushed on the evicted state
    }

    @Test
    void aLinkToAnotherAddressIsNotFollowed() {
        request("agent-a");
        request("agent-a");
        ClientKey otherAddress = ClientKey.ofAddress(IpAddress.parse("198.51.100.8"), 32, 64);
        ClientInfo info = new ClientInfo(ADDRESS.toString(), "agent-a", RequestClass.BOT, null, false);
        ClientState client = clients.pushHit(new ClientKey(ADDRESS, "agent-a"), info, clock.millis(), LIMITS, 1)
                .client();

        // the policy's prefix changed, or a client state was reused: the key asked for wins over the link
        HitStackState<ClientState> other = addresses.pushAggregateHit(otherAddress, client, info, clock.millis(),
                LIMITS, 1);

        assertThat(other.hitsInWindow()).isEqualTo(1);
        assertThat(other.client()).isNotSameAs(client.linkedAggregate());
    }
}
