package io.sluice.server.config;

import io.sluice.engine.net.AsnFileException;
import io.sluice.engine.net.AsnTable;
import io.sluice.server.ServerConfig;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.state.StateException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice-server config check}: the configuration file, checked without starting anything. */
@Command(name = "config", description = "Work with the configuration file (docs/manual/command-line.md).",
        mixinStandardHelpOptions = true, subcommands = ConfigCommand.Check.class)
public final class ConfigCommand {

    /** Like {@code nginx -t}: every problem as {@code FILE:LINE: message}, exit 1; else "configuration OK". */
    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Check a configuration file: every key is an option, every value fits it, the policy "
                    + "file, the IP-to-ASN file and the state directory are usable. Starts nothing. Exit 0 when it is "
                    + "fine, 1 otherwise.")
    public static final class Check implements Callable<Integer> {
        @Option(names = "--config", paramLabel = "FILE", description = "The file to check (default: ${DEFAULT-VALUE}).",
                defaultValue = "/etc/sluice/sluice.conf")
        Path path;

        @Option(names = "--user", paramLabel = "USER", description = "Judge the state directory for USER, the user "
                + "the server runs as (the package's: sluice), rather than for whoever runs the check; run as root, "
                + "without it the state directory's access is not judged.")
        String user;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            ServiceUser judged = ServiceUser.of(user);
            List<ConfigProblem> problems = problems(path, judged, server(spec));
            PrintWriter err = spec.commandLine().getErr();
            problems.forEach(err::println);
            judged.notes().forEach(note -> err.println(path + ": note: " + note));
            if (problems.isEmpty()) {
                spec.commandLine().getOut().println(path + ": configuration OK");
                return 0;
            }
            err.println(path + ": configuration has " + problems.size() + (problems.size() == 1 ? " problem"
                    : " problems"));
            return 1;
        }
    }

    private ConfigCommand() {
    }

    /** The command whose options the file sets: the root of the command line this check runs in. */
    private static ConfigurableCommand server(CommandLine.Model.CommandSpec spec) {
        if (spec.root().userObject() instanceof ConfigurableCommand root) {
            return root;
        }
        throw new IllegalStateException("config check runs under a command whose options a configuration file sets, "
                + "not under " + spec.root().name());
    }

    /**
     * Everything wrong with the configuration {@code path} holds, in file order, the state directory judged for
     * {@code user}, the options being {@code server}'s; empty when it is fine.
     */
    static List<ConfigProblem> problems(Path path, ServiceUser user, ConfigurableCommand server) {
        ConfigFile file;
        try {
            file = ConfigFile.read(path);
        } catch (ConfigException e) {
            return e.problems();
        }
        List<ConfigProblem> problems = new ArrayList<>(server.optionsValidator().check(file));
        if (!problems.isEmpty()) {
            return problems; // the whole is checked once each line is right
        }
        ServerConfig config;
        try {
            config = server.serverConfig(file);
        } catch (CommandLine.ParameterException | IllegalArgumentException e) {
            return List.of(new ConfigProblem(path, 0, e.getMessage()));
        }
        if (config.initialPolicy() != null) {
            policy(config.initialPolicy(), "policy file", file, problems);
        }
        if (config.asnFile() != null) {
            asnFile(config.asnFile(), file, problems);
        }
        String unknown = user.unknownUser();
        if (unknown != null) {
            problems.add(new ConfigProblem(file.path(), 0, unknown));
        } else {
            state(config.stateDir(), file, user, problems);
        }
        return problems;
    }

    private static void policy(Path policy, String what, ConfigFile file, List<ConfigProblem> problems) {
        try {
            StateDirectory.read(policy, what);
        } catch (StateException e) {
            problems.add(new ConfigProblem(file.path(), line(file, "policy"), e.getMessage()));
        }
    }

    /** The IP-to-ASN file, read whole as a start would read it: a bad line is named. */
    private static void asnFile(Path asns, ConfigFile file, List<ConfigProblem> problems) {
        try {
            AsnTable.read(asns);
        } catch (AsnFileException e) {
            problems.add(new ConfigProblem(file.path(), line(file, "asn-file"), "the IP-to-ASN file cannot be used: "
                    + e.getMessage()));
        } catch (IOException e) {
            problems.add(new ConfigProblem(file.path(), line(file, "asn-file"), "the IP-to-ASN file " + asns
                    + " cannot be read: " + (e instanceof NoSuchFileException ? "no such file" : e.toString())));
        }
    }

    /**
     * The state directory: a directory its user may write and a start would take (its own, nobody else's to write),
     * holding a valid policy if it holds one; or one that user can create.
     */
    private static void state(Path dir, ConfigFile file, ServiceUser user, List<ConfigProblem> problems) {
        int line = line(file, "state");
        user.stateDirectory(dir).forEach(problem -> problems.add(new ConfigProblem(file.path(), line, problem)));
        if (Files.isDirectory(dir) && Files.exists(dir.resolve("policy.json"))) {
            try {
                StateDirectory.read(dir.resolve("policy.json"), "state file");
            } catch (StateException e) {
                problems.add(new ConfigProblem(file.path(), line, e.getMessage()));
            }
        }
    }

    private static int line(ConfigFile file, String key) {
        ConfigFile.Entry entry = file.get(key);
        return entry == null ? 0 : entry.line();
    }
}
