package io.sluice.server.testkit;

import io.sluice.server.front.PublicConnector;
import java.net.URI;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The site behind the server's tests, on a free loopback port: what the demo site is to the demo, kept here because
 * the server's tests cannot use the demo module (it builds on the server). Linked pages ({@code /}, {@code /page/N}),
 * a JSON API ({@code /api/...}) and a gallery page with a stylesheet, a script and {@link #GALLERY_IMAGES} images
 * that says in the page what a browser loaded; each answer after 5-30 ms of simulated work (scheduled, not slept),
 * as a real site takes a moment. Anything else is a 404.
 */
public final class TestSite implements AutoCloseable {
    /** Images on the gallery page. */
    public static final int GALLERY_IMAGES = 24;
    private static final int PAGES = 200;
    private static final String STYLESHEET = "body{font-family:sans-serif;border-top:4px solid #0072b2}"
            + "img{width:64px;height:64px;margin:4px}\n";
    /** Writes into the page what the browser loaded: images that decoded, and whether the stylesheet applied. */
    private static final String SCRIPT = "window.addEventListener('load',function(){"
            + "var images=document.images,ok=0;for(var i=0;i<images.length;i++){"
            + "if(images[i].complete&&images[i].naturalWidth>0){ok++;}}"
            + "var styled=getComputedStyle(document.body).borderTopStyle==='solid';"
            + "document.getElementById('loaded').textContent='images '+ok+'/'+images.length+' stylesheet '+styled;"
            + "});\n";

    private final Server server;
    private final URI uri;

    private TestSite(Server server, URI uri) {
        this.server = server;
        this.uri = uri;
    }

    /** Starts one with up to {@code maxThreads} threads. */
    public static TestSite start(int maxThreads) throws Exception {
        Server server = new Server(new QueuedThreadPool(maxThreads, 2, 60_000));
        ServerConnector connector = new ServerConnector(server,
                new HttpConnectionFactory(PublicConnector.anonymousHttp()));
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(new Pages());
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        return new TestSite(server, URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/"));
    }

    /** Where a front end forwards to. */
    public URI uri() {
        return uri;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the test site did not stop cleanly: " + e.getMessage(), e);
        }
    }

    private static final class Pages extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String path = request.getHttpURI().getPath();
            String contentType;
            String body;
            if ("/".equals(path) || path.startsWith("/page/")) {
                contentType = "text/html;charset=utf-8";
                body = page(path.startsWith("/page/") ? number(path.substring(6)) : 0);
            } else if ("/gallery".equals(path)) {
                contentType = "text/html;charset=utf-8";
                body = gallery();
            } else if ("/static/site.css".equals(path)) {
                contentType = "text/css";
                body = STYLESHEET;
            } else if ("/static/app.js".equals(path)) {
                contentType = "text/javascript";
                body = SCRIPT;
            } else if (path.startsWith("/img/") && path.endsWith(".svg")) {
                contentType = "image/svg+xml";
                body = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\"><rect width=\"64\" "
                        + "height=\"64\" fill=\"hsl(" + number(path.substring(5, path.length() - 4)) * 15 % 360
                        + ",60%,50%)\"/></svg>";
            } else if (path.startsWith("/api/")) {
                contentType = "application/json";
                body = "{\"items\":[{\"id\":1},{\"id\":2},{\"id\":3}]}";
            } else {
                return false;
            }
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
            request.getComponents().getScheduler().schedule(() -> Content.Sink.write(response, true, body, callback),
                    5 + ThreadLocalRandom.current().nextInt(25), TimeUnit.MILLISECONDS);
            return true;
        }

        private static String page(int n) {
            StringBuilder html = new StringBuilder(512).append("<!doctype html><html><head><title>Test page ")
                    .append(n).append("</title></head><body><h1>Test page ").append(n).append("</h1><ul>");
            for (int i = 1; i <= 5; i++) {
                int next = (n * 7 + i) % PAGES;
                html.append("<li><a href=\"/page/").append(next).append("\">page ").append(next).append("</a></li>");
            }
            return html.append("</ul></body></html>").toString();
        }

        private static String gallery() {
            StringBuilder html = new StringBuilder(2048).append("<!doctype html><html><head><title>Gallery</title>")
                    .append("<link rel=\"stylesheet\" href=\"/static/site.css\">")
                    .append("<script src=\"/static/app.js\"></script></head><body><h1>Gallery</h1>")
                    .append("<p id=\"loaded\">loading</p>");
            for (int i = 0; i < GALLERY_IMAGES; i++) {
                html.append("<img alt=\"picture ").append(i).append("\" src=\"/img/").append(i).append(".svg\">");
            }
            return html.append("</body></html>").toString();
        }

        private static int number(String text) {
            try {
                return Math.floorMod(Integer.parseInt(text), PAGES);
            } catch (NumberFormatException e) {
                return 0;
            }
        }
    }
}
