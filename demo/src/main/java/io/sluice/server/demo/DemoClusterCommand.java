package io.sluice.server.demo;

import io.sluice.server.SluiceServer;
import io.sluice.server.state.TokenStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice-server demo-cluster}: a local Redis, the demo site and three front ends as one cluster, with the
 * demo's story spread over them; runs until stopped ({@code ./sluice demo --cluster} starts it and connects the
 * console to the first node).
 */
@Command(name = "demo-cluster", mixinStandardHelpOptions = true,
        description = "Run a demo cluster: a local redis-server (Debian package redis-server), the demo site, "
                + "front ends joined through that Redis, and demo traffic spread over them.")
public final class DemoClusterCommand implements Callable<Integer> {

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3",
            description = "Front ends in the cluster (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--phase-seconds", paramLabel = "SECONDS", defaultValue = "36",
            description = "Length of each phase of the demo's story (default: ${DEFAULT-VALUE}).")
    int phaseSeconds;

    @Option(names = "--state", paramLabel = "DIR", description = "Where the nodes' state directories go "
            + "(default: a new temporary directory).")
    Path state;

    @Option(names = "--info-file", paramLabel = "FILE", description = "Once running, write the first node's admin "
            + "URL and the path of the shared admin token file there, one a line (for ./sluice demo --cluster).")
    Path infoFile;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || nodes > 16 || phaseSeconds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--nodes must be 1-16 and --phase-seconds positive");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path root = state != null ? state : Files.createTempDirectory("sluice-demo-cluster");
        if (!Files.isDirectory(root)) {
            Files.createDirectories(root);
        }
        DemoCluster cluster;
        try {
            cluster = DemoCluster.start(root, nodes, Duration.ofSeconds(phaseSeconds));
        } catch (IllegalStateException e) {
            err.println("sluice-server: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            stopped.countDown();
        }, "sluice-demo-cluster-stop"));
        SluiceServer first = cluster.nodes().get(0);
        out.printf("sluice demo cluster: %d nodes through %s%n", nodes, cluster.redisUrl());
        for (SluiceServer node : cluster.nodes()) {
            out.printf("  %s: front end %s, admin API %s%n", node.cluster().name(), node.frontUri(), node.adminUri());
        }
        Path token = root.resolve("node-1").resolve(TokenStore.ADMIN_FILE);
        out.printf("  admin token (the same on every node): %s%n", token);
        out.printf("  demo traffic: a story in four %d s phases, spread over every node; Ctrl+C stops it all%n",
                phaseSeconds);
        out.flush();
        if (infoFile != null) {
            Path partial = infoFile.resolveSibling(infoFile.getFileName() + ".tmp");
            Files.writeString(partial, first.adminUri() + "\n" + token + "\n");
            Files.move(partial, infoFile, StandardCopyOption.ATOMIC_MOVE);
        }
        stopped.await();
        return 0;
    }
}
