package io.sluice.console.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.console.testkit.Visitor;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.whatif.WhatIfReport;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shadow calls of the admin client against a real front end with real traffic through it. */
class AdminClientShadowTest {
    private static final String HTTRACK = "Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)";

    @TempDir
    Path state;

    private SluiceServer server;
    private AdminClient client;

    @BeforeEach
    void start() throws Exception {
        server = Demo.start(ServerConfig.demo(state));
        client = new AdminClient(server.adminUri(), server.adminToken(), "tester");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Policy withMaxHits(int maxHits) throws AdminException {
        Policy live = client.policy();
        return live.withHitStack(new Policy.HitStack(live.hitStack().windowSeconds(), maxHits));
    }

    @Test
    void aShadowReportsTheClientItWouldRefuseAndPromotingMakesItLive() throws Exception {
        assertThat(client.shadow(10)).isEqualTo(Optional.empty());
        AdminClient.ShadowUpdate installed = client.installShadow(withMaxHits(4));
        assertThat(installed.errors()).isEmpty();
        assertThat(installed.installed().policy().hitStack().maxHits()).isEqualTo(4);

        try (Visitor copier = new Visitor("127.0.0.66", HTTRACK)) {
            for (int i = 0; i < 7; i++) {
                assertThat(copier.get(server.frontUri(), "/page/" + i)).isEqualTo(200); // live allows 10
            }
        }
        ShadowView shadow = Await.value(Duration.ofSeconds(20), () -> client.shadow(10)
                .filter(s -> s.report().requests() >= 7), "the shadow to count 7 requests");
        WhatIfReport report = shadow.report();
        assertThat(report.candidateRefused()).isEqualTo(3);
        assertThat(report.liveRefused()).isZero();
        WhatIfReport.ClientDifference copier = report.clients().get(0);
        assertThat(copier.ip()).isEqualTo("127.0.0.66");
        assertThat(copier.userAgent()).isEqualTo(HTTRACK);
        assertThat(copier.requestClass()).isNotEqualTo(RequestClass.BROWSER);
        assertThat(copier.candidate()).containsEntry("REFUSE:HIT_STACK", 3L);

        AdminClient.PolicyUpdate stale = client.promoteShadow(shadow.liveVersion() - 1);
        assertThat(stale.conflict()).isTrue();
        AdminClient.PolicyUpdate promoted = client.promoteShadow(shadow.liveVersion());
        assertThat(promoted.installed().version()).isEqualTo(shadow.liveVersion() + 1);
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(4);
        assertThat(client.shadow(10)).isEmpty();
        assertThatThrownBy(() -> client.promoteShadow(promoted.installed().version()))
                .isInstanceOfSatisfying(AdminException.class,
                        e -> assertThat(e.kind()).isEqualTo(AdminException.Kind.REJECTED));
    }

    @Test
    void aBadCandidateIsRefusedByFieldAndRemovingSaysWhetherThereWasOne() throws Exception {
        AdminClient.ShadowUpdate refused = client.installShadow(withMaxHits(0));
        assertThat(refused.installed()).isNull();
        assertThat(refused.errors()).extracting(FieldError::field).containsExactly("hitStack.maxHits");
        assertThat(client.shadow(10)).isEmpty();

        assertThat(client.installShadow(withMaxHits(5)).installed()).isNotNull();
        assertThat(client.removeShadow()).isTrue();
        assertThat(client.removeShadow()).isFalse();
        assertThat(client.shadow(10)).isEmpty();
    }
}
