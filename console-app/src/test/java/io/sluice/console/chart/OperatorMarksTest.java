package io.sluice.console.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.console.api.AdminException;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.policy.PolicyJson;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The operator's actions as chart marks, read from the audit, without the toolkit. */
class OperatorMarksTest {
    private static final Instant NOW = TestSessions.NOW;
    private static final ObjectMapper JSON = PolicyJson.mapper();

    private final List<Integer> reads = new ArrayList<>();
    private final List<Object> answers = new ArrayList<>();
    private final OperatorMarks marks = new OperatorMarks(new CurrentThreadUiExecutor(), limit -> {
        reads.add(limit);
        Object answer = answers.remove(0);
        if (answer instanceof AdminException e) {
            throw e;
        }
        @SuppressWarnings("unchecked")
        List<JsonNode> entries = (List<JsonNode>) answer;
        return entries;
    });

    private static JsonNode entry(long seq, String action, String detail) throws Exception {
        return JSON.readTree("{\"seq\":" + seq + ",\"at\":\"" + NOW.plusSeconds(seq) + "\",\"who\":\"admin\","
                + "\"action\":\"" + action + "\",\"detail\":\"" + detail + "\"}");
    }

    @Test
    void onlyActionsThatChangeTrafficAreMarks() throws Exception {
        assertThat(AuditMark.of(JSON.readTree("{\"seq\":3,\"at\":\"2026-11-22T12:00:05Z\",\"who\":\"admin\","
                + "\"action\":\"pause\",\"detail\":\"paused the whole service\"}"))).get()
                .isEqualTo(new AuditMark(3, NOW.getEpochSecond() + 5, AuditMark.Kind.PAUSE, "admin",
                        "paused the whole service"));
        assertThat(AuditMark.of(JSON.readTree("{\"at\":\"2026-11-22T12:00:05Z\",\"action\":\"policy.promote\"}"))
                .get().kind()).isEqualTo(AuditMark.Kind.POLICY);
        assertThat(AuditMark.of(JSON.readTree("{\"at\":\"2026-11-22T12:00:05Z\",\"action\":\"ban.expire\"}"))
                .get().kind()).isEqualTo(AuditMark.Kind.UNBAN);
        assertThat(AuditMark.of(JSON.readTree("{\"at\":\"2026-11-22T12:00:05Z\",\"action\":\"token.add\"}")))
                .isEmpty();
    }

    @Test
    void theAuditIsReadWhenThePolicyVersionChangesAndItsActionsAreMarkedOldestFirst() throws Exception {
        answers.add(List.of(entry(9, "ban.add", "ip 203.0.113.7"), entry(8, "token.add", "grafana"),
                entry(7, "pause", "paused the whole service")));

        marks.policyVersion(5);
        marks.policyVersion(5);

        assertThat(reads).as("one read for one version").containsExactly(OperatorMarks.READ);
        assertThat(marks.marks()).extracting(AuditMark::seq, AuditMark::kind)
                .containsExactly(tuple(7L, AuditMark.Kind.PAUSE),
                        tuple(9L, AuditMark.Kind.BAN));

        answers.add(List.of(entry(10, "resume", "resumed the whole service"), entry(9, "ban.add", "ip 203.0.113.7")));
        marks.policyVersion(6);
        assertThat(reads).hasSize(2);
        assertThat(marks.marks()).extracting(AuditMark::kind).containsExactly(AuditMark.Kind.BAN,
                AuditMark.Kind.RESUME);
    }

    @Test
    void aFailedReadIsTriedAgainAtTheNextVersionSeenEvenTheSameOne() throws Exception {
        answers.add(new AdminException(AdminException.Kind.UNREACHABLE, "cannot reach the server"));
        answers.add(List.of(entry(7, "ban.add", "agent HTTrack")));

        marks.policyVersion(5);
        assertThat(marks.marks()).isEmpty();
        marks.policyVersion(5);

        assertThat(reads).hasSize(2);
        assertThat(marks.marks()).extracting(AuditMark::kind).containsExactly(AuditMark.Kind.BAN);
    }
}
