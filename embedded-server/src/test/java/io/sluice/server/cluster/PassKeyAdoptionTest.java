package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.server.state.PassKeyFile;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

class PassKeyAdoptionTest {
    private static final long NOW = 1_790_000_000_000L;
    private final SecureRandom random = new SecureRandom();
    private final PassKey k1 = PassKey.random(random);
    private final PassKey k2 = PassKey.random(random);
    private final PassKey k3 = PassKey.random(random);

    private static SharedRing shared(PassKeyRing ring) {
        return new SharedRing(PassKeyFile.format(ring), "n", NOW);
    }

    @Test
    void noRingInTheClusterIsPublishedOverNothing() {
        assertThat(PassKeyAdoption.decide(PassKeyRing.of(k1), SharedRing.NONE))
                .isEqualTo(new PassKeyAdoption.Publish(null, false));
    }

    @Test
    void theSameRingIsKept() {
        PassKeyRing ring = new PassKeyRing(k2, k1, NOW);
        assertThat(PassKeyAdoption.decide(ring, shared(new PassKeyRing(k2, k1, NOW))))
                .isInstanceOf(PassKeyAdoption.Keep.class);
    }

    @Test
    void aRotationOfTheClustersRingIsPublishedOverIt() {
        SharedRing cluster = shared(PassKeyRing.of(k1));
        assertThat(PassKeyAdoption.decide(new PassKeyRing(k2, k1, NOW), cluster))
                .isEqualTo(new PassKeyAdoption.Publish(cluster.text(), true));
    }

    @Test
    void anyOtherDifferenceAdoptsTheClusters() {
        PassKeyRing cluster = new PassKeyRing(k3, k2, NOW);
        List<PassKeyRing> locals = List.of(PassKeyRing.of(k1), PassKeyRing.of(k2), new PassKeyRing(k2, k1, NOW),
                new PassKeyRing(k3, k2, NOW + 1), new PassKeyRing(k1, k2, NOW));
        for (PassKeyRing local : locals) {
            assertThat(PassKeyAdoption.decide(local, shared(cluster))).as(local.toString())
                    .isEqualTo(new PassKeyAdoption.Adopt(cluster));
        }
    }

    @Test
    void aRingThatCannotBeParsedIsRefusedSayingWhy() {
        for (String text : new String[] {"", "garbage", "current=AAAA\n", "current=" + "x".repeat(10_000)}) {
            assertThat(PassKeyAdoption.decide(PassKeyRing.of(k1), new SharedRing(text, "n", NOW)))
                    .isInstanceOf(PassKeyAdoption.Refuse.class);
        }
    }
}
