package io.sluice.benchmarks;

import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.whatif.LogReplay;
import io.sluice.engine.whatif.WhatIfReport;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

/**
 * Replay throughput: writes an access log in Sluice's format (a busy site: 200 requests a second on average,
 * 20,000 browsers, crawlers, bots and a few copiers hammering), then replays it through a candidate policy
 * against a second one (both policies simulated: the most work per line) and prints lines per second, by the
 * wall clock and per second of the replaying thread's CPU time (the log is read and parsed on that thread).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.ReplayThroughput [LINES] [ROUNDS] [--gzip]
 * </pre>
 */
public final class ReplayThroughput {
    private static final DateTimeFormatter NCSA =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final String[] CRAWLERS = {
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    };
    private static final String[] BOTS = {
        "python-requests/2.32.3", "curl/8.5.0", "Go-http-client/1.1", "Feedly/1.0 (+http://www.feedly.com/fetcher.html)",
        "Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)", "Wget/1.21.4",
    };

    private ReplayThroughput() {
    }

    public static void main(String[] args) throws IOException {
        int lines = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        boolean gzip = List.of(args).contains("--gzip");
        Path log = Files.createTempFile("sluice-replay-", gzip ? ".log.gz" : ".log");
        try {
            long written = System.nanoTime();
            write(log, lines, gzip);
            System.out.printf(Locale.ROOT, "wrote %,d lines (%,d bytes%s) in %.1f s: %s%n", lines, Files.size(log),
                    gzip ? ", gzip" : "", (System.nanoTime() - written) / 1e9, log);
            Policy live = Policy.defaults();
            Policy candidate = live.withHitStack(new Policy.HitStack(15, 8));
            CrawlerListClassifier classifier = CrawlerListClassifier.bundled();
            // On a shared machine the wall clock says how busy the others are; the thread's CPU time says what a
            // replay costs (the log is read on this thread too).
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            for (int round = 1; round <= rounds; round++) {
                long started = System.nanoTime();
                long cpuStarted = threads.getCurrentThreadCpuTime();
                WhatIfReport report = new LogReplay(candidate, live, classifier, LogReplay.Options.defaults())
                        .run(List.of(log), LogReplay.Progress.NONE);
                double seconds = (System.nanoTime() - started) / 1e9;
                double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStarted) / 1e9;
                System.out.printf(Locale.ROOT, "round %d: %,d requests in %.2f s: %,.0f lines/s; %.2f s of CPU: "
                        + "%,.0f lines per CPU second (%,d clients differ)%n", round, report.requests(), seconds,
                        lines / seconds, cpuSeconds, lines / cpuSeconds, report.clientsDiffering());
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static void write(Path file, int lines, boolean gzip) throws IOException {
        Random random = new Random(11);
        long millis = Instant.parse("2026-03-01T00:00:00Z").toEpochMilli();
        try (OutputStream raw = Files.newOutputStream(file);
             OutputStream out = gzip ? new GZIPOutputStream(raw, 1 << 16) : raw;
             BufferedWriter writer = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16)) {
            for (int i = 0; i < lines; i++) {
                millis += (long) (-Math.log(1 - random.nextDouble()) * 5); // 200 a second on average
                int kind = random.nextInt(100);
                String ip;
                String agent;
                if (kind < 70) {
                    int browser = random.nextInt(20_000);
                    ip = "10." + (browser >> 8 & 255) + "." + (browser & 255) + ".1";
                    agent = Clients.USER_AGENTS[browser % Clients.USER_AGENTS.length];
                } else if (kind < 80) {
                    int crawler = random.nextInt(CRAWLERS.length);
                    ip = "66.249.66." + (1 + random.nextInt(50));
                    agent = CRAWLERS[crawler];
                } else if (kind < 95) {
                    int bot = random.nextInt(500);
                    ip = "172.16." + (bot >> 8) + "." + (bot & 255);
                    agent = BOTS[bot % BOTS.length];
                } else {
                    ip = "203.0.113." + (1 + random.nextInt(3)); // copiers
                    agent = BOTS[4];
                }
                writer.write(ip + " - - [" + NCSA.format(Instant.ofEpochMilli(millis)) + "] \"GET /page/"
                        + random.nextInt(10_000) + "?q=" + i + " HTTP/1.1\" 200 5120 \"-\" \"" + agent
                        + "\" sluice=ADMIT\n");
            }
        }
    }
}
