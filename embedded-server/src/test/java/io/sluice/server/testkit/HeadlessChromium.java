package io.sluice.server.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real person's browser for the tests that need one: Debian's headless Chromium ({@code .ci/run} and the real-parts
 * tier install it), started with the flags this machine's closed network needs, on a profile of the test's own (so a
 * second load keeps the first one's cookies) and a person's user agent, printing the page's DOM once its virtual time
 * is spent.
 */
public final class HeadlessChromium {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    /**
     * What a person's Chrome sends. Headless Chromium's own says {@code HeadlessChrome}, which the crawler list
     * (rightly) counts as a bot: the browser check would never meet it.
     */
    public static final String PERSONS_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like "
            + "Gecko) Chrome/131.0.0.0 Safari/537.36";
    private final Path profile;
    private final Path log;

    /** A browser whose profile and log live in {@code dir}. */
    public HeadlessChromium(Path dir) throws IOException {
        this.profile = Files.createDirectories(dir.resolve("chromium-profile"));
        this.log = dir.resolve("chromium.log");
    }

    /**
     * Loads {@code page} (following whatever it navigates to, redirects and scripts included, within
     * {@code virtualMillis} of the page's own time) and answers the DOM it ends on.
     *
     * @param javascript false to load it as a browser with JavaScript turned off
     */
    public String dumpDom(URI page, boolean javascript, int virtualMillis) throws Exception {
        return dump(page, javascript, "--virtual-time-budget=" + virtualMillis);
    }

    /**
     * Loads {@code page} and answers the DOM it is on after {@code millis} of real time: for what the page's own
     * (virtual) time cannot stand for, such as a wait the server measures on its clock.
     */
    public String dumpDomAfter(URI page, boolean javascript, int millis) throws Exception {
        return dump(page, javascript, "--timeout=" + millis);
    }

    private String dump(URI page, boolean javascript, String howLong) throws Exception {
        assertThat(CHROMIUM).as("Debian's chromium package (the real-parts tier installs it)").isExecutable();
        List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
                "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--no-proxy-server", "--user-data-dir=" + profile,
                howLong, "--user-agent=" + PERSONS_CHROME, "--dump-dom"));
        // JavaScript off as a person turns it off, in the profile's settings: --disable-javascript leaves page
        // scripts running in headless mode, and Blink's scriptEnabled setting stops --dump-dom itself
        Files.writeString(Files.createDirectories(profile.resolve("Default")).resolve("Preferences"),
                "{\"profile\":{\"default_content_setting_values\":{\"javascript\":" + (javascript ? 1 : 2)
                        + "}}}");
        command.add(page.toString());
        Process browser = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        byte[] dom = browser.getInputStream().readAllBytes();
        assertThat(browser.waitFor(120, TimeUnit.SECONDS)).as("chromium finished; its log: %s", log).isTrue();
        return new String(dom, StandardCharsets.UTF_8);
    }
}
