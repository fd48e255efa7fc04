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
 * A client reaches its address aggregate without a second lookup: while it is its address's only client it answers
 * for the aggregate from its own counts, and once a second client appears it follows its link to the aggregate's
 * state. Neither shortcut outlives what it stands for: a second user agent, an evicted aggregate, another address.
 */
class AggregateLinkTest {

    private static final Policy.HitStack LIMITS = new Policy.HitStack(15, 1_000);
    private static final IpAddress ADDRESS = IpAddress.parse("198.51.100.7");

    private final ManualClock clock = ManualClock.at("2026-11-23T10:00:00Z");
    /** Clients idle out long after addresses, so a client's link outlives its aggregate. */
    private final LocalClientStateStore clients = new LocalClientStateStore(100, Duration.ofSeconds(600), clock);
    private final LocalClientStateStore addresses = LocalClientStateStore.ofAggregates(100, Duration.ofSeconds(60),
            clock);
    private final ClientKey addressKey = ClientKey.ofAddress(ADDRESS, 32, 64);

    /** One request of {@code userAgent} from {@link #ADDRESS}: its client's hit, then its address's. */
    private HitStackState<ClientState> request(String userAgent) {
        return request(userAgent, addressKey);
    }

    private HitStackState<ClientState> request(String userAgent, ClientKey aggregate) {
        ClientState client = client(userAgent);
        return addresses.pushAggregateHit(aggregate, client, info(userAgent), clock.millis(), LIMITS, 1);
    }

    private ClientState client(String userAgent) {
        return clients.pushHit(new ClientKey(ADDRESS, userAgent), info(userAgent), clock.millis(), LIMITS, 1)
                .client();
    }

    private static ClientInfo info(String userAgent) {
        return new ClientInfo(ADDRESS.toString(), userAgent, RequestClass.BOT, null, false);
    }

    private int addressRowHits() {
        return addresses.busiest(1, clock.millis(), 15).get(0).hitsInWindow();
    }

    @Test
    void everyUserAgentOfOneAddressCountsOnTheOneAggregate() {
        for (int i = 0; i < 5; i++) {
            request("agent-a");
            request("agent-b");
        }
        assertThat(request("agent-c").hitsInWindow()).isEqualTo(11);
        assertThat(addresses.tracked()).isEqualTo(1);
        assertThat(addressRowHits()).isEqualTo(11);
    }

    @Test
    void aLoneClientAnswersForItsAddressOnceTheAggregateIsInTheMainTable() {
        HitStackState<ClientState> first = request("agent-a");
        assertThat(addresses.isNewcomer(addressKey)).isTrue();
        assertThat(first.client().answersFor(addressKey)).isFalse(); // a newcomer is looked up on its next request

        HitStackState<ClientState> second = request("agent-a");

        assertThat(addresses.isNewcomer(addressKey)).isFalse();
        assertThat(second.client()).isSameAs(first.client()).isSameAs(client("agent-a"));
        assertThat(second.client().answersFor(addressKey)).isTrue();
        assertThat(request("agent-a").hitsInWindow()).isEqualTo(4); // the client's own counts (with the probe's)
        assertThat(addressRowHits()).isEqualTo(4); // and the heatmap's address row shows them
    }

    @Test
    void aSecondUserAgentFoldsTheFirstOnesCountsIntoTheAggregate() {
        for (int i = 0; i < 5; i++) {
            request("agent-a");
        }
        assertThat(request("agent-b").hitsInWindow()).isEqualTo(6);
        HitStackState<ClientState> third = request("agent-a");
        assertThat(third.hitsInWindow()).isEqualTo(7);
        assertThat(third.client()).isNotSameAs(client("agent-a")); // the aggregate's own state now
        assertThat(client("agent-a").answersFor(addressKey)).isFalse();
    }

    @Test
    void anEvictedAggregateEndsTheLoneClientsShortcut() {
        request("agent-a");
        request("agent-a");
        assertThat(client("agent-a").answersFor(addressKey)).isTrue();

        clock.advance(Duration.ofSeconds(60 + ClientState.REPORT_SECONDS + 1));
        assertThat(addresses.tracked()).isZero(); // the aggregate idled out; the client (and its link) did not
        assertThat(clients.tracked()).isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            request("agent-b"); // a new aggregate, whose only client is agent-b
        }

