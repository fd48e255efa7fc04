package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.check.ProofOfWork;
import io.sluice.engine.check.ProofOfWork.Challenge;
import io.sluice.engine.net.IpAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class InterstitialTest {
    private static final String PASS = "/.sluice/pass";
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.23");
    private static final String AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    private static final long NOW = 1_790_000_000_000L;

    private final ProofOfWork work = new ProofOfWork(new BrowserPasses(PassKeyRing.of(
            PassKey.random(new SecureRandom()))));

    private Challenge challenge(String returnPath) {
        return work.issue(CLIENT, AGENT, returnPath, 12, NOW);
    }

    @Test
    void saysWhatIsHappeningAndCarriesTheChallengeAndItsScript() {
        Challenge challenge = challenge("/search?q=sluice");
        String page = Interstitial.page(challenge, PASS, 5_000, null);
        assertThat(page).startsWith("<!doctype html>").endsWith("</html>")
                .contains("Checking that you are a browser", "data-token=\"" + challenge.token() + "\"",
                        "data-bits=\"12\"", "data-pass=\"/.sluice/pass\"", "data-r=\"%2Fsearch%3Fq%3Dsluice\"",
                        "location.replace(", "<script>// Sluice's browser check")
                .doesNotContain("crypto.subtle(", "src=", "href=", "Why am I seeing this");
    }

    @Test
    void theNoScriptRefreshIsThereOnlyWhenThatPathIsOn() {
        Challenge challenge = challenge("/a b".replace(' ', '/'));
        String on = Interstitial.page(challenge, PASS, 5_000, null);
        assertThat(on).contains("<noscript><meta http-equiv=\"refresh\" content=\"6;url=/.sluice/pass?c="
                + challenge.token() + "&amp;r=%2Fa%2Fb\"></noscript>", "JavaScript is off: you will be sent on in 6")
                .doesNotContain("needs JavaScript");
        Matcher refresh = Pattern.compile("http-equiv=\"refresh\" content=\"(\\d+);url=([^\"]*)\"").matcher(on);
        assertThat(refresh.find()).isTrue();
        String url = refresh.group(2).replace("&amp;", "&");
        assertThat(url).doesNotContain("n=");
        assertThat(URLDecoder.decode(url.substring(url.indexOf("&r=") + 3), StandardCharsets.UTF_8))
                .isEqualTo(challenge.returnPath());

        String off = Interstitial.page(challenge, PASS, -1, null);
        assertThat(off).doesNotContain("refresh", "JavaScript is off")
                .contains("<noscript><p>This check needs JavaScript");
        assertThat(Interstitial.page(challenge, PASS, 0, null)).contains("content=\"1;url=");
        assertThat(Interstitial.page(challenge, PASS, 1, null)).contains("content=\"2;url=");
    }

    @Test
    void escapesEverythingItInserts() {
        String hostile = "/\"><script>alert(1)</script>&x='y'";
        Challenge challenge = challenge(hostile);
        assertThat(challenge.returnPath()).isEqualTo(hostile);
        String page = Interstitial.page(challenge, "/p\"<x>", 5_000, "https://example.org/why?a=1&b=\"<i>");
        assertThat(page).doesNotContain("<script>alert", "<x>", "<i>", "alert(1)")
                .contains("data-pass=\"/p&quot;&lt;x&gt;\"",
                        "href=\"https://example.org/why?a=1&amp;b=&quot;&lt;i&gt;\">Why am I seeing this?</a>",
                        "data-r=\"%2F%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26x%3D%27y%27\"");
        assertThat(page.indexOf("<script>")).isEqualTo(page.lastIndexOf("<script>"));
    }

    @Test
    void staysUnderTwentyKilobytesWhateverThePath() {
        String worst = "/" + "\"".repeat(ProofOfWork.MAX_RETURN_PATH - 1);
        Challenge challenge = challenge(worst);
        assertThat(challenge.returnPath()).isEqualTo(worst);
        String page = Interstitial.page(challenge, PASS, 5_000, "https://example.org/" + "a".repeat(200));
        assertThat(page.getBytes(StandardCharsets.UTF_8).length).isLessThan(20 * 1024);
        assertThat(Interstitial.page(challenge("/"), PASS, 5_000, null).length()).isLessThan(6 * 1024);
    }

    @Test
    void theContentSecurityPolicyAllowsItsOwnScriptAndStyleOnly() throws Exception {
        String page = Interstitial.page(challenge("/"), PASS, 5_000, null);
        String script = page.substring(page.indexOf("<script>") + 8, page.indexOf("</script>"));
        String style = page.substring(page.indexOf("<style>") + 7, page.indexOf("</style>"));
        assertThat(Interstitial.CONTENT_SECURITY_POLICY).startsWith("default-src 'none'; ")
                .contains("script-src 'sha256-" + sha256(script) + "'", "style-src 'sha256-" + sha256(style) + "'");
    }

    @Test
    void percentEncodesAllButTheUnreserved() {
        assertThat(Interstitial.percentEncode("Az09-_.~/?&=+% é")).isEqualTo("Az09-_.~%2F%3F%26%3D%2B%25%20%C3%A9");
    }

    private static String sha256(String text) throws Exception {
        return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
