package io.sluice.server.cluster;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;

/**
 * Keys and arguments as UTF-8, written straight into the command's buffer. Lettuce's {@code StringCodec.UTF8} only
 * estimates a string's encoded length, so Lettuce encodes every argument into a buffer of its own first and then
 * copies it, byte by byte for its length prefix: a fifth of a cluster node's CPU samples under load
 * (docs/BENCHMARKS.md, issue 29). Counting a string's UTF-8 bytes first costs one pass over its chars.
 */
final class Utf8Codec implements RedisCodec<String, String>, ToByteBufEncoder<String, String> {
    static final Utf8Codec UTF8 = new Utf8Codec();

    private static final StringCodec DECODER = StringCodec.UTF8;

    private Utf8Codec() {
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    @Override
    public int estimateSize(Object keyOrValue) {
        return keyOrValue == null ? 0 : ByteBufUtil.utf8Bytes((CharSequence) keyOrValue);
    }

    @Override
    public void encodeKey(String key, ByteBuf target) {
        encode(key, target);
    }

    @Override
    public void encodeValue(String value, ByteBuf target) {
        encode(value, target);
    }

    private static void encode(String text, ByteBuf target) {
        if (text != null) {
            ByteBufUtil.writeUtf8(target, text);
        }
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return DECODER.encodeKey(key);
    }

    @Override
    public ByteBuffer encodeValue(String value) {
        return DECODER.encodeValue(value);
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return DECODER.decodeKey(bytes);
    }

    @Override
    public String decodeValue(ByteBuffer bytes) {
        return DECODER.decodeValue(bytes);
    }
}
