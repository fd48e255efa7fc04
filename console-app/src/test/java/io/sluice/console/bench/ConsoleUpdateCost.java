package io.sluice.console.bench;

import com.sun.net.httpserver.HttpServer;
import io.sluice.console.Rooms;
import io.sluice.console.api.AdminClient;
import io.sluice.console.live.LiveView;
import io.sluice.console.shell.ShellView;
import io.sluice.console.ui.ConsoleScene;
import io.sluice.console.ui.FxUiExecutor;
import io.sluice.console.ui.Session;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;

/**
 * Issue 47's console goal, "under one frame's work per update at 5,000 requests/s of a 1,000-address fleet": the whole
 * console (its shell and rooms, 1366x768, under Monocle's headless screen with the software renderer) fed the admin
 * API's snapshots of such a fleet ({@link FleetSnapshots}) by its own feed over HTTP, as fast as it takes them. Per
 * update it times, on the JavaFX thread: what the rooms do with the snapshot (the feed's subscribers); the CSS and
 * layout passes of the pulse that follows (between the scene's pre- and post-layout pulse listeners), which touch only
 * what the update made dirty ({@code Node.applyCss} on the root would restyle every node, which no pulse does); the
 * rest of that pulse, its sync of the render tree; then a render of the whole window ({@code Scene.snapshot}, an upper
 * bound of the frame's painting, which the console's renderer does on its own thread). The same run feeds a quiet
 * day's snapshots in alternate blocks, as the baseline. The snapshot's JSON is parsed off the JavaFX thread, as in the
 * console, and not counted. Run it with {@code bench/console/run.sh} (docs/BENCHMARKS.md, "Console").
 */
public final class ConsoleUpdateCost {
    private static final double FRAME_MILLIS = 1000.0 / 60;
    private static final int BLOCK = 30;

    /** One update's times; {@code collected} when a garbage collection ran during the JavaFX thread's part. */
    private record Sample(String load, String tab, double applyMillis, double pulseMillis, double syncMillis,
                          double renderMillis, boolean collected) {
        double fxThreadMillis() {
            return applyMillis + pulseMillis + syncMillis;
        }
    }

    private ConsoleUpdateCost() {
    }

