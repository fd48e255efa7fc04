package io.sluice.server.front;

import io.sluice.localredis.FreePorts;
import io.sluice.server.testkit.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * nginx (the Debian package) as a reverse proxy to {@code upstream}, on a free loopback port, configured
 * the way an operator would put it in front of a site: HTTP/1.1 keep-alive to the upstream, and the
 * forwarding headers set from the peer address, exactly as Sluice sets them for a direct client.
 */
final class NginxProxy implements AutoCloseable {
    private static final List<Path> WHERE = List.of(Path.of("/usr/sbin/nginx"), Path.of("/usr/bin/nginx"),
            Path.of("/usr/local/sbin/nginx"), Path.of("/usr/local/bin/nginx"));

    private final Process process;
    private final int port;

    private NginxProxy(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** The nginx binary, or null when it is not installed ({@code scripts/test-real-parts.sh} installs it). */
    static Path binary() {
        return WHERE.stream().filter(Files::isExecutable).findFirst().orElse(null);
    }

    static NginxProxy start(Path dir, int upstreamPort) throws IOException, InterruptedException {
        int port = FreePorts.forAProcess();
        String d = dir.toAbsolutePath().toString();
        String conf = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events { worker_connections 256; }
                http {
                  access_log off;
                  client_body_temp_path %1$s/body;
                  proxy_temp_path %1$s/proxy;
                  fastcgi_temp_path %1$s/fastcgi;
                  uwsgi_temp_path %1$s/uwsgi;
                  scgi_temp_path %1$s/scgi;
                  upstream site { server 127.0.0.1:%2$d; keepalive 16; }
                  server {
                    listen 127.0.0.1:%3$d;
                    location / {
                      proxy_pass http://site;
                      proxy_http_version 1.1;
                      proxy_set_header Connection "";
                      proxy_set_header Host $http_host;
                      proxy_set_header X-Forwarded-For $remote_addr;
                      proxy_set_header X-Forwarded-Proto $scheme;
                      proxy_set_header X-Forwarded-Host $http_host;
                      proxy_set_header Forwarded "for=$remote_addr;host=\\"$http_host\\";proto=$scheme";
                      proxy_set_header X-Forwarded-Port "";
                      proxy_set_header X-Forwarded-Server "";
                      proxy_set_header X-Real-IP "";
                    }
                  }
                }
                """.formatted(d, upstreamPort, port);
        Path file = dir.resolve("nginx.conf");
        Files.writeString(file, conf, StandardCharsets.US_ASCII);
        Process process = new ProcessBuilder(binary().toString(), "-p", d, "-c", file.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        NginxProxy nginx = new NginxProxy(process, port);
        nginx.awaitListening(dir);
        return nginx;
    }

    int port() {
        return port;
    }

    private void awaitListening(Path dir) throws IOException {
        boolean listening = Await.within(Duration.ofSeconds(20), () -> !process.isAlive() || listening());
        if (!process.isAlive()) {
            throw new IOException("nginx exited: " + Files.readString(dir.resolve("stdout.log"))
                    + (Files.exists(dir.resolve("error.log")) ? Files.readString(dir.resolve("error.log")) : ""));
        }
        if (!listening) {
            throw new IOException("nginx did not listen on " + port + " within 20 s");
        }
    }

    private boolean listening() {
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