        // agent-a no longer answers for an aggregate that is gone: it joins the new one
        assertThat(request("agent-a").hitsInWindow()).isEqualTo(4);
    }

    @Test
    void aLinkToAnotherAddressIsNotFollowed() {
        request("agent-a");
        request("agent-a");
        ClientKey otherAddress = ClientKey.ofAddress(IpAddress.parse("198.51.100.8"), 32, 64);

        assertThat(client("agent-a").answersFor(otherAddress)).isFalse();

        // a client state reused for another address: the key asked for wins over the link
        request("agent-a", otherAddress);

        assertThat(addresses.tracked()).isEqualTo(2);
        assertThat(client("agent-a").linkedAggregate()).isEqualTo(addressKey);
    }

    @Test
    void aWiderPrefixIsAnotherAggregate() {
        request("agent-a");
        request("agent-a");
        ClientKey network = ClientKey.ofAddress(ADDRESS, 24, 64);
        assertThat(network).isNotEqualTo(ClientKey.ofAddress(IpAddress.parse("198.51.100.0"), 32, 64));

        IpAddress neighbour = IpAddress.parse("198.51.100.99");
        ClientKey neighbourKey = new ClientKey(neighbour, "agent-n");
        ClientInfo neighbourInfo = new ClientInfo(neighbour.toString(), "agent-n", RequestClass.BOT, null, false);
        for (int i = 0; i < 2; i++) {
            ClientState state = clients.pushHit(neighbourKey, neighbourInfo, clock.millis(), LIMITS, 1).client();
            addresses.pushAggregateHit(network, state, neighbourInfo, clock.millis(), LIMITS, 1);
        }

        // agent-a answered for 198.51.100.7/32; under /24 it shares a new aggregate with its neighbour
        assertThat(client("agent-a").answersFor(network)).isFalse();
        assertThat(request("agent-a", network).hitsInWindow()).isEqualTo(3);
    }
    @Test
    void slotsFoldedIntoOneAggregateGoBackThereWhenTheClientIsFoldedIntoAnotherMeanwhile() {
        request("agent-a");
        request("agent-a");
        ClientState a = client("agent-a");
        ClientState lease = addresses.acquireInFlight(addressKey, request("agent-a").client(), 10);
        assertThat(lease).isSameAs(a); // counted on the member, which answers for 198.51.100.7
        request("agent-b"); // folds agent-a's running request into the /32's aggregate

        // the policy's prefix changes: agent-a alone in the /24, until a neighbour joins it
        ClientKey network = ClientKey.ofAddress(ADDRESS, 24, 64);
        request("agent-a", network);
        request("agent-a", network);
        IpAddress neighbour = IpAddress.parse("198.51.100.99");
        ClientInfo neighbourInfo = new ClientInfo(neighbour.toString(), "agent-n", RequestClass.BOT, null, false);
        ClientState n = clients.pushHit(new ClientKey(neighbour, "agent-n"), neighbourInfo, clock.millis(), LIMITS, 1)
                .client();
        addresses.pushAggregateHit(network, n, neighbourInfo, clock.millis(), LIMITS, 1);

        addresses.releaseInFlight(lease);

        assertThat(addresses.busiest(10, clock.millis(), 15)).allSatisfy(row -> assertThat(row.inFlight()).isZero());
    }

    @Test
    void aRequestJudgedAloneJustBeforeASecondClientJoinedTakesTheAddresssSlotNotAnUncountedOne() {
        request("agent-a");
        request("agent-a");
        // agent-a's next request is judged alone at its address (its hit counted on its own state)...
        ClientState judgedAlone = request("agent-a").client();
        // ...then agent-b joins while none of agent-a's requests runs, before that request takes its slot
        ClientState aggregate = request("agent-b").client();

        ClientState first = addresses.acquireInFlight(addressKey, judgedAlone, 1);
        ClientState second = addresses.acquireInFlight(addressKey, aggregate, 1);

        assertThat(first).as("agent-a's slot, on the address's own count").isSameAs(aggregate);
        assertThat(second).as("the address's one slot is taken").isNull();
        addresses.releaseInFlight(first);
        assertThat(addresses.acquireInFlight(addressKey, request("agent-a").client(), 1)).isSameAs(aggregate);
    }
}
