package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The codec that writes arguments straight into the command puts on the wire what Lettuce's UTF-8 codec does. */
class Utf8CodecTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "sluice:{10.1.2.3}:k:10.1.2.3:9f2c01ab", "route:/café", "crawler:Bingbot/2.0 ✓",
        "a key with an emoji 😀 in it", "an unpaired surrogate \ud800 here", "\udc00 at the start"})
    void encodesKeysAndArgumentsAsLettucesUtf8CodecDoes(String text) {
        assertThat(wire(Utf8Codec.UTF8, text)).isEqualTo(wire(StringCodec.UTF8, text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.1.2.3", "naïve", "😀"})
    void readsWhatItWrites(String text) {
        assertThat(Utf8Codec.UTF8.decodeValue(Utf8Codec.UTF8.encodeValue(text))).isEqualTo(text);
        assertThat(Utf8Codec.UTF8.decodeKey(Utf8Codec.UTF8.encodeKey(text))).isEqualTo(text);
    }

    private static String wire(RedisCodec<String, String> codec, String text) {
        ByteBuf target = Unpooled.buffer();
        try {
            new CommandArgs<>(codec).addKey(text).add(text).addValue(text).encode(target);
            return ByteBufUtil.hexDump(target);
        } finally {
            target.release();
        }
    }
}
