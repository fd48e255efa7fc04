package io.sluice.console.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.sluice.console.api.AdminClient;
import io.sluice.console.testkit.Visitor;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.util.WaitForAsyncUtils;

/**
 * What-if before Apply against a real front end with real traffic through it; the ViewModel without the
 * toolkit (its session's executor runs everything on the calling thread, so each command, and each reading of
 * the report, has finished when it returns).
 */
class WhatIfViewModelTest {
    private static final String HTTRACK = "Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)";
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

    @TempDir
    Path state;

    private SluiceServer server;
    private AdminClient client;
    private WhatIfViewModel model;

    @BeforeEach
    void start() throws Exception {
        server = Demo.start(ServerConfig.demo(state));
        client = new AdminClient(server.adminUri(), server.adminToken(), "tester");
        model = new WhatIfViewModel(TestSessions.on(server, new CurrentThreadUiExecutor()));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** The live policy (10 hits in the window) with the limit lowered to {@code maxHits}. */
    private Policy edited(int maxHits) throws Exception {
        Policy live = client.policy();
        return live.withHitStack(new Policy.HitStack(live.hitStack().windowSeconds(), maxHits));
    }

    private void visit(String address, String agent, int requests) throws Exception {
        try (Visitor visitor = new Visitor(address, agent)) {
            for (int i = 0; i < requests; i++) {
                assertThat(visitor.get(server.frontUri(), "/page/" + i)).as("served live").isEqualTo(200);
            }
        }
    }

    /** Polls the report as the view does until the shadow has judged {@code requests}. */
    private WhatIfSummary awaitReport(long requests) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> {
                model.refresh();
                WhatIfSummary summary = model.summaryProperty().get();
                return summary != null && summary.requests() >= requests;
            });
        } catch (TimeoutException e) {
            throw new AssertionError("the shadow judged " + model.summaryProperty().get() + ", not " + requests);
        }
        return model.summaryProperty().get();
    }

    @Test
    void previewNamesTheClientsALowerLimitWouldRefuseBrowsersFirstAndApplyPromotesIt() throws Exception {
        model.preview(edited(4));
        assertThat(model.phaseProperty().get()).isEqualTo(WhatIfViewModel.Phase.PREVIEWING);
        assertThat(model.headlineProperty().get()).isEqualTo("No request yet since the preview started");
        assertThat(server.engine().policy().hitStack().maxHits()).as("a preview decides nothing").isEqualTo(10);

        visit("127.0.0.66", HTTRACK, 7);
        visit("127.0.0.67", FIREFOX, 5);
        WhatIfSummary summary = awaitReport(12);

        assertThat(model.clients()).extracting(WhatIfSummary.ClientRow::ip, WhatIfSummary.ClientRow::refused)
                .containsExactly(tuple("127.0.0.67", 1L),
                        tuple("127.0.0.66", 3L));
        WhatIfSummary.ClientRow browser = model.clients().get(0);
        assertThat(browser.requestClass()).isEqualTo(RequestClass.BROWSER);
        assertThat(browser.userAgent()).isEqualTo(FIREFOX);
        assertThat(browser.rules()).isEqualTo("hit stack ×1");
        assertThat(model.clients().get(1).userAgent()).isEqualTo(HTTRACK);
        assertThat(model.rules()).containsExactly(new WhatIfSummary.RuleRow("hit stack", "HIT_STACK", 4, 2));
        assertThat(summary.refused()).isEqualTo(4);
        assertThat(model.browsersHitProperty().get()).isTrue();
        assertThat(model.headlineProperty().get())
                .isEqualTo("4 requests from 2 clients (1 browser) would be refused that are served now");
        assertThat(model.statusProperty().get()).contains("12 requests judged by both");

        long live = server.engine().policy().version();
        model.apply();
        assertThat(model.phaseProperty().get()).isEqualTo(WhatIfViewModel.Phase.APPLIED);
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(4);
        assertThat(model.appliedProperty().get().version()).isEqualTo(live + 1);
        assertThat(model.statusProperty().get()).isEqualTo("Applied: policy version " + (live + 1));
        assertThat(client.shadow(1)).as("promoted: no shadow left beside it").isEmpty();
    }

    @Test
    void leavingTheFormRemovesTheShadow() throws Exception {
        model.preview(edited(6));
        assertThat(client.shadow(1)).isPresent();

        model.dispose();

        assertThat(client.shadow(1)).isEmpty();
        assertThat(model.phaseProperty().get()).isEqualTo(WhatIfViewModel.Phase.IDLE);
        assertThat(model.canApplyProperty().get()).isFalse();
        assertThat(client.audit(1).get(0).get("action").asText()).isEqualTo("shadow.remove");
    }

    @Test
    void aBadEditIsRefusedByFieldAndNothingIsPreviewed() throws Exception {
        model.preview(edited(0));
        assertThat(model.phaseProperty().get()).isEqualTo(WhatIfViewModel.Phase.FAILED);
        assertThat(model.errors()).extracting(FieldError::field).containsExactly("hitStack.maxHits");
        assertThat(model.canApplyProperty().get()).isFalse();
        assertThat(client.shadow(1)).isEmpty();
    }

    @Test
    void applyAfterAnotherOperatorChangedTheSameLimitIsAConflictAndChangesNothing() throws Exception {
        model.preview(edited(4));
        Policy other = client.policy();
        assertThat(client.putPolicy(other.withHitStack(new Policy.HitStack(other.hitStack().windowSeconds(), 20)),
                other.version()).installed()).isNotNull();

        model.apply();

        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(20);
        assertThat(model.phaseProperty().get()).isEqualTo(WhatIfViewModel.Phase.PREVIEWING);
        assertThat(model.statusProperty().get()).startsWith("Not applied: the live policy changed meanwhile");
        assertThat(client.shadow(1)).as("the preview goes on").isPresent();
    }

    @Test
    void anotherOperatorsPreviewReplacingThisOneIsNoticed() throws Exception {
        model.preview(edited(4));
        client.installShadow(edited(8));

        model.refresh();

        assertThat(model.phaseProperty().get()).isEqualTo(WhatIfViewModel.Phase.IDLE);
        assertThat(model.canApplyProperty().get()).isFalse();
        assertThat(model.statusProperty().get()).startsWith("Another operator replaced this preview");
    }
}
