package io.sluice.console.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.server.SluiceServer;
import io.sluice.server.change.PolicyChanges;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The limits form against a real server, without the toolkit. */
class LimitsViewModelTest {
    /** The policy is changed as an operator changes it: through the server's PolicyChanges, audited. */
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "test");
    @TempDir
    Path state;
    private SluiceServer server;
    private LimitsViewModel model;

    @BeforeEach
    void connect() throws Exception {
        server = TestSessions.server(state);
        model = new LimitsViewModel(TestSessions.on(server, new CurrentThreadUiExecutor()));
        model.reload().execute();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void theFormShowsEveryPartOfThePolicyIncludingRoutesAndTheAddressLimits() {
        assertThat(model.field("hitStack.maxHits").textProperty().get()).isEqualTo("10");
        assertThat(model.field("perAddress.maxHits").textProperty().get()).isEqualTo("50");
        assertThat(model.field("forwardedHeader").textProperty().get()).isEqualTo("X-Forwarded-For");
        assertThat(model.field("refusal.bannedMessage").textProperty().get()).isEmpty();
        assertThat(model.table("routes").rows()).singleElement().satisfies(row -> {
            assertThat(row.cell("match").get()).isEqualTo("glob");
            assertThat(row.cell("path").get()).isEqualTo(Route.STATIC_ASSETS);
            assertThat(row.cell("weight").get()).isEqualTo("0");
            assertThat(row.cell("limits").get()).isEmpty();
        });
        assertThat(model.table("escalation").rows()).isEmpty();
        assertThat(model.items()).extracting(LimitsViewModel.Item::group).containsSubsequence(
                "Hit stack", "Per address (all user agents of one address)", "Routes", "Crawlers", "Escalation",
                "Refusal", "Network");
        assertThat(model.editsProperty().get()).as("filling is not an edit").isZero();
    }

    @Test
    void aRouteWithItsOwnLimitAndAnEscalationRuleAreApplied() {
        LimitsViewModel.TableInput routes = model.table("routes");
        routes.addRow();
        LimitsViewModel.RowInput search = routes.rows().get(1);
        search.cell("match").set("prefix");
        search.cell("path").set("/search");
        search.cell("methods").set("GET, POST");
        search.cell("weight").set("2");
        search.cell("limits").set("5, 60");
        search.cell("note").set("search is expensive");
        routes.moveUp(search);
        model.table("escalation").addRow();
        LimitsViewModel.RowInput rule = model.table("escalation").rows().get(0);
        rule.cell("scope").set("address");
        rule.cell("refusals").set("20");
        rule.cell("withinSeconds").set("60");
        rule.cell("banSeconds").set("600");
        rule.cell("growth").set("2");
        rule.cell("maxBanSeconds").set("86400");
        model.field("perAddress.maxHits").textProperty().set("80");
        model.field("refusal.bannedMessage").textProperty().set("Mirror the dump instead: https://example.org/dump");

        model.apply().execute();

        Policy live = server.engine().policy();
        assertThat(live.routes()).hasSize(2);
        assertThat(live.routes().get(0)).isEqualTo(new Route(Route.Match.PREFIX, "/search", null,
                List.of("GET", "POST"), List.of(), List.of(), 2, new Policy.HitStack(60, 5), "search is expensive"));
        assertThat(live.routes().get(1)).isEqualTo(Route.DEFAULTS.get(0));
        assertThat(live.escalation()).containsExactly(new Escalation(Escalation.Scope.ADDRESS, 20, 60, 600, 2.0,
                86_400));
        assertThat(live.perAddress().maxHits()).isEqualTo(80);
        assertThat(live.refusal().bannedMessage()).startsWith("Mirror the dump");
        assertThat(model.statusProperty().get()).isEqualTo("Applied: policy version " + live.version());
        assertThat(model.table("routes").rows().get(0).cell("limits").get()).isEqualTo("5, 60");
    }

    @Test
    void theServersErrorsLandInTheirCellsAndNothingChanges() {
        model.table("routes").addRow();
        LimitsViewModel.RowInput route = model.table("routes").rows().get(1);
        route.cell("match").set("prefix");
        route.cell("path").set("search");
        route.cell("classes").set("BOT");
        route.cell("limits").set("0, 60");
        model.field("forwardedHeader").textProperty().set("X Forwarded");
        long version = server.engine().policy().version();

        model.apply().execute();

        assertThat(route.errorProperty("path").get()).contains("starts with '/'");
        assertThat(route.errorProperty("limits").get()).startsWith("maxHits: ").contains("between 1 and");
        assertThat(model.field("forwardedHeader").errorProperty().get()).contains("HTTP header name");
        assertThat(model.statusProperty().get()).isEqualTo("Not applied: 3 field(s) need fixing");
        assertThat(server.engine().policy().version()).isEqualTo(version);
    }

    @Test
    void unreadableTextIsCaughtInItsCellBeforeAnythingIsSent() {
        model.table("routes").rows().get(0).cell("weight").set("heavy");
        long version = server.engine().policy().version();

        model.apply().execute();

        assertThat(model.table("routes").rows().get(0).errorProperty("weight").get()).isEqualTo(
                "a whole number, please");
        assertThat(model.statusProperty().get()).isEqualTo("Not applied: 1 field(s) need fixing");
        assertThat(server.engine().policy().version()).isEqualTo(version);
    }

    @Test
    void aConflictWithAnotherOperatorIsExplained() {
        server.policyChanges().edit(OPERATOR, p -> p.withHitStack(new Policy.HitStack(15, 12)));
        model.field("hitStack.maxHits").textProperty().set("30");

        model.apply().execute();

        assertThat(model.statusProperty().get()).startsWith("Someone else changed the policy");
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(12);
    }

    @Test
    void revertRestoresTheLoadedValuesAndRemovingARowIsAnEdit() {
        model.field("hitStack.maxHits").textProperty().set("30");
        model.table("routes").remove(model.table("routes").rows().get(0));
        assertThat(model.editsProperty().get()).isEqualTo(2);
        assertThat(model.candidate().policy().routes()).isEmpty();

        model.revert().execute();

        assertThat(model.field("hitStack.maxHits").textProperty().get()).isEqualTo("10");
        assertThat(model.table("routes").rows()).hasSize(1);
    }

    @Test
    void applyGoesThroughTheApplierAWhatIfPreviewInstalls() {
        List<Policy> sent = new ArrayList<>();
        model.setApplier((proposed, basedOn) -> {
            sent.add(proposed);
            return new AdminClient.PolicyUpdate(proposed.withVersion(basedOn + 1), List.of(), false);
        });
        model.field("progressiveDelay.BOT").textProperty().set("5, 100, 2000");

        model.apply().execute();

        assertThat(sent).singleElement().satisfies(p -> assertThat(p.progressiveDelay()).containsKey(RequestClass.BOT));
        assertThat(server.engine().policy().progressiveDelay()).as("the applier decided, not PUT").isEmpty();
    }
}