    public static void main(String[] args) throws Exception {
        int blocks = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long started = System.nanoTime();
        List<String> fleet = FleetSnapshots.of(FleetSnapshots.Load.FLEET, 10, 60);
        List<String> quiet = FleetSnapshots.of(FleetSnapshots.Load.QUIET, 10, 60);
        System.out.printf("snapshots made in %.1f s: fleet %,d bytes of JSON each (median), quiet %,d%n",
                (System.nanoTime() - started) / 1e9, medianLength(fleet), medianLength(quiet));
        AtomicReference<String> served = new AtomicReference<>(quiet.get(0));
        HttpServer http = snapshotServer(served);
        Platform.startup(() -> { });
        Console console = Console.open(URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/"));
        try {
            List<Sample> samples = new ArrayList<>();
            for (String tab : List.of("clients", "networks")) {
                console.showTab(tab);
                // the first blocks warm the JIT and the caches; they are not counted
                for (int block = -4; block < 2 * blocks; block++) {
                    boolean isFleet = (block & 1) == 0;
                    List<String> source = isFleet ? fleet : quiet;
                    for (int i = 0; i < BLOCK; i++) {
                        served.set(source.get(Math.floorMod(block * BLOCK + i, source.size())));
                        double[] times = console.update();
                        if (block >= 0) {
                            samples.add(new Sample(isFleet ? "fleet" : "quiet", tab, times[0], times[1], times[2],
                                    times[3], times[4] > 0));
                        }
                    }
                }
            }
            report(samples);
        } finally {
            console.close();
            http.stop(0);
            Platform.exit();
        }
    }

    private static int medianLength(List<String> snapshots) {
        int[] lengths = snapshots.stream().mapToInt(String::length).sorted().toArray();
        return lengths[lengths.length / 2];
    }

    /** {@code GET /api/v1/snapshot} answered with {@code served}; anything else a 404 (the other rooms' feeds). */
    private static HttpServer snapshotServer(AtomicReference<String> served) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            byte[] body = exchange.getRequestURI().getPath().equals("/api/v1/snapshot")
                    ? served.get().getBytes(StandardCharsets.UTF_8) : null;
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : body.length);
            if (body != null) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            exchange.close();
        });
        http.start();
        return http;
    }

    private static void report(List<Sample> samples) {
        System.out.printf("%-6s %-9s %7s | %-22s | %-22s | %-22s | %-22s | %s | %s%n", "load", "tab", "updates",
                "rooms' work p50 p99 max", "CSS+layout p50 p99 max", "sync p50 p99 max", "render p50 p99 max",
                "FX thread p50, p99 / frame", "updates with a GC, p99 without");
        for (String tab : List.of("clients", "networks")) {
            for (String load : List.of("fleet", "quiet")) {
                List<Sample> of = samples.stream().filter(s -> s.tab().equals(tab) && s.load().equals(load)).toList();
                double[] apply = sorted(of.stream().mapToDouble(Sample::applyMillis).toArray());
                double[] pulse = sorted(of.stream().mapToDouble(Sample::pulseMillis).toArray());
                double[] sync = sorted(of.stream().mapToDouble(Sample::syncMillis).toArray());
                double[] render = sorted(of.stream().mapToDouble(Sample::renderMillis).toArray());
                double[] fxThread = sorted(of.stream().mapToDouble(Sample::fxThreadMillis).toArray());
                double[] withoutGc = sorted(of.stream().filter(s -> !s.collected())
                        .mapToDouble(Sample::fxThreadMillis).toArray());
                System.out.printf("%-6s %-9s %7d | %s | %s | %s | %s | %.2f, %.2f | %4.1f%%, %.2f%n", load, tab,
                        of.size(), spread(apply), spread(pulse), spread(sync), spread(render),
                        at(fxThread, 0.5) / FRAME_MILLIS, at(fxThread, 0.99) / FRAME_MILLIS,
                        100.0 * (of.size() - withoutGc.length) / of.size(),
                        withoutGc.length == 0 ? Double.NaN : at(withoutGc, 0.99) / FRAME_MILLIS);
            }
            double fleetMedian = at(sorted(samples.stream().filter(s -> s.tab().equals(tab) && s.load().equals(
                    "fleet")).mapToDouble(Sample::fxThreadMillis).toArray()), 0.5);
            double quietMedian = at(sorted(samples.stream().filter(s -> s.tab().equals(tab) && s.load().equals(
                    "quiet")).mapToDouble(Sample::fxThreadMillis).toArray()), 0.5);
            System.out.printf("%s tab: FX thread per update, fleet / quiet (medians) %.2fx%n", tab,
                    fleetMedian / quietMedian);
        }
        System.out.printf("(milliseconds; a frame is %.1f ms; FX thread = rooms' work + CSS+layout + sync; a GC "
                + "stops every thread, the benchmark's own allocation included)%n", FRAME_MILLIS);
    }

    private static double[] sorted(double[] values) {
        Arrays.sort(values);
        return values;
    }

    private static double at(double[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(quantile * sorted.length))];
    }

    private static String spread(double[] sorted) {
        return String.format("%6.2f %6.2f %7.1f", at(sorted, 0.5), at(sorted, 0.99), sorted[sorted.length - 1]);
    }

    /** The console's window on the snapshot server, and the clock on its JavaFX thread. */
    private static final class Console implements AutoCloseable {
        private final LinkedBlockingQueue<double[]> updates = new LinkedBlockingQueue<>();
        private FxUiExecutor ui;
        private Session session;
        private ShellView shell;
        private LiveView live;
        private Stage stage;
        private long received;
        private long collectionsAtStart;
        private long applied;
        private long pulseStarted;
        private boolean awaitingPulse;

        static Console open(URI server) throws InterruptedException, ExecutionException, TimeoutException {
            Console console = new Console();
            onFx(() -> console.build(server));
            return console;
        }

        private void build(URI server) {
            ui = new FxUiExecutor();
            session = new Session("bench", "admin", new AdminClient(server, "token", "bench"), ui,
                    Clock.systemUTC());
            // the first subscriber and the last: between them, every room's work with the snapshot
            session.snapshots().subscribe(snapshot -> {
                received = System.nanoTime();
                collectionsAtStart = collections();
            }, failure -> { });
            shell = new ShellView(session, Rooms.open(Rooms.standard(), session), () -> { });
            live = shell.room("live", LiveView.class).orElseThrow();
            stage = new Stage();
            Scene scene = ConsoleScene.of(shell.view(), 1366, 768);
            stage.setScene(scene);
            stage.show();
            session.snapshots().stop(); // fetched when the benchmark asks, not once a second
            WritableImage frame = new WritableImage(1366, 768);
            session.snapshots().subscribe(snapshot -> {
                applied = System.nanoTime();
                pulseStarted = 0;
                awaitingPulse = true;
            }, failure -> updates.add(new double[0]));
            // the pulse that follows an update does its CSS and layout passes between these two listeners, on the
            // dirty nodes only, as in the console; then it brings the render tree up to date (its sync), and the
            // next runnable of the JavaFX thread runs after that
            scene.addPreLayoutPulseListener(() -> {
                if (awaitingPulse && pulseStarted == 0) {
                    pulseStarted = System.nanoTime();
                }
            });
            scene.addPostLayoutPulseListener(() -> {
                if (!awaitingPulse || pulseStarted == 0) {
                    return;
                }
                awaitingPulse = false;
                long laidOut = System.nanoTime();
                double roomsMillis = (applied - received) / 1e6;
                double pulseMillis = (laidOut - pulseStarted) / 1e6;
                Platform.runLater(() -> {
                    long synced = System.nanoTime();
                    long collected = collections() - collectionsAtStart;
                    scene.snapshot(frame);
                    long rendered = System.nanoTime();
                    updates.add(new double[] {roomsMillis, pulseMillis, (synced - laidOut) / 1e6,
                        (rendered - synced) / 1e6, collected});
                });
            });
        }

        /** Garbage collections so far, by every collector. */
        private static long collections() {
            return ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
        }

        void showTab(String tab) throws InterruptedException, ExecutionException, TimeoutException {
            onFx(() -> {
                if ("networks".equals(tab)) {
                    live.showNetworks();
                }
            });
        }

        /**
         * Asks the feed for one snapshot and, once the console has taken and drawn it, returns its four times and the
         * garbage collections during the JavaFX thread's part.
         */
        double[] update() throws InterruptedException {
            session.snapshots().refreshSoon();
            double[] times = updates.poll(60, TimeUnit.SECONDS);
            if (times == null || times.length == 0) {
                throw new IllegalStateException("the console did not take a snapshot");
            }
            return times;
        }

        @Override
        public void close() throws ExecutionException, TimeoutException {
            try {
                onFx(() -> {
                    shell.close();
                    stage.close();
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                ui.close();
            }
        }

        private static void onFx(Runnable work) throws InterruptedException,
                ExecutionException, TimeoutException {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Platform.runLater(() -> {
                try {
                    work.run();
                    done.complete(null);
                } catch (RuntimeException | Error e) {
                    done.completeExceptionally(e);
                }
            });
            done.get(60, TimeUnit.SECONDS);
        }
    }
}
