package io.sluice.engine.check;

import static io.sluice.engine.check.BrowserPassesTest.CHROME;
import static io.sluice.engine.check.BrowserPassesTest.FIREFOX;
import static io.sluice.engine.check.BrowserPassesTest.HOME;
import static io.sluice.engine.check.BrowserPassesTest.NOW;
import static io.sluice.engine.check.PassKeyTest.DAY;
import static io.sluice.engine.check.PassKeyTest.seeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.check.ProofOfWork.Challenge;
import io.sluice.engine.check.ProofOfWork.Rejected;
import io.sluice.engine.check.ProofOfWork.Solved;
import io.sluice.engine.check.ProofOfWork.Why;
import io.sluice.engine.net.IpAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ProofOfWorkTest {

    static final long NO_JS_OFF = -1;
    static final long WAIT = 5_000;

    private final BrowserPasses passes = new BrowserPasses(PassKeyRing.of(PassKey.random(seeded(21))));
    private final ProofOfWork work = new ProofOfWork(passes, seeded(22));

    /** The smallest nonce meeting the difficulty, as the interstitial's script finds it. */
    static String solve(String token, int difficultyBits) {
        for (long nonce = 0; ; nonce++) {
            if (ProofOfWork.meets(token, Long.toString(nonce), difficultyBits)) {
                return Long.toString(nonce);
            }
        }
    }

    @Test
    void aSolvedChallengeGivesAPassId() {
        Challenge challenge = work.issue(HOME, CHROME, "/search?q=x", 12, NOW);
        assertThat(challenge.token()).hasSize(56).matches("[A-Za-z0-9_-]+");
        assertThat(challenge.difficultyBits()).isEqualTo(12);
        assertThat(challenge.returnPath()).isEqualTo("/search?q=x");
        assertThat(challenge.issuedAtMillis()).isEqualTo(NOW);
        String nonce = solve(challenge.token(), 12);

        var answer = work.check(challenge.token(), nonce, "/search?q=x", HOME, CHROME, NOW + 800, NO_JS_OFF);
        assertThat(answer).isInstanceOf(Solved.class);
        Solved solved = (Solved) answer;
        assertThat(solved.weak()).isFalse();
        assertThat(BrowserPasses.validId(solved.passId())).isTrue();
        assertThat(passes.check(passes.mint(solved.passId(), false, HOME, CHROME, NOW + DAY), HOME, CHROME, NOW))
                .isNotNull();
        assertThat(work.check(challenge.token(), nonce, "/search?q=x", HOME, CHROME, NOW + 900, NO_JS_OFF))
                .as("a replay is the same identity").isEqualTo(solved);
        assertThat(work.check(challenge.token(), nonce, "/search?q=x", IpAddress.parse("198.51.100.99"), CHROME,
                NOW + 900, NO_JS_OFF)).as("from the same /24").isEqualTo(solved);

        Challenge another = work.issue(HOME, CHROME, "/search?q=x", 12, NOW);
        assertThat(work.check(another.token(), solve(another.token(), 12), "/search?q=x", HOME, CHROME, NOW,
                NO_JS_OFF)).isNotEqualTo(solved).isInstanceOf(Solved.class);
    }

    @Test
    void aWrongNonceIsAWrongAnswer() {
        Challenge challenge = work.issue(HOME, CHROME, "/", 16, NOW);
        String nonce = solve(challenge.token(), 16);
        String wrong = nonce.equals("0") ? "1" : "0";
        assertThat(ProofOfWork.meets(challenge.token(), wrong, 16)).isFalse();
        assertThat(work.check(challenge.token(), wrong, "/", HOME, CHROME, NOW, WAIT))
                .isEqualTo(new Rejected(Why.WRONG_ANSWER));
        assertThat(work.check(challenge.token(), "0" + nonce, "/", HOME, CHROME, NOW, WAIT))
                .as("another text of the number is another hash").isNotInstanceOf(Solved.class);
    }

    @Test
    void anAnswerBroughtBackForAnotherPageNetworkOrUserAgentIsForged() {
        Challenge challenge = work.issue(HOME, CHROME, "/a", 8, NOW);
        String nonce = solve(challenge.token(), 8);
        Rejected forged = new Rejected(Why.FORGED);
        assertThat(work.check(challenge.token(), nonce, "/a", HOME, CHROME, NOW, NO_JS_OFF)).isInstanceOf(Solved.class);
        assertThat(work.check(challenge.token(), nonce, "/b", HOME, CHROME, NOW, NO_JS_OFF)).isEqualTo(forged);
        assertThat(work.check(challenge.token(), nonce, "/a/", HOME, CHROME, NOW, NO_JS_OFF)).isEqualTo(forged);
        assertThat(work.check(challenge.token(), nonce, "/a", IpAddress.parse("198.51.101.23"), CHROME, NOW,
                NO_JS_OFF)).isEqualTo(forged);
        assertThat(work.check(challenge.token(), nonce, "/a", IpAddress.parse("2001:db8::1"), CHROME, NOW,
                NO_JS_OFF)).isEqualTo(forged);
        assertThat(work.check(challenge.token(), nonce, "/a", HOME, FIREFOX, NOW, NO_JS_OFF)).isEqualTo(forged);
        assertThat(work.check(challenge.token(), null, "/b", HOME, CHROME, NOW + WAIT, WAIT)).isEqualTo(forged);

        ProofOfWork otherKey = new ProofOfWork(new BrowserPasses(PassKeyRing.of(PassKey.random(seeded(23)))));
        assertThat(otherKey.check(challenge.token(), nonce, "/a", HOME, CHROME, NOW, NO_JS_OFF)).isEqualTo(forged);
    }

    @Test
    void aLoweredDifficultyIsForged() {
        Challenge challenge = work.issue(HOME, CHROME, "/", 20, NOW);
        byte[] token = Base64.getUrlDecoder().decode(challenge.token());
        token[25] = 1;
        String lowered = Base64.getUrlEncoder().withoutPadding().encodeToString(token);
        String nonce = solve(lowered, 1);
        assertThat(work.check(lowered, nonce, "/", HOME, CHROME, NOW, NO_JS_OFF)).isEqualTo(new Rejected(Why.FORGED));
    }

    @Test
    void aTokenIsGoodForTenMinutes() {
        Challenge challenge = work.issue(HOME, CHROME, "/", 4, NOW);
        String nonce = solve(challenge.token(), 4);
        long tenMinutes = 10 * 60 * 1000L;
        assertThat(work.check(challenge.token(), nonce, "/", HOME, CHROME, NOW + tenMinutes - 1, NO_JS_OFF))
                .isInstanceOf(Solved.class);
        assertThat(work.check(challenge.token(), nonce, "/", HOME, CHROME, NOW + tenMinutes, NO_JS_OFF))
                .isEqualTo(new Rejected(Why.EXPIRED));
        assertThat(work.check(challenge.token(), nonce, "/", HOME, CHROME, NOW - 60_000, NO_JS_OFF))
                .as("another node's clock a minute behind").isInstanceOf(Solved.class);
        assertThat(work.check(challenge.token(), nonce, "/", HOME, CHROME, NOW - 60_001, NO_JS_OFF))
                .isEqualTo(new Rejected(Why.EXPIRED));
    }

    @Test
    void aTokenOfARotatedOutKeyIsForgedOnceTheKeyIsRetired() {
        Challenge challenge = work.issue(HOME, CHROME, "/", 4, NOW);
        String nonce = solve(challenge.token(), 4);
        passes.keys(passes.keys().rotated(PassKey.random(seeded(24)), NOW, 1_000));
        assertThat(work.check(challenge.token(), nonce, "/", HOME, CHROME, NOW + 999, NO_JS_OFF))
                .isInstanceOf(Solved.class);
        assertThat(work.check(challenge.token(), nonce, "/", HOME, CHROME, NOW + 1_000, NO_JS_OFF))
                .isEqualTo(new Rejected(Why.FORGED));
    }

    @Test
    void theNoScriptPathWaitsAndGivesAWeakPass() {
        Challenge challenge = work.issue(HOME, CHROME, "/page", 16, NOW);
        assertThat(work.check(challenge.token(), null, "/page", HOME, CHROME, NOW, WAIT))
                .isEqualTo(new Rejected(Why.TOO_EARLY));
        assertThat(work.check(challenge.token(), null, "/page", HOME, CHROME, NOW + WAIT - 1, WAIT))
                .isEqualTo(new Rejected(Why.TOO_EARLY));
        var answer = work.check(challenge.token(), null, "/page", HOME, CHROME, NOW + WAIT, WAIT);
        assertThat(answer).isInstanceOf(Solved.class);
        assertThat(((Solved) answer).weak()).isTrue();
        assertThat(work.check(challenge.token(), null, "/page", HOME, CHROME, NOW, 0)).isInstanceOf(Solved.class);
    }

    @Test
    void theNoScriptPathIsRefusedWhenOff() {
        Challenge challenge = work.issue(HOME, CHROME, "/page", 16, NOW);
        for (long later : new long[] {0, WAIT, 9 * 60_000}) {
            assertThat(work.check(challenge.token(), null, "/page", HOME, CHROME, NOW + later, NO_JS_OFF))
                    .isEqualTo(new Rejected(Why.WRONG_ANSWER));
        }
    }

    @Test
    void malformedAnswers() {
        Challenge challenge = work.issue(HOME, CHROME, "/", 4, NOW);
        String token = challenge.token();
        Rejected malformed = new Rejected(Why.MALFORMED);
        for (String nonce : new String[] {"", "-1", "1.0", "12a", " 1", "1".repeat(21), "\u0661"}) {
            assertThat(work.check(token, nonce, "/", HOME, CHROME, NOW, WAIT)).as(nonce).isEqualTo(malformed);
        }
        assertThat(work.check(token, "9".repeat(20), "/", HOME, CHROME, NOW, WAIT)).isNotEqualTo(malformed);
        for (String bad : new String[] {null, "", token + "A", token.substring(1), token.replace(token.charAt(3), '='),
            "A".repeat(56)}) {
            assertThat(work.check(bad, "1", "/", HOME, CHROME, NOW, WAIT)).as(bad).isIn(malformed,
                    new Rejected(Why.FORGED));
        }
        assertThat(work.check(token, "1", null, HOME, CHROME, NOW, WAIT)).isEqualTo(malformed);
        assertThat(work.check(token, "1", "/" + "a".repeat(5000), HOME, CHROME, NOW, WAIT)).isEqualTo(malformed);
        assertThat(work.check(token, "1", "/", null, CHROME, NOW, WAIT)).isEqualTo(malformed);
    }

    @Test
    void onlySameSitePathsAreReturnedTo() {
        for (String bad : new String[] {null, "", "x", "http://evil.example/", "//evil.example/", "/\\evil.example",
            "\\\\evil.example", "/\t/evil.example", "/\n/evil", "/a\\b", "javascript:alert(1)", "/é",
            "/" + "a".repeat(2048)}) {
            assertThat(work.issue(HOME, CHROME, bad, 4, NOW).returnPath()).as(String.valueOf(bad)).isEqualTo("/");
        }
        for (String good : new String[] {"/", "/a/b?c=d&e=%2F%2F#f", "/http://x", "/a//b", "/" + "a".repeat(2047)}) {
            assertThat(work.issue(HOME, CHROME, good, 4, NOW).returnPath()).isEqualTo(good);
        }
    }

    @Test
    void aDifficultyIsZeroToSixtyFourBits() {
        assertThatThrownBy(() -> work.issue(HOME, CHROME, "/", -1, NOW)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> work.issue(HOME, CHROME, "/", 65, NOW)).isInstanceOf(IllegalArgumentException.class);
        Challenge free = work.issue(HOME, CHROME, "/", 0, NOW);
        assertThat(work.check(free.token(), "0", "/", HOME, CHROME, NOW, NO_JS_OFF)).isInstanceOf(Solved.class);
    }

    @Test
    void meetsCountsLeadingZeroBitsOfTheHash() throws Exception {
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        for (int nonce = 0; nonce < 3_000; nonce++) {
            byte[] hash = sha256.digest(("tok:" + nonce).getBytes(StandardCharsets.UTF_8));
            int zeros = new java.math.BigInteger(1, hash).bitLength();
            zeros = 256 - zeros;
            String n = Integer.toString(nonce);
            assertThat(ProofOfWork.meets("tok", n, zeros)).isTrue();
            assertThat(ProofOfWork.meets("tok", n, zeros + 1)).isFalse();
        }
        assertThat(ProofOfWork.meets("tok", "1", 0)).isTrue();
        assertThat(ProofOfWork.meets("tok", "1", 257)).isFalse();
        assertThat(ProofOfWork.meets(null, "1", 0)).isFalse();
        assertThat(ProofOfWork.meets("tok", null, 0)).isFalse();
    }
}
