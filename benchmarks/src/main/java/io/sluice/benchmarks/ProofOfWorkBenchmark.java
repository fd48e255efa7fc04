package io.sluice.benchmarks;

import static io.sluice.benchmarks.PassCheckBenchmark.CHROME;
import static io.sluice.benchmarks.PassCheckBenchmark.CLIENT;
import static io.sluice.benchmarks.PassCheckBenchmark.NOW;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.check.ProofOfWork;
import java.security.SecureRandom;
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
 * The proof-of-work side of the browser check (issue 46): checking a solved answer (goal: at most 50 us; one
 * HMAC and one SHA-256, whatever the difficulty), checking a wrong one, and issuing a challenge (what an
 * interstitial costs the server besides its page).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ProofOfWorkBenchmark {

    private static final int DIFFICULTY = 12;
    private static final String PATH = "/search?q=sluice&page=2";
    private static final long NO_SCRIPT_OFF = -1;

    private ProofOfWork work;
    private String token;
    private String nonce;
    private String wrongNonce;

    @Setup
    public void setUp() {
        work = new ProofOfWork(new BrowserPasses(PassKeyRing.of(PassKey.random(new SecureRandom()))));
        token = work.issue(CLIENT, CHROME, PATH, DIFFICULTY, NOW).token();
        long n = 0;
        while (!ProofOfWork.meets(token, Long.toString(n), DIFFICULTY)) {
            n++;
        }
        nonce = Long.toString(n);
        long wrong = n + 1;
        while (ProofOfWork.meets(token, Long.toString(wrong), DIFFICULTY)) {
            wrong++;
        }
        wrongNonce = Long.toString(wrong);
        if (!(solved() instanceof ProofOfWork.Solved) || wrong() instanceof ProofOfWork.Solved) {
            throw new IllegalStateException("the benchmark's answers are not what they should be");
        }
    }

    @Benchmark
    public ProofOfWork.Answer solved() {
        return work.check(token, nonce, PATH, CLIENT, CHROME, NOW + 1_000, NO_SCRIPT_OFF);
    }

    @Benchmark
    public ProofOfWork.Answer wrong() {
        return work.check(token, wrongNonce, PATH, CLIENT, CHROME, NOW + 1_000, NO_SCRIPT_OFF);
    }

    @Benchmark
    public ProofOfWork.Challenge issue() {
        return work.issue(CLIENT, CHROME, PATH, DIFFICULTY, NOW);
    }
}
