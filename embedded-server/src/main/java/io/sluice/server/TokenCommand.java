package io.sluice.server;

import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.AuditLog;
import io.sluice.server.state.Role;
import io.sluice.server.state.StateException;
import io.sluice.server.state.StateOwner;
import io.sluice.server.state.TokenStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice-server token add|list|revoke}: the tokens of a state directory, changed in place; a
 * running server sees the change at its next call. A change is written as the directory's owner (run as root, the
 * files are given to the service's user; run by another user, it is refused: {@link StateOwner}) and recorded in the
 * audit log as {@code cli:USER}. Its {@link StateOption} serves {@code pass-key} too.
 */
@Command(name = "token", mixinStandardHelpOptions = true, description = "Add, list or revoke admin API tokens.",
        subcommands = {TokenCommand.Add.class, TokenCommand.ListTokens.class, TokenCommand.Revoke.class})
final class TokenCommand {

    /** The state directory option every token subcommand takes. */
    static class StateOption {
        @Option(names = "--state", paramLabel = "DIR", defaultValue = "${sys:user.home}/.sluice/state",
                description = "State directory (default: ${DEFAULT-VALUE}).")
        Path state;
        /** Whose the files a change writes are ({@link #tokensToChange}). */
        private StateOwner owner = StateOwner.PROCESS;

        /** The state directory, which must exist. */
        Path stateDirectory() {
            if (!Files.isDirectory(state)) {
                throw new StateException("no state directory " + state + "; start the server once, or give --state");
            }
            return state;
        }

        TokenStore tokens() {
            return TokenStore.open(stateDirectory(), InstantSource.system());
        }

        /**
         * Who a change of the directory writes as (its owner, when run as root), remembered for {@link #audit};
         * refused for a user who may not.
         */
        StateOwner ownerFor(String command) {
            owner = StateOwner.forCommand(stateDirectory(), command);
            return owner;
        }

        /** The tokens for a change, written as the directory's owner; refused for a user who may not. */
        TokenStore tokensToChange(String command) {
            stateDirectory();
            owner = StateOwner.forCommand(state, command);
            return TokenStore.open(state, InstantSource.system(), owner);
        }

        /**
         * Records a change made in the directory's audit log, as {@code cli:USER} (and who sudo says ran it); 0, or 1
         * with a message when it could not be written (the change stands).
         */
        int audit(CommandLine.Model.CommandSpec spec, String action, String detail) {
            String user = System.getProperty("user.name", "?");
            try {
                AuditLog.forCommand(state, owner).append(new AuditEntry(0, Instant.now(), "cli:" + user,
                        AuditEntry.claimedName(System.getenv("SUDO_USER")), action, detail, null, null));
                return 0;
            } catch (IOException | StateException e) {
                spec.commandLine().getErr().println("sluice-server: " + detail + ", but the audit log could not "
                        + "record it: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Add a token and print its secret (shown this once; only its hash is kept).")
    static final class Add extends StateOption implements Callable<Integer> {
        @Parameters(paramLabel = "NAME", description = "The token's name: the audit log's who.")
        String name;

        @Option(names = "--role", required = true, paramLabel = "ROLE",
                description = "admin (everything), read (dashboards, Prometheus) or worker (permits, feedback).")
        String role;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            Role parsed;
            try {
                parsed = Role.parse(role);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            try {
                String secret = tokensToChange("token add " + name + " --role " + parsed.wireName()).add(name, parsed);
                spec.commandLine().getOut().println(secret);
                return audit(spec, "token.add", "added the token " + name + " (" + parsed.wireName() + ")");
            } catch (IllegalArgumentException | StateException e) {
                spec.commandLine().getErr().println("sluice-server: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the tokens: name, role, since when.")
    static final class ListTokens extends StateOption implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            try {
                PrintWriter out = spec.commandLine().getOut();
                for (TokenStore.TokenInfo token : tokens().list()) {
                    out.printf("%-24s %-7s %s%n", token.name(), token.role().wireName(),
                            token.file() != null ? "file " + token.file() : String.valueOf(token.createdAt()));
                }
                out.flush();
                return 0;
            } catch (StateException e) {
                spec.commandLine().getErr().println("sluice-server: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
            description = "Revoke a token: a running server refuses it from its next call.")
    static final class Revoke extends StateOption implements Callable<Integer> {
        @Parameters(paramLabel = "NAME")
        String name;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            try {
                if (!tokensToChange("token revoke " + name).revoke(name)) {
                    spec.commandLine().getErr().println("sluice-server: no token named " + name);
                    return 1;
                }
                spec.commandLine().getOut().println("revoked " + name);
                return audit(spec, "token.revoke", "revoked the token " + name);
            } catch (StateException e) {
                spec.commandLine().getErr().println("sluice-server: " + e.getMessage());
                return 1;
            }
        }
    }
}
