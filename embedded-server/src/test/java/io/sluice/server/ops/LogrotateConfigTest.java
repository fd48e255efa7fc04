package io.sluice.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped {@code /etc/logrotate.d/sluice} ({@code ops/package/sluice.logrotate}) as the package installs it beside
 * the log directory postinst makes: logrotate runs as root, and must not rename, create and compress files as root in
 * a directory the service's user owns (that user could plant a link there for root to follow).
 */
class LogrotateConfigTest {
    private static final Pattern LOG_DIRECTORY_OWNER = Pattern.compile("own (\\S+):(\\S+) \\S+ /var/log/sluice\\b");

    @Test
    void logrotateWorksInTheLogDirectoryAsItsOwnerNotAsRoot() throws Exception {
        String postinst = Files.readString(MonitoringFiles.ops().resolve("package/postinst"));
        Matcher owner = LOG_DIRECTORY_OWNER.matcher(postinst);
        assertThat(owner.find()).as("postinst hands /var/log/sluice to a user and group").isTrue();
        List<String> lines = Files.readAllLines(MonitoringFiles.ops().resolve("package/sluice.logrotate")).stream()
                .map(String::strip).filter(line -> !line.startsWith("#")).toList();

        assertThat(lines).as("the directory's owner and group, as postinst sets them")
                .contains("su " + owner.group(1) + " " + owner.group(2));
        assertThat(lines).as("the service re-opens the file itself; a copy and a truncate would lose lines")
                .doesNotContain("copytruncate")
                .contains("systemctl kill -s HUP sluice.service >/dev/null 2>&1 || true");
    }
}
