package io.sluice.server;

import io.sluice.engine.check.PassKeyRing;
import io.sluice.server.state.PassKeyFile;
import io.sluice.server.state.PassKeyFollower;
import io.sluice.server.state.StateException;
import io.sluice.server.state.StateOwner;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice-server pass-key rotate}: a new key for the browser check's passes and challenges, in the state
 * directory's {@code browser-pass.key}; the key it replaces is still accepted for one pass lifetime. A running
 * server reads the file again when it changes; a running node of a cluster puts the rotated ring into Redis, and
 * every node takes it (cluster/ClusterPassKeys).
 */
@Command(name = "pass-key", mixinStandardHelpOptions = true,
        description = "Rotate the key that signs browser passes.", subcommands = PassKeyCommand.Rotate.class)
final class PassKeyCommand {

    /** The longest pass lifetime an operator can mean: ten years. */
    static final long MAX_TTL_SECONDS = 10L * 366 * 24 * 3600;

    @Command(name = "rotate", mixinStandardHelpOptions = true,
            description = "Make a new key; the current one stays accepted for one pass lifetime, the one before it "
                    + "is retired.")
    static final class Rotate extends TokenCommand.StateOption implements Callable<Integer> {
        @Option(names = "--pass-ttl-seconds", paramLabel = "N", defaultValue = "604800",
                description = "How long a pass lasts (the policy's pass lifetime): the current key is accepted "
                        + "that long after the rotation (default: ${DEFAULT-VALUE}, 7 days).")
        long passTtlSeconds;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            if (passTtlSeconds < 0 || passTtlSeconds > MAX_TTL_SECONDS) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--pass-ttl-seconds is 0 to "
                        + MAX_TTL_SECONDS + " (ten years), not " + passTtlSeconds);
            }
            PrintWriter out = spec.commandLine().getOut();
            try {
                Path state = stateDirectory();
                // run as root (sudo), the files stay the service's: a key file it cannot read would stop its next start
                StateOwner owner = ownerFor("pass-key rotate");
                long now = System.currentTimeMillis();
                PassKeyRing before = PassKeyFile.load(state);
                PassKeyRing after = PassKeyFile.rotate(state, now, Duration.ofSeconds(passTtlSeconds).toMillis(),
                        new SecureRandom());
                owner.adopt(state.resolve(PassKeyFile.FILE));
                owner.adopt(state.resolve(PassKeyFile.LOCK));
                out.printf("new browser pass key %s in %s%n", id(after.current().id()),
                        state.resolve(PassKeyFile.FILE));
                out.printf("the previous key %s is accepted until %s%n", id(after.previous().id()),
                        Instant.ofEpochMilli(after.previousAcceptedUntilMillis()));
                if (before.previousAccepted(now)) {
                    out.printf("the key before it, %s, is retired: passes it signed are refused and their holders "
                            + "checked again%n", id(before.previous().id()));
                }
                out.println("a running server uses the new key within " + PassKeyFollower.PERIOD_SECONDS + " s; a "
                        + "running node of a cluster gives it to every node (docs/manual/cluster.md)");
                out.flush();
                return audit(spec, "pass-key.rotate", "browser pass key rotated: new key " + id(after.current().id())
                        + ", the previous accepted until " + Instant.ofEpochMilli(after.previousAcceptedUntilMillis()));
            } catch (IOException e) {
                spec.commandLine().getErr().println("sluice-server: the new key could not be given to the state "
                        + "directory's owner: " + e.getMessage());
                return 1;
            } catch (StateException e) {
                spec.commandLine().getErr().println("sluice-server: " + e.getMessage());
                return 1;
            }
        }

        private static String id(int id) {
            return String.format("%08x", id);
        }
    }
}
