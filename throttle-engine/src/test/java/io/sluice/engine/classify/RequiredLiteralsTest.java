package io.sluice.engine.classify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequiredLiteralsTest {

    @Test
    void extractsTheLongestRequiredRun() {
        assertThat(RequiredLiterals.of("Googlebot\\/")).containsExactly("googlebot/");
        assertThat(RequiredLiterals.of("[wW]get")).containsExactly("wget");
        assertThat(RequiredLiterals.of("AdsBot-Google([^-]|$)")).containsExactly("adsbot-google");
        assertThat(RequiredLiterals.of("(sistrix|SISTRIX) [cC]rawler")).containsExactly(" crawler");
        assertThat(RequiredLiterals.of("BlogTraffic\\/\\d\\.\\d+ Feed-Fetcher")).containsExactly(" feed-fetcher");
        assertThat(RequiredLiterals.of("Automaton|Newsify Feed Fetcher"))
                .containsExactly("automaton", "newsify feed fetcher");
        assertThat(RequiredLiterals.of("^curl")).containsExactly("curl");
        assertThat(RequiredLiterals.of("abcx?yz")).containsExactly("abc");
        assertThat(RequiredLiterals.of("ab+cdef")).containsExactly("cdef");
        assertThat(RequiredLiterals.of("abc{0,2}de")).containsExactly("ab");
        assertThat(RequiredLiterals.of("xy{2}zzzz")).containsExactly("zzzz");
    }

    @Test
    void givesUpWhenUnsure() {
        assertThat(RequiredLiterals.of("\\x41bc")).isNull();
        assertThat(RequiredLiterals.of("(?x)a b c")).isNull();
        assertThat(RequiredLiterals.of("a|.*")).isNull();
        assertThat(RequiredLiterals.of("[[a]b]")).isNull();
        assertThat(RequiredLiterals.of("(ab")).isNull();
    }
}
