package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.server.testkit.HeadlessChromium;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.Servers;
import io.sluice.server.testkit.TestSite;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The browser check with a real person's browser (issue 46): headless Chromium through the real front end and the
 * demo site, JavaScript on (it solves the proof-of-work and keeps its pass across pages) and off (the no-JavaScript
 * path, when the operator leaves it on).
 */
@RealParts
class BrowserCheckChromiumTest {

    private static final int VIRTUAL_MILLIS = 20_000;

    @TempDir
    Path state;
    @TempDir
    Path browserDir;
    @RegisterExtension
    final Servers servers = new Servers();
    private SluiceServer server;

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
    }

    private void check(UnaryOperator<BrowserCheck> change) {
        server.engine().updatePolicy(p -> p.withBrowserCheck(change.apply(p.browserCheck())));
    }

    private BrowserCheckCounts counts() {
        return server.engine().snapshot().browserCheck();
    }

    @Test
    void withJavaScriptItPassesTheCheckOnceAndKeepsItsPassAcrossPages() throws Exception {
        check(c -> c.withMode(BrowserCheck.Mode.ALWAYS));
        HeadlessChromium chromium = new HeadlessChromium(browserDir);

        String gallery = chromium.dumpDom(server.frontUri().resolve("/gallery"), true, VIRTUAL_MILLIS);
        assertThat(gallery).contains("images " + TestSite.GALLERY_IMAGES + "/" + TestSite.GALLERY_IMAGES
                + " stylesheet true");
        assertThat(counts().challenged()).isEqualTo(1);
        assertThat(counts().passesEarned()).isEqualTo(1);

        String next = chromium.dumpDom(server.frontUri().resolve("/page/2"), true, VIRTUAL_MILLIS);
        assertThat(next).doesNotContain("sluice-check");
        assertThat(counts().challenged()).as("the second page came on the pass").isEqualTo(1);
        assertThat(counts().servedOnPass()).isGreaterThanOrEqualTo(1 + TestSite.GALLERY_IMAGES);
    }

    @Test
    void adaptiveAsksChromiumOnlyWhileTheSiteIsUnderPressure() throws Exception {
        HeadlessChromium chromium = new HeadlessChromium(browserDir);
        assertThat(chromium.dumpDom(server.frontUri().resolve("/page/1"), true, VIRTUAL_MILLIS))
                .doesNotContain("sluice-check");
        assertThat(counts().challenged()).isZero();

        // one request held in flight is pressure at a threshold of one
        check(c -> new BrowserCheck(c.mode(), c.difficulty(), c.passTtlSeconds(), c.noScript(),
                c.noScriptWaitSeconds(), 1, c.pressureHoldSeconds(), c.perPass(), c.networks(), c.exemptPaths(),
                c.alwaysChallenge()));
        Decision held = server.engine().decide(Request.get("10.9.9.9", "curl/8.5.0", "/slow"));
        try {
            String page = new HeadlessChromium(browserDir.resolve("second")).dumpDom(
                    server.frontUri().resolve("/gallery"), true, VIRTUAL_MILLIS);
            assertThat(page).contains("images " + TestSite.GALLERY_IMAGES + "/" + TestSite.GALLERY_IMAGES);
            assertThat(counts().challenged()).isEqualTo(1);
            assertThat(counts().passesEarned()).isEqualTo(1);
        } finally {
            ((Decision.Admit) held).admission().complete(200, 1);
        }
    }

    @Test
    void withoutJavaScriptItPassesByWaitingWhenTheOperatorAllowsItAndNotOtherwise() throws Exception {
        check(c -> c.withMode(BrowserCheck.Mode.ALWAYS));
        // the page's refresh runs on its virtual time, fast: the pass endpoint holds it until the real wait is over
        String page = new HeadlessChromium(browserDir).dumpDom(server.frontUri().resolve("/page/3"), false,
                VIRTUAL_MILLIS);
        assertThat(page).doesNotContain("sluice-check");
        assertThat(counts().weakPassesEarned()).as("%s %s", counts(), page).isEqualTo(1);

        check(c -> new BrowserCheck(c.mode(), c.difficulty(), c.passTtlSeconds(), false, c.noScriptWaitSeconds(),
                c.pressureInFlight(), c.pressureHoldSeconds(), c.perPass(), c.networks(), c.exemptPaths(),
                List.of()));
        String refused = new HeadlessChromium(browserDir.resolve("off")).dumpDom(
                server.frontUri().resolve("/page/4"), false, VIRTUAL_MILLIS);
        assertThat(refused).contains("sluice-check");
        assertThat(counts().weakPassesEarned()).isEqualTo(1);
    }
}
