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
 * A small built-in site for the demo: linked HTML pages, a JSON API and an RSS feed, each answered
 * after a few milliseconds of simulated work (scheduled, not slept), so load shows up in the console.
 */
public final class DemoSite extends Handler.Abstract {
    static final int PAGES = 200;
    private final Random random = new Random();

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String path = request.getHttpURI().getPath();
        String contentType;
        String body;
        if ("/".equals(path) || path.startsWith("/page/")) {
            contentType = "text/html;charset=utf-8";
            body = page(path);
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
        int workMillis = 5 + nextInt(25);
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
