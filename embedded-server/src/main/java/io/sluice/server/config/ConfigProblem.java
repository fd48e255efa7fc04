package io.sluice.server.config;

import java.nio.file.Path;

/**
 * One thing wrong with a configuration file, printed as {@code FILE:LINE: message} (as compilers and
 * {@code nginx -t} do, so editors jump to it); {@code FILE: message} when it is not one line's fault.
 *
 * @param line the line, from 1; 0 when the problem is the file's as a whole
 */
public record ConfigProblem(Path file, int line, String message) {
    @Override
    public String toString() {
        return file + (line > 0 ? ":" + line : "") + ": " + message;
    }
}
