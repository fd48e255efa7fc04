package io.sluice.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Checks each line of a configuration file against the server's options, one at a time, so that a problem names
 * its line: a key that is no option (a typo must not be silently ignored, as {@code PropertiesDefaultProvider}
 * would), a value its option cannot take, a value its {@link OptionRules rule} refuses.
 */
public final class ConfigValidator {
    /** Options that say how to run the command itself, not the server: not settings, not keys of the file. */
    public static final Set<String> NOT_SETTINGS = Set.of("config", "help", "version");

    private final Supplier<CommandLine> commandLines;

    /** @param commandLines a fresh, unparsed {@code sluice-server} command line each time */
    public ConfigValidator(Supplier<CommandLine> commandLines) {
        this.commandLines = commandLines;
    }

    /** Reads {@code file} and checks every line; the file only when nothing is wrong with it. */
    public ConfigFile load(Path path) throws ConfigException {
        ConfigFile file = ConfigFile.read(path);
        List<ConfigProblem> problems = check(file);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return file;
    }

    /** What is wrong with each line of {@code file}, in file order. */
    public List<ConfigProblem> check(ConfigFile file) {
        List<ConfigProblem> problems = new ArrayList<>();
        CommandLine model = commandLines.get();
        for (ConfigFile.Entry entry : file.entries()) {
            OptionSpec option = NOT_SETTINGS.contains(entry.key()) ? null
                    : model.getCommandSpec().findOption("--" + entry.key());
            String problem = option == null ? unknown(entry.key(), model) : value(option, entry);
            if (problem != null) {
                problems.add(new ConfigProblem(file.path(), entry.line(), problem));
            }
        }
        return problems;
    }

    private String value(OptionSpec option, ConfigFile.Entry entry) {
        String key = entry.key();
        if (option.typeInfo().isBoolean()) {
            String flag = entry.value().toLowerCase(Locale.ROOT);
            return "true".equals(flag) || "false".equals(flag) ? null
                    : key + " must be true or false, not '" + entry.value() + "'";
        }
        if (entry.value().isEmpty()) {
            return key + " has no value (leave the line out, or comment it, for the default)";
        }
        CommandLine alone = commandLines.get();
        try {
            alone.parseArgs("--" + key + "=" + entry.value());
        } catch (CommandLine.ParameterException e) {
            return key + ": " + e.getMessage().replaceFirst("^Invalid value for option '--[a-z-]+': ", "");
        }
        String broken = OptionRules.check(alone.getCommandSpec(), key);
        return broken == null ? null : OptionRules.message(key, broken, entry.value());
    }

    /** An unknown key, with the nearest option names when one looks like a typo of it. */
    private static String unknown(String key, CommandLine model) {
        List<String> near = model.getCommandSpec().options().stream()
                .map(OptionSpec::longestName)
                .filter(name -> name.startsWith("--"))
                .map(name -> name.substring(2))
                .filter(name -> !NOT_SETTINGS.contains(name) && distance(name, key) <= 2)
                .sorted(Comparator.comparingInt(name -> distance(name, key)))
                .toList();
        String message = "unknown key '" + key + "'";
        if (NOT_SETTINGS.contains(key)) {
            return message + ": it says how to run sluice-server, not how the server runs";
        }
        return near.isEmpty() ? message + " (the keys are sluice-server's long options without the dashes)"
                : message + "; did you mean " + String.join(" or ", near) + "?";
    }

    /** Edit distance: a typo is one or two letters off. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
