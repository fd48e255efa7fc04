package io.sluice.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.RequestClass;
import io.sluice.engine.store.ClientKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The compact per-client buckets against a naive list of every hit and refusal, over many random seeded runs. */
class ClientStateFuzzTest {

    @Test
    void bucketsAgreeWithANaiveListOfHits() {
        for (int seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            ClientState state = new ClientState();
            List<Long> naive = new ArrayList<>();
            List<Long> refusals = new ArrayList<>();
            long now = 1_700_000_000_000L + random.nextInt(1000);
            for (int step = 0; step < 400; step++) {
                int pick = random.nextInt(10);
                now += pick < 6 ? random.nextInt(300) : pick < 9 ? random.nextInt(5_000) : random.nextInt(90_000);
                int window = 1 + random.nextInt(60);
                int maxHits = 1 + random.nextInt(20);
                naive.add(now);
                HitStackState<ClientState> actual = state.push(now, RequestClass.BOT, null, false, window, maxHits, 1);
                long nowSecond = Math.floorDiv(now, 1000);
                List<Long> inWindow = naive.stream().filter(t -> Math.floorDiv(t, 1000) > nowSecond - window).toList();
                String where = "seed " + seed + " step " + step;
                assertThat(actual.hitsInWindow()).as(where).isEqualTo(inWindow.size());
                long expectedUntilBelow = 0;
                if (inWindow.size() >= maxHits) {
                    // the hit whose second's departure leaves fewer than maxHits
                    long leaving = inWindow.get(inWindow.size() - maxHits);
                    expectedUntilBelow = (Math.floorDiv(leaving, 1000) + window) * 1000 - now;
                }
                assertThat(actual.millisUntilBelow()).as(where).isEqualTo(expectedUntilBelow);
                long expectedReset = inWindow.isEmpty() ? 0
                        : (Math.floorDiv(inWindow.get(0), 1000) + window) * 1000 - now;
                assertThat(actual.millisUntilReset()).as(where).isEqualTo(expectedReset);
                if (random.nextInt(8) == 0) {
                    state.limited(now, true);
                    refusals.add(now);
                }
                if (random.nextInt(20) == 0) {
                    ClientSample sample = state.sample(new ClientKey(null, ""), now, window);
                    assertThat(sample.hitsInWindow()).as(where).isEqualTo(inWindow.size());
                    for (int i = 0; i < HitRing.SECONDS; i++) {
                        long second = nowSecond - HitRing.SECONDS + 1 + i;
                        long expected = naive.stream().filter(t -> Math.floorDiv(t, 1000) == second).count();
                        long refused = refusals.stream().filter(t -> Math.floorDiv(t, 1000) == second).count();
                        assertThat(sample.hitsPerSecond()[i]).as(where + " row " + i).isEqualTo((int) expected);
                        assertThat(sample.refusedPerSecond()[i]).as(where + " refused " + i).isEqualTo((int) refused);
                    }
                }
            }
        }
    }
}
