package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThatCode;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.state.StateDirectory;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recorder runs beside the request path: what it cannot do never becomes a request's failure. */
class AutomaticBanRecorderTest {

    @Test
    void aBanMadeWhileStoppingIsNotRecordedAndDoesNotFailTheRequestThatMadeIt(@TempDir Path dir) {
        StateDirectory state = StateDirectory.open(dir, null);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(),
                state.loadPolicy(), CrawlerListClassifier.bundled());
        AutomaticBanRecorder recorder = new AutomaticBanRecorder(engine, state, InstantSource.system(),
                new PolicyHistory(engine.policy()));
        recorder.close();
        Ban ban = new Ban("auto-1", BanType.CLIENT, "192.0.2.1|curl/8.5.0", "escalation", "sluice", Instant.now(),
                Instant.now().plusSeconds(60));

        assertThatCode(() -> recorder.changed(engine.policy(), List.of(ban), List.of())).doesNotThrowAnyException();
    }
}
