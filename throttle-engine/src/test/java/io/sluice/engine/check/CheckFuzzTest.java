package io.sluice.engine.check;

import static io.sluice.engine.check.BrowserPassesTest.CHROME;
import static io.sluice.engine.check.BrowserPassesTest.HOME;
import static io.sluice.engine.check.BrowserPassesTest.NOW;
import static io.sluice.engine.check.PassKeyTest.DAY;
import static io.sluice.engine.check.PassKeyTest.seeded;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.ProofOfWork.Answer;
import io.sluice.engine.check.ProofOfWork.Challenge;
import io.sluice.engine.check.ProofOfWork.Solved;
import io.sluice.engine.net.IpAddress;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Whatever a client sends as a pass cookie or a proof-of-work answer, the readers answer (no pass, a rejection)
 * and never throw: random texts, and valid values mutated (characters replaced, inserted, deleted, cut,
 * doubled, spliced with another value), with hostile user agents, paths, nonces, addresses and times. Seeded,
 * so a failure repeats; each loop states what it found, so a change that made every input fail early would show.
 */
class CheckFuzzTest {

    private static final int CASES = 150_000;
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    private static final String HOSTILE = "=+/.%:; \t\n\r\u0000\u007f\u00e9\u0661\ud83d\ude00\ud800\\\"'<>";
    private static final List<IpAddress> ADDRESSES = List.of(HOME, IpAddress.parse("198.51.100.7"),
            IpAddress.parse("203.0.113.1"), IpAddress.parse("2001:db8::1"), IpAddress.parse("::"),
            IpAddress.parse("255.255.255.255"));
    private static final long[] TIMES = {NOW, NOW + 1, NOW + 9 * 60_000, NOW + 11 * 60_000, NOW - 61_000, 0, -1,
        Long.MIN_VALUE, Long.MAX_VALUE};

    private final Random random = new Random(46);
    private final BrowserPasses passes = new BrowserPasses(PassKeyRing.of(PassKey.random(seeded(31)))
            .rotated(PassKey.random(seeded(32)), NOW, DAY));
    private final ProofOfWork work = new ProofOfWork(passes, seeded(33));

    @Test
    void thePassReaderNeverThrows() {
        String[] valid = {
            passes.mint("abcdefghijkl", false, HOME, CHROME, NOW + DAY),
            passes.mint("x", true, HOME, null, Long.MAX_VALUE),
            passes.mint("x".repeat(32), false, IpAddress.parse("2001:db8::1"), CHROME, NOW),
        };
        int passed = 0;
        for (int i = 0; i < CASES; i++) {
            String value = i % 5 == 0 ? randomText() : mutate(valid[random.nextInt(valid.length)], valid);
            if (passes.check(value, address(), userAgent(), time()) != null) {
                passed++;
            }
        }
        assertThat(passed).as("mutations that kept a valid value and its binding").isLessThan(CASES / 10);
        assertThat(passes.check(valid[0], HOME, CHROME, NOW)).isNotNull();
    }

    @Test
    void theProofOfWorkReaderNeverThrows() {
        Challenge[] challenges = {
            work.issue(HOME, CHROME, "/a", 0, NOW),
            work.issue(HOME, CHROME, "/", 1, NOW),
            work.issue(IpAddress.parse("2001:db8::1"), null, "/x?y", 2, NOW),
        };
        String[] tokens = new String[challenges.length];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = challenges[i].token();
        }
        int solved = 0;
        for (int i = 0; i < CASES; i++) {
            String token = i % 5 == 0 ? randomText() : mutate(tokens[random.nextInt(tokens.length)], tokens);
            Answer answer = work.check(token, nonce(), path(), address(), userAgent(), time(),
                    random.nextInt(3) - 1L);
            if (answer == null) {
                throw new AssertionError("no answer for " + token);
            }
            if (answer instanceof Solved) {
                solved++;
            }
            if (i % 8 == 0) {
                ProofOfWork.meets(token, nonce(), random.nextInt(300) - 20);
            }
        }
        assertThat(solved).as("mutations that kept a valid token and its binding").isLessThan(CASES / 10);
    }

    private String mutate(String value, String[] others) {
        StringBuilder text = new StringBuilder(value);
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = text.length() == 0 ? 0 : random.nextInt(text.length());
            switch (random.nextInt(7)) {
                case 0 -> {
                    if (text.length() > 0) {
                        text.setCharAt(at, character());
                    }
                }
                case 1 -> text.insert(at, character());
                case 2 -> {
                    if (text.length() > 0) {
                        text.deleteCharAt(at);
                    }
                }
                case 3 -> text.setLength(at);
                case 4 -> text.append(text);
                case 5 -> {
                    String other = others[random.nextInt(others.length)];
                    text.replace(at, text.length(), other.substring(Math.min(at, other.length())));
                }
                default -> text.append(randomText());
            }
        }
        return text.toString();
    }

    private String randomText() {
        int length = switch (random.nextInt(4)) {
            case 0 -> random.nextInt(8);
            case 1 -> 40 + random.nextInt(50);
            case 2 -> 54 + random.nextInt(4);
            default -> random.nextInt(50) == 0 ? 3000 + random.nextInt(2000) : random.nextInt(700);
        };
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(character());
        }
        return text.toString();
    }

    private char character() {
        return random.nextInt(8) == 0 ? HOSTILE.charAt(random.nextInt(HOSTILE.length()))
                : ALPHABET.charAt(random.nextInt(ALPHABET.length()));
    }

    private String nonce() {
        return switch (random.nextInt(6)) {
            case 0 -> null;
            case 1 -> randomText();
            case 2 -> "9".repeat(random.nextInt(25));
            default -> Long.toString(random.nextLong() & Long.MAX_VALUE);
        };
    }

    private String path() {
        return switch (random.nextInt(5)) {
            case 0 -> null;
            case 1 -> "/" + randomText();
            case 2 -> "/a";
            default -> "/";
        };
    }

    private String userAgent() {
        return switch (random.nextInt(5)) {
            case 0 -> null;
            case 1 -> randomText();
            default -> CHROME;
        };
    }

    private IpAddress address() {
        return random.nextInt(20) == 0 ? null : ADDRESSES.get(random.nextInt(ADDRESSES.size()));
    }

    private long time() {
        return TIMES[random.nextInt(TIMES.length)];
    }
}
