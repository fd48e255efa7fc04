package io.sluice.server.cluster;

import static io.sluice.server.cluster.ClusterFixture.awaitState;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.governor.Permit;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.telemetry.ClusterState;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 4: one worker token must not fill the cluster's Redis with domains. The cluster keeps at most as
 * many domains as one node does (here 50, by default 100,000), every node together: a new domain past that is
 * refused with its own reason until one is forgotten, a domain already kept is served as ever, an operator's change
 * is never refused, and a domain idle long enough leaves the count. On one redis-server; a Redis Cluster in
 * {@link RedisClusterDomainCapTest}.
 */
class RedisDomainCapTest extends OneRedisPerClass {
    private static final int CAP = 50;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-22T08:00:00Z"));
    private RedisDomainLedger ledger;
    private CrawlGovernor governor;

    @BeforeEach
    void governor() {
        // Patient: a call Redis answers late on a loaded machine would be paced here alone, beside the point.
        ClusterNode node = cluster.node("a", new ClusterFixture.FixedLoad(0), ClusterFixture.PATIENT);
        awaitState(node, ClusterState.HEALTHY);
        ledger = RedisDomainLedger.of(node, ClusterFixture.PATIENT, Runnable::run, now::get, CAP);
        governor = new CrawlGovernor(now::get, () -> GovernorPolicy.DEFAULTS, RandomGenerator.of("L64X128MixRandom"),
                1_000, Map.of());
        governor.shareWith(ledger);
    }

    private static List<String> domains(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + i + ".example").toList();
    }

    private static <T> T join(CompletionStage<T> call) throws Exception {
        return call.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private List<Permit> permits(List<String> domains) throws Exception {
        List<Permit> permits = new ArrayList<>();
        for (String domain : domains) {
            permits.add(join(governor.acquireAsync(domain)));
        }
        return permits;
    }

    /** How many of {@code domains} have a hash in Redis. */
    private long kept(List<String> domains) throws IOException {
        long kept = 0;
        for (String domain : domains) {
            kept += Long.parseLong(server.command("EXISTS", ledger.key(domain)));
        }
        return kept;
    }

    private String registry() {
        return ClusterFixture.PATIENT.key("gov-domains");
    }

    private void pass(Duration time) {
        now.updateAndGet(t -> t.plus(time));
    }

    @Test
    void oneWorkerCannotFillRedisWithDomainsPastTheClustersCap() throws Exception {
        List<String> spray = domains("spray", CAP + 30);

        List<Permit> permits = permits(spray);

        assertThat(permits.subList(0, CAP)).allSatisfy(permit -> assertThat(permit.granted()).isTrue());
        assertThat(permits.subList(CAP, spray.size())).allSatisfy(permit -> {
            assertThat(permit.granted()).isFalse();
            assertThat(String.valueOf(permit.reason())).isEqualTo("DOMAIN_LIMIT");
            assertThat(permit.waitMillis()).as("until the first kept is forgotten: over an hour")
                    .isGreaterThan(Duration.ofHours(1).toMillis());
        });
        assertThat(kept(spray)).as("domain hashes in Redis").isEqualTo(CAP);
        assertThat(server.command("ZCARD", registry())).isEqualTo(String.valueOf(CAP));
        assertThat(governor.pacing().mode()).as("a full table is no failure of Redis").isEqualTo(Pacing.Mode.CLUSTER);

        Permit known = join(governor.acquireAsync(spray.get(0)));
        assertThat(String.valueOf(known.reason())).as("a domain kept already is paced as ever").isEqualTo("PACING");
    }

    @Test
    void aFrontierNamingNewDomainsWhenFullIsAnsweredForTheOnesKept() throws Exception {
        List<String> kept = domains("kept", CAP);
        permits(kept);
        pass(Duration.ofSeconds(2));

        Permit any = join(governor.acquireAnyAsync(List.of("new1.example", kept.get(7), "new2.example")));
        Permit onlyNew = join(governor.acquireAnyAsync(List.of("new3.example", "new4.example")));

        assertThat(any.granted()).isTrue();
        assertThat(any.domain()).isEqualTo(kept.get(7));
        assertThat(String.valueOf(onlyNew.reason())).isEqualTo("DOMAIN_LIMIT");
        assertThat(kept(List.of("new1.example", "new2.example", "new3.example", "new4.example"))).isZero();
    }

    @Test
    void aReportOnANewDomainWhenFullIsJudgedOnThisNodeAloneAndKeptNowhere() throws Exception {
        permits(domains("kept", CAP));

        Pacing.Mode judged = join(governor.reportAsync(Feedback.of("late.example", 503, 120)));

        assertThat(judged).isEqualTo(Pacing.Mode.LOCAL);
        assertThat(kept(List.of("late.example"))).isZero();
        assertThat(governor.pacing().mode()).isEqualTo(Pacing.Mode.CLUSTER);
    }

    @Test
    void anOperatorsChangeIsNeverRefused() throws Exception {
        permits(domains("kept", CAP));

        governor.setMinDelay("ops.example", 5_000);

        assertThat(kept(List.of("ops.example"))).isOne();
        assertThat(server.command("ZCARD", registry())).isEqualTo(String.valueOf(CAP + 1));
    }

    @Test
    void domainsIdleLongEnoughLeaveTheCountAndActiveOnesStayInIt() throws Exception {
        List<String> first = domains("first", CAP);
        permits(first);
        // One of them stays in use, every 20 minutes; the others go idle.
        for (int i = 0; i < 6; i++) {
            pass(Duration.ofMinutes(20));
            join(governor.acquireAsync(first.get(0)));
        }

        List<Permit> later = permits(domains("later", CAP));

        assertThat(later.subList(0, CAP - 1)).as("room left by the idle ones")
                .allSatisfy(permit -> assertThat(permit.granted()).isTrue());
        assertThat(String.valueOf(later.get(CAP - 1).reason())).as("the one in use kept its place")
                .isEqualTo("DOMAIN_LIMIT");
        assertThat(String.valueOf(join(governor.acquireAsync(first.get(0))).reason())).isNotEqualTo("DOMAIN_LIMIT");
        assertThat(governor.pacing().mode()).as("every answer the cluster's").isEqualTo(Pacing.Mode.CLUSTER);
    }
}
