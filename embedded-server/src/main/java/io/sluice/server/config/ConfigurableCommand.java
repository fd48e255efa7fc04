package io.sluice.server.config;

import io.sluice.server.ServerConfig;

/**
 * What {@code config check} asks of the command whose options a configuration file sets (the server's {@code Main},
 * the root of the command line): the check knows those options through this, not by naming the class that declares
 * them, which names the check among its subcommands (a circle between the two).
 */
public interface ConfigurableCommand {

    /** Checks a configuration file's lines against the command's options. */
    ConfigValidator optionsValidator();

    /**
     * The server configuration {@code file} gives with no command line over it.
     *
     * @throws picocli.CommandLine.ParameterException when the options it sets do not go together
     * @throws IllegalArgumentException               when a value does not fit its option
     */
    ServerConfig serverConfig(ConfigFile file);
}
