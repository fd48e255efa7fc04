package io.sluice.server.ranges;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Where an operator's copy of the crawlers' published ranges is read from: a file, or an {@code http}/{@code https}
 * URL (a copy the operator's own job keeps fresh with {@code scripts/update-crawler-ranges.py}, or one a fleet
 * shares). Reading is bounded: {@link #MAX_BYTES}, and {@link #TIMEOUT} for a URL, which must answer 200.
 *
 * @param text the file's path or the URL, as the operator wrote it
 */
public record RangesLocation(String text) {

    /** The largest copy read: the bundled file is about 100 kB. */
    public static final int MAX_BYTES = 16 * 1024 * 1024;
    /** How long a URL may take to connect, and to answer whole. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);

    /**
     * @throws IllegalArgumentException when {@code text} is blank, or a URL of another scheme than http(s)
     */
    public RangesLocation {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("the crawler ranges' source is missing: a file or an http(s) URL");
        }
        text = text.strip();
        if (text.contains("://") && !isUrl(text)) {
            throw new IllegalArgumentException("the crawler ranges' source must be a file or an http(s) URL, not '"
                    + text + "'");
        }
    }

    /** True for an http(s) URL, false for a file. */
    public boolean isUrl() {
        return isUrl(text);
    }

    private static boolean isUrl(String text) {
        return text.startsWith("http://") || text.startsWith("https://");
    }

    /** The copy's bytes. @throws IOException naming the source and what failed */
    public byte[] read() throws IOException {
        if (!isUrl()) {
            Path file = Path.of(text);
            if (Files.size(file) > MAX_BYTES) {
                throw new IOException(text + " is larger than " + MAX_BYTES + " bytes");
            }
            return Files.readAllBytes(file);
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT)
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(text)).timeout(TIMEOUT)
                .header("User-Agent", "sluice-crawler-ranges").GET().build();
        try {
            HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                if (response.statusCode() != 200) {
                    throw new IOException(text + " answered " + response.statusCode());
                }
                byte[] bytes = body.readNBytes(MAX_BYTES + 1);
                if (bytes.length > MAX_BYTES) {
                    throw new IOException(text + " sent more than " + MAX_BYTES + " bytes");
                }
                return bytes;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + text, e);
        } catch (IllegalArgumentException e) { // a URL the client cannot use
            throw new IOException(text + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
