package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigFileTest {
    private static final Path FILE = Path.of("sluice.conf");

    @Test
    void readsKeysAndValuesWithTheirLines() throws Exception {
        ConfigFile file = ConfigFile.parse(FILE, List.of(
                "# a comment",
                "! another",
                "",
                "listen = 0.0.0.0:8080",
                "  upstream:http://127.0.0.1:3000   ",
                "state /var/lib/sluice",
                "admin-hostname = a.example,\\",
                "    b.example",
                "access-log = C:\\\\logs\\u0041"));

        assertThat(file.entries()).containsExactly(
                new ConfigFile.Entry("listen", "0.0.0.0:8080", 4),
                new ConfigFile.Entry("upstream", "http://127.0.0.1:3000", 5),
                new ConfigFile.Entry("state", "/var/lib/sluice", 6),
                new ConfigFile.Entry("admin-hostname", "a.example,b.example", 7),
                new ConfigFile.Entry("access-log", "C:\\logsA", 9));
    }

    @Test
    void aHashAfterABlankStartsACommentAndOneInsideAValueStays() throws Exception {
        ConfigFile file = ConfigFile.parse(FILE, List.of(
                "max-connections-per-address = 32   # per address, not per client",
                "redis = redis://:pa#ss@cache:6379/0",
                "access-log = /var/log/sluice/a\\ #1.log\t# the escaped hash is the file's",
                "admin-hostname = a.example, \\   # the list goes on",
                "    b.example # and ends here",
                "upstream = http://127.0.0.1:3000/#top"));

        assertThat(file.entries()).containsExactly(
                new ConfigFile.Entry("max-connections-per-address", "32", 1),
                new ConfigFile.Entry("redis", "redis://:pa#ss@cache:6379/0", 2),
                new ConfigFile.Entry("access-log", "/var/log/sluice/a #1.log", 3),
                new ConfigFile.Entry("admin-hostname", "a.example, b.example", 4),
                new ConfigFile.Entry("upstream", "http://127.0.0.1:3000/#top", 6));
    }

    @Test
    void aKeyGivenTwiceNamesBothLines() {
        assertThatThrownBy(() -> ConfigFile.parse(FILE, List.of("listen = a:1", "", "listen = b:2")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sluice.conf:3: 'listen' is already set on line 1 (give each key once; a list is "
                        + "comma-separated)");
    }

    @Test
    void aValueWithoutAKeyNamesItsLine() {
        assertThatThrownBy(() -> ConfigFile.parse(FILE, List.of("listen = a:1", "= 3")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("sluice.conf:2: a value without a key: write key = value");
    }
}
