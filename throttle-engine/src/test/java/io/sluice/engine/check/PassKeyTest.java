package io.sluice.engine.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PassKeyTest {

    static final long DAY = 24 * 3600 * 1000L;

    /** A seeded source of keys: tests are the same every run. */
    static SecureRandom seeded(long seed) {
        return new SecureRandom() {
            private final Random random = new Random(seed);

            @Override
            public void nextBytes(byte[] bytes) {
                random.nextBytes(bytes);
            }
        };
    }

    @Test
    void copiesItsSecretInAndOutAndComparesByContent() {
        byte[] bytes = new byte[32];
        bytes[0] = 7;
        PassKey key = new PassKey(bytes);
        bytes[0] = 8;
        assertThat(key.secret()[0]).isEqualTo((byte) 7);
        key.secret()[0] = 9;
        assertThat(key.secret()[0]).isEqualTo((byte) 7);
        bytes[0] = 7;
        assertThat(key).isEqualTo(new PassKey(bytes)).hasSameHashCodeAs(new PassKey(bytes));
        assertThat(key).isNotEqualTo(PassKey.random(seeded(1)));
    }

    @Test
    void neverPrintsItsSecret() {
        byte[] bytes = new byte[32];
        java.util.Arrays.fill(bytes, (byte) 0xAB);
        PassKey key = new PassKey(bytes);
        assertThat(key.toString()).doesNotContainIgnoringCase("ab, ").doesNotContain("-85")
                .doesNotContainIgnoringCase("abab").matches("PassKey\\[id=[0-9a-f]{8}]");
        assertThat(key.toString()).isEqualTo(String.format("PassKey[id=%08x]", key.id()));
    }

    @Test
    void hasThirtyTwoBytes() {
        assertThatThrownBy(() -> new PassKey(new byte[31])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PassKey(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void itsIdIsTheFirstFourBytesOfItsSha256() throws Exception {
        PassKey key = new PassKey(new byte[32]);
        // SHA-256 of 32 zero bytes: 66687aad f862bd77 ...
        assertThat(key.id()).isEqualTo(0x66687aad);
    }

    @Test
    void aRotatedRingAcceptsThePreviousKeyForOnePassLifetime() {
        PassKey first = PassKey.random(seeded(1));
        PassKey second = PassKey.random(seeded(2));
        PassKeyRing ring = PassKeyRing.of(first);
        assertThat(ring.forId(first.id(), 0)).isEqualTo(first);
        assertThat(ring.forId(second.id(), 0)).isNull();

        PassKeyRing rotated = ring.rotated(second, 1_000, 7 * DAY);
        assertThat(rotated.current()).isEqualTo(second);
        assertThat(rotated.previous()).isEqualTo(first);
        assertThat(rotated.previousAcceptedUntilMillis()).isEqualTo(1_000 + 7 * DAY);
        assertThat(rotated.forId(second.id(), 1_000)).isEqualTo(second);
        assertThat(rotated.forId(first.id(), 1_000 + 7 * DAY - 1)).isEqualTo(first);
        assertThat(rotated.forId(first.id(), 1_000 + 7 * DAY)).isNull();

        PassKey third = PassKey.random(seeded(3));
        PassKeyRing again = rotated.rotated(third, 2_000, 7 * DAY);
        assertThat(again.forId(first.id(), 2_000)).as("retired at the next rotation").isNull();
        assertThat(again.forId(second.id(), 2_000)).isEqualTo(second);
        assertThat(rotated.rotated(third, Long.MAX_VALUE - 1, DAY).previousAcceptedUntilMillis())
                .isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> rotated.rotated(second, 0, DAY)).isInstanceOf(IllegalArgumentException.class);
    }
}
