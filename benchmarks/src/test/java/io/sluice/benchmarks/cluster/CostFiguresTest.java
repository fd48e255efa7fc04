package io.sluice.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The benchmark's readings and options, without a Redis: what each figure sums, and bad options refused by name. */
class CostFiguresTest {
    private static final String COMMANDSTATS = """
            # Commandstats\r
            cmdstat_fcall:calls=100,usec=2000,usec_per_call=20.00,rejected_calls=0,failed_calls=0\r
            cmdstat_evalsha:calls=20,usec=1000,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r
            cmdstat_get:calls=240,usec=240,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r
            cmdstat_setrange:calls=480,usec=480,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r
            cmdstat_ping:calls=10,usec=5,usec_per_call=0.50,rejected_calls=0,failed_calls=0\r
            cmdstat_info:calls=3,usec=60,usec_per_call=20.00,rejected_calls=0,failed_calls=0\r
            cmdstat_config|resetstat:calls=1,usec=50,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r
            """;

    @Test
    void commandsRunCountScriptsOwnCallsButNotTheBenchmarksReads() {
        CommandStats stats = CommandStats.parse(COMMANDSTATS);

        assertThat(stats.of("evalsha")).isEqualTo(new CommandStats.Calls(20, 1000));
        assertThat(stats.of("hgetall")).isEqualTo(CommandStats.Calls.NONE);
        assertThat(stats.scripts()).isEqualTo(new CommandStats.Calls(120, 3000));
        assertThat(stats.run()).isEqualTo(100 + 20 + 240 + 480 + 10);
        assertThat(stats.sent()).isEqualTo(100 + 20 + 10);
    }

    @Test
    void cpuTicksAreReadAfterACommandNameWithSpacesAndParentheses() {
        String stat = "4242 (redis (x) y) S 1 4242 4242 0 -1 4194560 1094 0 0 0 731 269 0 0 20 0 5 0 123 0 0";

        assertThat(ProcessCpu.ticks(stat)).isEqualTo(731 + 269);
    }

    @Test
    void optionsDefaultAsTheManualSays() {
        assertThat(CostOptions.parse()).isEqualTo(new CostOptions(1, null, -1, 1, 10_000, 64, 20, 30));
        assertThat(CostOptions.parse("--shards", "3", "--seconds", "5").shards()).isEqualTo(3);
    }

    @Test
    void badOptionsAreRefusedByName() {
        assertThatThrownBy(() -> CostOptions.parse("--shards", "2")).hasMessageContaining("--shards");
        assertThatThrownBy(() -> CostOptions.parse("--in-flight", "0")).hasMessageContaining("--in-flight");
        assertThatThrownBy(() -> CostOptions.parse("--seconds", "ten")).hasMessageContaining("--seconds");
        assertThatThrownBy(() -> CostOptions.parse("--redis-core", "999")).hasMessageContaining("--redis-core");
        assertThatThrownBy(() -> CostOptions.parse("--shards", "3", "--redis", "redis://127.0.0.1"))
                .hasMessageContaining("--redis");
        assertThatThrownBy(() -> CostOptions.parse("--nodes")).hasMessageContaining("--nodes needs a value");
        assertThatThrownBy(() -> CostOptions.parse("--node", "2")).hasMessageContaining("unknown option --node");
    }
}
