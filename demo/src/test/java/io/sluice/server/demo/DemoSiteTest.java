package io.sluice.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The demo site in memory (Jetty's LocalConnector): what the demo's front ends protect. */
class DemoSiteTest {
    private final Server server = new Server();
    private final LocalConnector connector = new LocalConnector(server);

    @BeforeEach
    void start() throws Exception {
        server.addConnector(connector);
        server.setHandler(new DemoSite());
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @Test
    void theDemoSiteServesPagesAnApiAndAFeed() throws Exception {
        assertThat(get("/page/3").getContent()).contains("Demo page 3");
        assertThat(get("/api/items").get("Content-Type")).isEqualTo("application/json");
        assertThat(get("/feed.xml").getContent()).contains("<rss");
        assertThat(get("/nope").getStatus()).isEqualTo(404);
    }

    @Test
    void theGalleryNamesItsStylesheetScriptAndEveryImage() throws Exception {
        String gallery = get("/gallery").getContent();

        assertThat(gallery).contains("/static/site.css", "/static/app.js",
                "/img/0.svg", "/img/" + (DemoSite.GALLERY_IMAGES - 1) + ".svg")
                .doesNotContain("/img/" + DemoSite.GALLERY_IMAGES + ".svg");
        assertThat(get("/img/3.svg").get("Content-Type")).isEqualTo("image/svg+xml");
    }

    @Test
    void theSearchPageAnswersWithResultsAndOnlyStylesheetsScriptsAndImagesAreAssets() throws Exception {
        HttpTester.Response search = get("/search?q=weir&page=2");

        assertThat(search.getStatus()).isEqualTo(200);
        assertThat(search.getContent()).contains("Results", "<a href=\"/page/");
        assertThat(get("/search?q=weir&page=2").getContent()).as("the same query, the same results")
                .isEqualTo(search.getContent());
        assertThat(DemoSite.asset("/static/site.css")).isTrue();
        assertThat(DemoSite.asset("/img/3.svg")).isTrue();
        assertThat(DemoSite.asset("/gallery")).isFalse();
        assertThat(DemoSite.asset("/search")).isFalse();
    }

    private HttpTester.Response get(String path) throws Exception {
        return HttpTester.parseResponse(connector.getResponse("GET " + path + " HTTP/1.1\r\nHost: demo\r\n"
                + "Connection: close\r\n\r\n"));
    }
}
