package io.sluice.server.state;

import io.sluice.engine.check.BrowserPasses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a running server's browser passes on the state directory's key ring: {@code sluice-server pass-key rotate}
 * writes the file, and the server takes the new ring within a few seconds, without a restart. One daemon thread
 * reads the file (a few hundred bytes) every {@link #PERIOD_SECONDS} and installs it only when it changed; a file it
 * cannot read keeps the ring in use (said in the log), since a server that lost its key would refuse every pass.
 */
public final class PassKeyFollower implements AutoCloseable {

    /** How often the file is looked at. */
    public static final int PERIOD_SECONDS = 5;
    private static final System.Logger LOG = System.getLogger(PassKeyFollower.class.getName());

    private final Path stateDir;
    private final BrowserPasses passes;
    private final ScheduledExecutorService timer;
    /**
     * The file's text as last taken, compared whole: a modification time misses a rotation made within the file
     * system's clock tick of the last write (seen in CI).
     */
    private String seen;
    /** Set in cluster mode: the file's changes go there instead of into the engine. */
    private volatile Runnable diverted;

    private PassKeyFollower(Path stateDir, BrowserPasses passes) {
        this.stateDir = stateDir;
        this.passes = passes;
        this.seen = text();
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-pass-keys");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Installs the state directory's ring (made at first start) and follows the file from then on. */
    public static PassKeyFollower start(Path stateDir, BrowserPasses passes, java.security.SecureRandom random) {
        passes.keys(PassKeyFile.loadOrCreate(stateDir, random));
        PassKeyFollower follower = new PassKeyFollower(stateDir, passes);
        follower.timer.scheduleWithFixedDelay(follower::refresh, PERIOD_SECONDS, PERIOD_SECONDS, TimeUnit.SECONDS);
        return follower;
    }

    /** Reads the file again if it changed since it was last read; the thread's task, and a reload's. */
    public synchronized void refresh() {
        String now = text();
        if (now == null || now.equals(seen)) {
            return;
        }
        Runnable divert = diverted;
        if (divert != null) {
            seen = now;
            divert.run();
            return;
        }
        try {
            passes.keys(PassKeyFile.load(stateDir));
            seen = now;
            LOG.log(System.Logger.Level.INFO, "browser pass keys read again from " + stateDir.resolve(PassKeyFile.FILE)
                    + ": current key " + Integer.toHexString(passes.keys().current().id()));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "browser pass keys not read again, the ones in use kept: "
                    + e.getMessage());
        }
    }

    /**
     * From now on a changed file is not installed but reported to {@code onChange}: a node of a cluster takes the
     * cluster's ring, and a rotation made in its file goes to the cluster first (cluster/ClusterPassKeys).
     */
    public void divert(Runnable onChange) {
        this.diverted = onChange;
    }

    private String text() {
        try {
            return Files.readString(stateDir.resolve(PassKeyFile.FILE));
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
