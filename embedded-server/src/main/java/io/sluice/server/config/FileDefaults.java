package io.sluice.server.config;

import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The configuration file as picocli's source of defaults: an option the command line does not give takes the file's
 * value, else its own default (docs/manual/command-line.md, "Configuration file"). The file is checked before
 * ({@link ConfigValidator}), so every key here is an option and every value converts.
 */
public final class FileDefaults implements IDefaultValueProvider {
    private final ConfigFile file;

    public FileDefaults(ConfigFile file) {
        this.file = file;
    }

    @Override
    public String defaultValue(ArgSpec argument) {
        if (!(argument instanceof OptionSpec option) || !option.longestName().startsWith("--")
                || argument.command().parent() != null) {
            return null;
        }
        ConfigFile.Entry entry = file.get(option.longestName().substring(2));
        // null: picocli falls back to the option's own default.
        return entry == null ? null : entry.value();
    }
}
