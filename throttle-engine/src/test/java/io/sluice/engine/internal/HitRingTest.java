package io.sluice.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hit stack's arithmetic against its golden cases (hit-stack-cases.json, which Redis's hit-stacks.lua is held to
 * as well, in the server's HitStackGoldenCasesTest): every case through the ring alone, and through a client's state
 * as rule 4 pushes on it.
 */
class HitRingTest {

    static List<HitStackCases.Case> cases() {
        return HitStackCases.read().cases();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theRingAnswersEveryStepOfTheCase(HitStackCases.Case golden) {
        long epochMillis = HitStackCases.read().epochSecond() * 1000;
        HitRing ring = new HitRing(new ClientKey(null, ""));
        for (int i = 0; i < golden.steps().size(); i++) {
            HitStackCases.Step step = golden.steps().get(i);
            long now = epochMillis + step.at();
            int window = step.windowIn(golden);
            ring.push(now, step.weight());
            HitStackCases.Answer actual = new HitStackCases.Answer(ring.windowHits(window),
                    ring.millisUntilBelow(now, window, step.limitIn(golden)), ring.millisUntilReset(now, window));
            assertThat(actual).as("case \"%s\", step %d (at %d ms, weight %d)", golden.name(), i + 1, step.at(),
                    step.weight()).isEqualTo(step.expected());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aClientsStateAnswersEveryStepOfTheCase(HitStackCases.Case golden) {
        long epochMillis = HitStackCases.read().epochSecond() * 1000;
        ClientState state = new ClientState();
        for (int i = 0; i < golden.steps().size(); i++) {
            HitStackCases.Step step = golden.steps().get(i);
            HitStackState<ClientState> pushed = state.push(epochMillis + step.at(), RequestClass.BROWSER, null, false,
                    step.windowIn(golden), step.limitIn(golden), step.weight());
            HitStackCases.Answer actual = new HitStackCases.Answer(pushed.hitsInWindow(), pushed.millisUntilBelow(),
                    pushed.millisUntilReset());
            assertThat(actual).as("case \"%s\", step %d", golden.name(), i + 1).isEqualTo(step.expected());
        }
    }

    @Test
    void theCasesCoverWindowsOfOneSecondAndOfTheLongestAndAClockGoingBack() {
        HitStackCases golden = HitStackCases.read();
        assertThat(golden.cases()).extracting(HitStackCases.Case::window)
                .contains(1, Policy.HitStack.MAX_WINDOW_SECONDS);
        assertThat(golden.cases()).anySatisfy(c -> assertThat(c.steps()).extracting(HitStackCases.Step::at)
                .isNotEqualTo(c.steps().stream().map(HitStackCases.Step::at).sorted().toList()));
        assertThat(golden.cases()).extracting(HitStackCases.Case::name).doesNotHaveDuplicates();
    }

    @Test
    void theRingKeepsTheLongestWindowAndNoMore() {
        assertThat(HitRing.SECONDS).isEqualTo(Policy.HitStack.MAX_WINDOW_SECONDS);
        HitRing ring = new HitRing(new ClientKey(null, ""));
        long start = 1_764_000_000_000L;
        ring.push(start, 2);
        ring.push(start + (HitRing.SECONDS - 1) * 1000L, 1);
        assertThat(ring.hitsAt(HitRing.secondOf(start))).as("the oldest second still held").isEqualTo(2);
        ring.push(start + HitRing.SECONDS * 1000L, 1);
        assertThat(ring.hitsAt(HitRing.secondOf(start))).as("a second past the ring").isZero();
        assertThat(ring.windowHits(HitRing.SECONDS)).isEqualTo(2);
    }
}
