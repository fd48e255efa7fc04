package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.engine.net.AsnTable;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.telemetry.AsnRow;
import io.sluice.engine.telemetry.NetworkRow;
import java.io.IOException;
import java.io.StringReader;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Autonomous systems in the browser check (issue 46), with an operator's IP-to-ASN file: a budget per AS for browser
 * claims without a pass beside each network's, and the ASes the policy always challenges (cloud ranges).
 */
class AsnBudgetTest {

    /** Two /24s of one AS (a cloud's), one /24 of another, and a range that is not routed. */
    private static final String FILE = "3.5.1.0\t3.5.2.255\t16509\tUS\tAMAZON-02\n"
            + "5.6.7.0\t5.6.7.255\t3320\tDE\tDTAG Internet service provider operations\n"
            + "9.9.9.0\t9.9.9.255\t0\tNone\tNot routed\n";

    private final ManualClock clock = ManualClock.at("2026-12-02T07:00:00Z");

    private static AsnTable table() {
        try {
            return AsnTable.parse(new StringReader(FILE), "ip2asn-v4.tsv");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private ThrottleEngine engine(BrowserCheck check, AsnTable table) {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults().withBrowserCheck(check));
        engine.useAsnTable(table);
        return engine;
    }

    private static BrowserCheck budget(int maxHits) {
        BrowserCheck check = BrowserCheck.DEFAULTS;
        return check.withNetworks(check.networks().withAsnWithoutPass(new Policy.HitStack(15, maxHits)));
    }

    private static Request page(String ip, String path) {
        return Request.get(ip, BROWSER, path).asNavigation();
    }

    @Test
    void anAsThePolicyNamesIsAlwaysAskedOnAQuietDayAndOthersAreNot() {
        ThrottleEngine engine = engine(BrowserCheck.DEFAULTS.withAlwaysChallengeAsns(List.of(16509L, 14618L)),
                table());

        refused(engine.decide(page("3.5.1.7", "/")), Reason.CHALLENGE);
        refused(engine.decide(page("3.5.2.200", "/")), Reason.CHALLENGE);
        served(engine.decide(page("5.6.7.8", "/")));
        served(engine.decide(page("9.9.9.9", "/")));
        served(engine.decide(page("3.5.3.1", "/")));
        assertThat(engine.snapshot().browserCheck().challenged()).isEqualTo(2);
    }

    @Test
    void withoutAFileNoAddressIsInAnyAs() {
        ThrottleEngine engine = engine(BrowserCheck.DEFAULTS.withAlwaysChallengeAsns(List.of(16509L)), null);
        served(engine.decide(page("3.5.1.7", "/")));

        engine.useAsnTable(table());
        refused(engine.decide(page("3.5.1.8", "/")), Reason.CHALLENGE);

        engine.useAsnTable(null);
        served(engine.decide(page("3.5.1.9", "/")));
        assertThat(engine.asnTable()).isSameAs(AsnTable.EMPTY);
    }

    @Test
    void anAsOverItsBudgetIsAskedAcrossItsNetworksWhileOtherAsesAreServed() {
        ThrottleEngine engine = engine(budget(30), table());
        for (int i = 0; i < 15; i++) {
            served(engine.decide(page("3.5.1." + (i + 1), "/a/" + i)));
            served(engine.decide(page("3.5.2." + (i + 1), "/b/" + i)));
        }

        // each /24 has 15 of its 200, but their AS has its 30
        refused(engine.decide(page("3.5.2.100", "/b/next")), Reason.CHALLENGE);
        refused(engine.decide(page("3.5.1.100", "/a/next")), Reason.CHALLENGE);
        served(engine.decide(page("5.6.7.100", "/c")));
        served(engine.decide(page("9.9.9.100", "/d")));
    }

    @Test
    void overItsBudgetWhatIsNotAPageIsRefusedForTheNetworkAndTheWindowFreesIt() {
        ThrottleEngine engine = engine(budget(5), table());
        for (int i = 0; i < 5; i++) {
            served(engine.decide(page("3.5.1." + (i + 1), "/a/" + i)));
        }
        Request fetch = new Request("3.5.2.9", BROWSER, null, "GET", "/api/items", null, "empty", "cors",
                "application/json", null);

        Decision.Refuse refusal = refused(engine.decide(fetch), Reason.NETWORK_BUDGET);
        assertThat(refusal.retryAfterSeconds()).isBetween(1L, 15L);
        assertThat(refusal.detail()).contains("autonomous system (AS 16509)");

        clock.advanceMillis(16_000);
        served(engine.decide(page("3.5.2.10", "/a/later")));
    }

    @Test
    void withoutABudgetPerAsOnlyTheNetworksOwnCount() {
        ThrottleEngine engine = engine(BrowserCheck.DEFAULTS, table());
        for (int i = 0; i < 100; i++) {
            served(engine.decide(page("3.5.1." + (i + 1), "/a/" + i)));
            served(engine.decide(page("3.5.2." + (i + 1), "/b/" + i)));
        }
    }

    @Test
    void theBudgetAndTheNamedAsesChangeLiveOnTheNextRequest() {
        ThrottleEngine engine = engine(BrowserCheck.DEFAULTS, table());
        for (int i = 0; i < 10; i++) {
            served(engine.decide(page("3.5.1." + (i + 1), "/a/" + i)));
        }

        // the hits already counted on the AS's stack: none, as it had no budget; a budget counts from now on
        EngineFixture.changePolicyUnaudited(engine, p -> p.withBrowserCheck(budget(2)));
        served(engine.decide(page("3.5.1.50", "/x")));
        served(engine.decide(page("3.5.1.51", "/y")));
        refused(engine.decide(page("3.5.1.52", "/z")), Reason.CHALLENGE);

        EngineFixture.changePolicyUnaudited(engine, p -> p.withBrowserCheck(BrowserCheck.DEFAULTS
                .withAlwaysChallengeAsns(List.of(3320L))));
        served(engine.decide(page("3.5.1.53", "/z")));
        refused(engine.decide(page("5.6.7.1", "/z")), Reason.CHALLENGE);
    }

    /** A page admitted and completed with {@code millis} of upstream time. */
    private void servedCosting(Decision decision, long millis) {
        EngineFixture.admitted(decision).admission().complete(200, millis * 1_000_000,
                new RequestCost(millis * 500_000, millis * 1_000_000, 0, 10_000));
    }

    @Test
    void theSnapshotShowsTheAutonomousSystemsAsTheSumsOfTheirNetworks() {
        ThrottleEngine engine = engine(BrowserCheck.DEFAULTS, table());
        for (int i = 0; i < 6; i++) {
            servedCosting(engine.decide(page("3.5.1." + (i + 1), "/a/" + i)), 100);
            servedCosting(engine.decide(page("3.5.2." + (i + 1), "/b/" + i)), 100);
        }
        for (int i = 0; i < 3; i++) {
            servedCosting(engine.decide(page("5.6.7." + (i + 1), "/c/" + i)), 400);
        }
        servedCosting(engine.decide(page("9.9.9.9", "/d")), 50);

        var snapshot = engine.snapshot();
        assertThat(snapshot.asnTable().source()).isEqualTo("ip2asn-v4.tsv");
        assertThat(snapshot.asnTable().ipv4Ranges()).isEqualTo(2);
        assertThat(snapshot.autonomousSystems()).extracting(AsnRow::asn).containsExactly(16509L, 3320L);
        AsnRow amazon = snapshot.autonomousSystems().get(0);
        assertThat(amazon.description()).isEqualTo("AMAZON-02");
        assertThat(amazon.networks()).isEqualTo(2);
        assertThat(amazon.addresses()).isEqualTo(12);
        assertThat(amazon.hits()).isEqualTo(12);
        assertThat(amazon.cost().requests()).isEqualTo(12);
        assertThat(amazon.cost().upstreamMicros()).isEqualTo(1_200_000);
        assertThat(amazon.busiestNetworks()).containsExactlyInAnyOrder("3.5.1.0/24", "3.5.2.0/24");
        assertThat(amazon.upstreamShare()).isCloseTo(1_200.0 / 2_450, within(1e-9));
        long networksHits = snapshot.networks().stream().filter(row -> row.network().startsWith("3.5."))
                .mapToLong(NetworkRow::hits).sum();
        assertThat(amazon.hits()).as("the sum of its networks' rows").isEqualTo(networksHits);
        AsnRow telekom = snapshot.autonomousSystems().get(1);
        assertThat(telekom.description()).startsWith("DTAG");
        assertThat(telekom.cost().upstreamMicros()).isEqualTo(1_200_000);

        engine.useAsnTable(null);
        assertThat(engine.snapshot().autonomousSystems()).isEmpty();
        assertThat(engine.snapshot().asnTable()).isNull();
    }

    @Test
    void badAsNumbersAndBudgetsAreNamedAndNothingChanges() {
        ThrottleEngine engine = engine(BrowserCheck.DEFAULTS, table());
        BrowserCheck bad = BrowserCheck.DEFAULTS
                .withAlwaysChallengeAsns(Arrays.asList(0L, 4_294_967_296L, null, -7L, 16509L, 4_294_967_295L))
                .withNetworks(BrowserCheck.DEFAULTS.networks().withAsnWithoutPass(new Policy.HitStack(0, 0)));

        List<FieldError> errors = PolicyValidator.validate(Policy.defaults().withBrowserCheck(bad));

        assertThat(errors).extracting(FieldError::field).containsExactlyInAnyOrder(
                "browserCheck.alwaysChallengeAsns[0]", "browserCheck.alwaysChallengeAsns[1]",
                "browserCheck.alwaysChallengeAsns[2]", "browserCheck.alwaysChallengeAsns[3]",
                "browserCheck.networks.asnWithoutPass.windowSeconds", "browserCheck.networks.asnWithoutPass.maxHits");
        assertThat(errors).filteredOn(error -> error.field().equals("browserCheck.alwaysChallengeAsns[1]"))
                .extracting(FieldError::message).containsExactly("must be an AS number from 1 to 4294967295 "
                        + "(16509, not AS16509), was 4294967296");
        assertThatThrownBy(() -> EngineFixture.changePolicyUnaudited(engine, p -> p.withBrowserCheck(bad)))
                .isInstanceOf(PolicyValidationException.class);
        assertThat(engine.policy().browserCheck()).isEqualTo(BrowserCheck.DEFAULTS);

        List<Long> tooMany = LongStream.rangeClosed(1, 257).boxed().toList();
        assertThat(PolicyValidator.validate(Policy.defaults().withBrowserCheck(BrowserCheck.DEFAULTS
                .withAlwaysChallengeAsns(tooMany)))).extracting(FieldError::field)
                .containsExactly("browserCheck.alwaysChallengeAsns");
    }
}
