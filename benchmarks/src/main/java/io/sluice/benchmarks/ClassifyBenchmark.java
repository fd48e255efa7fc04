package io.sluice.benchmarks;

import io.sluice.engine.UserAgentMatch;
import io.sluice.engine.classify.CrawlerList;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * User-agent classification: a cached hit, a miss on a unique random 200-character user agent (what a
 * spray of random user agents costs), and the naive baseline that runs every list pattern in order on
 * the same kind of input. All three in one run, so the ratio is fair.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClassifyBenchmark {

    private static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
            + "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    private static final int POOL = 4096;

    private CrawlerListClassifier classifier;
    private Pattern[] naive;
    private Policy.Classification classification;
    private String[] randomAgents;
    private String[] knownAgents;
    private int next;
    private long unique;
    private Random random;

    @Setup(Level.Trial)
    public void setUp() {
        CrawlerList list = CrawlerList.bundled();
        classifier = CrawlerListClassifier.of(list, CrawlerListClassifier.DEFAULT_CACHE_SIZE);
        naive = list.patterns().toArray(new Pattern[0]);
        classification = Policy.Classification.DEFAULT;
        random = new Random(42);
        randomAgents = new String[POOL];
        for (int i = 0; i < POOL; i++) {
            randomAgents[i] = RandomAgents.browserLike(random, 200);
        }
        // a realistic cached mix: browsers, crawlers from the list, tools
        knownAgents = new String[64];
        for (int i = 0; i < knownAgents.length; i++) {
            knownAgents[i] = i % 4 == 0 ? CHROME + " " + i
                    : list.entries().get(random.nextInt(list.size())).instances().get(0);
        }
        for (String ua : knownAgents) {
            classifier.classify(ua, classification);
        }
    }

    /** Cached: a small set of user agents seen before. */
    @Benchmark
    public UserAgentMatch cached() {
        return classifier.classify(knownAgents[next++ & 63], classification);
    }

    /**
     * Uncached through the public path: each call a new 200-char user agent (a random tail is changed per
     * call so no two are equal), so every call misses the cache and inserts into it.
     */
    @Benchmark
    public UserAgentMatch uncachedUnique() {
        String base = randomAgents[next++ & (POOL - 1)];
        String ua = base.substring(0, 188) + Long.toString(0x10000000000L + unique++, 36);
        return classifier.classify(ua, classification);
    }

    /** The matching work alone, no cache: random 200-char user agents. */
    @Benchmark
    public UserAgentMatch uncachedMatchOnly() {
        return classifier.classifyUncached(randomAgents[next++ & (POOL - 1)], classification);
    }

    /** Baseline: every pattern in list order, first found wins (what a naive classifier does). */
    @Benchmark
    public int naiveScan() {
        String ua = randomAgents[next++ & (POOL - 1)];
        for (int i = 0; i < naive.length; i++) {
            if (naive[i].matcher(ua).find()) {
                return i;
            }
        }
        return -1;
    }
}
