package io.sluice.benchmarks.fleet;

import io.sluice.engine.check.BrowserPasses;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Issue 46's scraper fleet: {@code networks} /24s of {@code perNetwork} addresses each ({@code 127.1.n.1} upwards;
 * Linux routes all of 127/8 to the loopback), every address a thread with one keep-alive connection bound to it,
 * asking for a new page {@code intervalMillis} after its last answer came (the first within one interval of the
 * start, spread evenly), with one of five current browser user agents (one per /24, so that a /24 can share a pass,
 * which is bound to the user agent). It sends what an HTTP library sends: a browser's {@code Accept}, no
 * {@code Sec-Fetch-*}.
 *
 * <p>What it does with the interstitial is its {@link Mode}: ignore it, as a plain scraper does; or solve the
 * proof-of-work in native code ({@link Challenge}), answer it at {@code /.sluice/pass}, keep the pass cookie and
 * follow the redirect to the page, sharing one pass per /24 or minting one per address.
 */
final class Fleet implements AutoCloseable {
    /** Five current browsers' user agents. */
    static final String[] USER_AGENTS = {
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 "
            + "Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 "
            + "Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 "
            + "Safari/605.1.15",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:145.0) Gecko/20100101 Firefox/145.0",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 "
            + "Safari/537.36 Edg/142.0.0.0",
    };

    enum Mode {
        /** A plain HTTP client: an interstitial is an answer like any other, and it moves on. */
        PLAIN,
        /** Solves every proof-of-work; one pass per /24, shared by its addresses, minted again when dropped. */
        SHARED_PASS,
        /** Solves every proof-of-work; a pass of its own per address. */
        PASS_PER_ADDRESS
    }

    /** What the fleet saw, counted while it ran. */
    static final class Counts {
        final LongAdder requests = new LongAdder();
        final LongAdder pages = new LongAdder();
        final LongAdder interstitials = new LongAdder();
        final LongAdder solved = new LongAdder();
        final LongAdder hashes = new LongAdder();
        final LongAdder answersRefused = new LongAdder();
        final LongAdder otherAnswers = new LongAdder();
        final LongAdder errors = new LongAdder();
        final Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        /** How long each answer took, in microseconds, in the order they came (the first {@code length}). */
        private final long[] micros = new long[1 << 20];
        private final AtomicInteger answered = new AtomicInteger();

        void status(int code) {
            statuses.computeIfAbsent(code, c -> new LongAdder()).increment();
        }

        void took(long nanos) {
            int at = answered.getAndIncrement();
            if (at < micros.length) {
                micros[at] = nanos / 1_000;
            }
        }

        /** The answers' times in milliseconds at the given quantiles (nearest rank), or zeros when none came. */
        double[] answerMillis(double... quantiles) {
            long[] sorted = Arrays.copyOf(micros, Math.min(micros.length, answered.get()));
            Arrays.sort(sorted);
            double[] at = new double[quantiles.length];
            for (int i = 0; i < quantiles.length && sorted.length > 0; i++) {
                int rank = (int) Math.ceil(quantiles[i] * sorted.length);
                at[i] = sorted[Math.max(0, Math.min(sorted.length, rank) - 1)] / 1000.0;
            }
            return at;
        }
    }

    private final InetSocketAddress front;
    private final Mode mode;
    private final long intervalMillis;
    private final int timeoutMillis;
    private final Counts counts = new Counts();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Http1> connections = new ArrayList<>();
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile long goAt;
    private volatile boolean running = true;

    private Fleet(InetSocketAddress front, Mode mode, long intervalMillis, int timeoutMillis) {
        this.front = front;
        this.mode = mode;
        this.intervalMillis = intervalMillis;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Readies the fleet: every address's thread started, waiting for {@link #go} (starting a thousand threads takes
     * seconds on a busy machine, which would otherwise be the attack's first seconds).
     */
    static Fleet prepare(InetSocketAddress front, Mode mode, int networks, int perNetwork, long intervalMillis,
                         int timeoutMillis, long seed) throws UnknownHostException {
        Fleet fleet = new Fleet(front, mode, intervalMillis, timeoutMillis);
        Random random = new Random(seed);
        int total = networks * perNetwork;
        long[] offsets = new long[total];
        for (int i = 0; i < total; i++) {
            offsets[i] = i * intervalMillis / total;
        }
        for (int i = total - 1; i > 0; i--) { // shuffled, so no /24 starts first
            int j = random.nextInt(i + 1);
            long swap = offsets[i];
            offsets[i] = offsets[j];
            offsets[j] = swap;
        }
        for (int n = 0; n < networks; n++) {
            Network network = new Network(USER_AGENTS[n % USER_AGENTS.length]);
            for (int a = 0; a < perNetwork; a++) {
                int index = n * perNetwork + a;
                InetAddress local = InetAddress.getByAddress(new byte[] {127, 1, (byte) n, (byte) (a + 1)});
                Http1 connection = new Http1(local, front, timeoutMillis);
                fleet.connections.add(connection);
                Thread thread = new Thread(null, () -> fleet.browse(index, network, connection, offsets[index]),
                        "fleet-" + local.getHostAddress(), 256 * 1024);
                thread.setDaemon(true);
                fleet.threads.add(thread);
            }
        }
        fleet.threads.forEach(Thread::start);
        return fleet;
    }

    /** Lets every address go: each asks for its first page within one interval from now. */
    void go() {
        goAt = System.currentTimeMillis();
        go.countDown();
    }

    Counts counts() {
        return counts;
    }

    /** One /24: its user agent and, when shared, its pass. */
    private static final class Network {
        final String userAgent;
        // Guarded by this.
        String pass;

        Network(String userAgent) {
            this.userAgent = userAgent;
        }
    }

    private void browse(int index, Network network, Http1 connection, long offsetMillis) {
        String ownPass = null;
        long page = 0;
        try {
            go.await();
            sleepUntil(goAt + offsetMillis);
            while (running) {
                String path = "/articles/" + index + "-" + page++;
                try {
                    ownPass = fetch(path, network, connection, ownPass);
                } catch (IOException e) {
                    if (running) {
                        counts.errors.increment();
                    }
                }
                Thread.sleep(intervalMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Asks for one page as the mode says; answers the address's own pass afterwards. */
    private String fetch(String path, Network network, Http1 connection, String ownPass) throws IOException {
        String pass = mode == Mode.SHARED_PASS ? shared(network) : ownPass;
        long asked = System.nanoTime();
        Http1.Answer answer = connection.get(path, network.userAgent, cookie(pass));
        count(answer, asked);
        Challenge challenge = answer.status() == 403 ? Challenge.of(answer.body()) : null;
        if (challenge == null || mode == Mode.PLAIN) {
            return ownPass;
        }
        String minted;
        if (mode == Mode.SHARED_PASS) {
            synchronized (network) {
                if (network.pass != null && !network.pass.equals(pass)) {
                    minted = network.pass; // another address of the /24 has minted a new one meanwhile
                } else {
                    minted = mint(challenge, network, connection);
                    network.pass = minted;
                }
            }
        } else {
            minted = mint(challenge, network, connection);
        }
        if (minted != null && running) {
            long again = System.nanoTime();
            count(connection.get(path, network.userAgent, cookie(minted)), again);
        }
        return mode == Mode.PASS_PER_ADDRESS ? minted : ownPass;
    }

    /** Solves the challenge and answers it; the pass the answer sets, or null. */
    private String mint(Challenge challenge, Network network, Http1 connection) throws IOException {
        Challenge.Solution solution = challenge.solve();
        counts.solved.increment();
        counts.hashes.add(solution.hashes());
        Http1.Answer answer = connection.get(challenge.answerPath(solution.nonce()), network.userAgent, null);
        String pass = answer.cookie(BrowserPasses.COOKIE);
        if (answer.status() != 303 || pass == null || pass.isEmpty()) {
            counts.answersRefused.increment();
            return null;
        }
        return pass;
    }

    private static String shared(Network network) {
        synchronized (network) {
            return network.pass;
        }
    }

    private void count(Http1.Answer answer, long askedNanos) {
        if (!running) {
            return;
        }
        counts.took(System.nanoTime() - askedNanos);
        counts.requests.increment();
        counts.status(answer.status());
        if (answer.status() == 200 && answer.body().contains("<title>Page ")) {
            counts.pages.increment();
        } else if (answer.status() == 403 && answer.body().contains("id=\"sluice-check\"")) {
            counts.interstitials.increment();
        } else {
            counts.otherAnswers.increment();
        }
    }

    private static String cookie(String pass) {
        return pass == null ? null : BrowserPasses.COOKIE + "=" + pass;
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }

    /** Stops every address: requests under way are cut, nothing more is counted. */
    @Override
    public void close() {
        running = false;
        connections.forEach(Http1::close);
        threads.forEach(Thread::interrupt);
        long deadline = System.nanoTime() + 5_000_000_000L; // the rest are daemons, and count nothing more
        try {
            for (Thread thread : threads) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left > 0) {
                    thread.join(left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
