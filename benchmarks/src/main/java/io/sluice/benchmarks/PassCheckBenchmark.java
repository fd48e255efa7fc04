package io.sluice.benchmarks;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.Pass;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.net.IpAddress;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Checking a browser pass, as the front end does on every request that carries one (issue 46; goal: at most
 * 2 us): a valid pass with a current browser's user agent; one signed by the previous key after a rotation; a
 * forged one (a valid one with a bit of its tag changed: the whole HMAC is computed before it is refused); and
 * a value that is not a pass at all (refused before any cryptography).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PassCheckBenchmark {

    static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
            + "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    static final IpAddress CLIENT = IpAddress.parse("198.51.100.23");
    static final long NOW = 1_790_000_000_000L;
    private static final long WEEK = 7 * 24 * 3600 * 1000L;

    private BrowserPasses passes;
    private String valid;
    private String previousKey;
    private String forged;

    @Setup
    public void setUp() {
        SecureRandom random = new SecureRandom();
        passes = new BrowserPasses(PassKeyRing.of(PassKey.random(random)));
        previousKey = passes.mint("previousKeyPass0", false, CLIENT, CHROME, NOW + WEEK);
        passes.keys(passes.keys().rotated(PassKey.random(random), NOW, WEEK));
        valid = passes.mint("aValidPassId0123", false, CLIENT, CHROME, NOW + WEEK);
        byte[] bytes = Base64.getUrlDecoder().decode(valid);
        bytes[bytes.length - 8] ^= 1; // in the tag: the key is known, the HMAC is computed, and it does not match
        forged = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        if (check(valid) == null || check(previousKey) == null || check(forged) != null) {
            throw new IllegalStateException("the benchmark's passes are not what they should be");
        }
    }

    private Pass check(String cookie) {
        return passes.check(cookie, CLIENT, CHROME, NOW);
    }

    @Benchmark
    public Pass valid() {
        return check(valid);
    }

    @Benchmark
    public Pass previousKey() {
        return check(previousKey);
    }

    @Benchmark
    public Pass forged() {
        return check(forged);
    }

    @Benchmark
    public Pass garbage() {
        return check("not a pass at all, but about as long as one would be: 0123456789");
    }
}
