package io.sluice.server.demo;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A small built-in site for the demo: linked HTML pages, a gallery page with a stylesheet, a script and images
 * (what a browser fetches for a real page), a search page, a JSON API and an RSS feed, each answered
 * after a few milliseconds of simulated work (scheduled, not slept), so load shows up in the console. The search
 * page is the costly one (150-450 ms of work): what a scraper fleet harvesting it presses the site with.
 */
public final class DemoSite extends Handler.Abstract {
    static final int PAGES = 200;
    /** Images on the gallery page. */
    public static final int GALLERY_IMAGES = 24;
    static final String STYLESHEET = "body{font-family:sans-serif;border-top:4px solid #0072b2}"
            + "img{width:64px;height:64px;margin:4px}\n";
    /** Says in the page itself what the browser loaded: images that decoded, and whether the stylesheet applied. */
    static final String SCRIPT = "window.addEventListener('load',function(){"
            + "var images=document.images,ok=0;for(var i=0;i<images.length;i++){"
            + "if(images[i].complete&&images[i].naturalWidth>0){ok++;}}"
            + "var styled=getComputedStyle(document.body).borderTopStyle==='solid';"
            + "document.getElementById('loaded').textContent='images '+ok+'/'+images.length+' stylesheet '+styled;"
            + "});\n";
    /** Paths of what a page loads with it (stylesheet, script, images), as opposed to the pages themselves. */
    static boolean asset(String path) {
        return path.startsWith("/static/") || path.startsWith("/img/");
    }

    private final Random random = new Random();
    private volatile boolean slow;

    /** Slow: every answer takes 0.3-1.2 s of "work" instead of 5-30 ms (the demo's slow-upstream phase). */
    public void slow(boolean on) {
        this.slow = on;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = request.getHttpURI().getPath();
        String contentType;
        String body;
        if ("/".equals(path) || path.startsWith("/page/")) {
            contentType = "text/html;charset=utf-8";
            body = page(path);
        } else if ("/gallery".equals(path)) {
            contentType = "text/html;charset=utf-8";
            body = gallery();
        } else if ("/search".equals(path)) {
            contentType = "text/html;charset=utf-8";
            body = search(request.getHttpURI().getQuery());
        } else if ("/static/site.css".equals(path)) {
            contentType = "text/css";
            body = STYLESHEET;
        } else if ("/static/app.js".equals(path)) {
            contentType = "text/javascript";
            body = SCRIPT;
        } else if (path.startsWith("/img/") && path.endsWith(".svg")) {
            contentType = "image/svg+xml";
            body = image(parse(path.substring(5, path.length() - 4)));
        } else if (path.startsWith("/api/")) {
            contentType = "application/json";
            body = "{\"items\":[" + item(1) + "," + item(2) + "," + item(3) + "]}";
        } else if ("/feed.xml".equals(path)) {
            contentType = "application/rss+xml";
            body = feed();
        } else {
            return false;
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        int workMillis = slow ? 300 + nextInt(900) : "/search".equals(path) ? 150 + nextInt(300) : 5 + nextInt(25);
        request.getComponents().getScheduler().schedule(
                () -> Content.Sink.write(response, true, body, callback), workMillis, TimeUnit.MILLISECONDS);
        return true;
    }

    private synchronized int nextInt(int bound) {
        return random.nextInt(bound);
    }

    private String page(String path) {
        int n = path.startsWith("/page/") ? parse(path.substring(6)) : 0;
        StringBuilder html = new StringBuilder(512).append("<!doctype html><html><head><title>Demo page ")
                .append(n).append("</title></head><body><h1>Demo page ").append(n).append("</h1><ul>");
        for (int i = 1; i <= 5; i++) {
            html.append("<li><a href=\"/page/").append((n * 7 + i) % PAGES).append("\">page ")
                    .append((n * 7 + i) % PAGES).append("</a></li>");
        }
        return html.append("</ul><p><a href=\"/feed.xml\">feed</a> <a href=\"/api/items\">api</a></p></body></html>")
                .toString();
    }

    /** Results that link to a few pages: what the query asks does not matter, only that it costs the site. */
    private static String search(String query) {
        int n = Math.floorMod(query == null ? 0 : query.hashCode(), PAGES);
        StringBuilder html = new StringBuilder(512).append("<!doctype html><html><head><title>Search</title></head>")
                .append("<body><h1>Results</h1><ol>");
        for (int i = 0; i < 5; i++) {
            html.append("<li><a href=\"/page/").append((n + i * 11) % PAGES).append("\">page ")
                    .append((n + i * 11) % PAGES).append("</a></li>");
        }
        return html.append("</ol></body></html>").toString();
    }

    /** A page as a browser sees a real one: a stylesheet, a script and {@link #GALLERY_IMAGES} images. */
    private static String gallery() {
        StringBuilder html = new StringBuilder(2048).append("<!doctype html><html><head><title>Demo gallery</title>")
                .append("<link rel=\"stylesheet\" href=\"/static/site.css\">")
                .append("<script src=\"/static/app.js\"></script></head><body><h1>Demo gallery</h1>")
                .append("<p id=\"loaded\">loading</p>");
        for (int i = 0; i < GALLERY_IMAGES; i++) {
            html.append("<img alt=\"picture ").append(i).append("\" src=\"/img/").append(i).append(".svg\">");
        }
        return html.append("</body></html>").toString();
    }

    private static String image(int n) {
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\"><rect width=\"64\" "
                + "height=\"64\" fill=\"hsl(" + (n * 15) % 360 + ",60%,50%)\"/></svg>";
    }

    private static int parse(String text) {
        try {
            return Math.floorMod(Integer.parseInt(text), PAGES);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String item(int id) {
        return "{\"id\":" + id + ",\"name\":\"item " + id + "\"}";
    }

    private static String feed() {
        StringBuilder rss = new StringBuilder("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel>"
                + "<title>Demo feed</title><link>/</link><description>Sluice demo</description>");
        for (int i = 0; i < 5; i++) {
            rss.append("<item><title>Post ").append(i).append("</title><link>/page/").append(i)
                    .append("</link></item>");
        }
        return rss.append("</channel></rss>").toString();
    }
}
