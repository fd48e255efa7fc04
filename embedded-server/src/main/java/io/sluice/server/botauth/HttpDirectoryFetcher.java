package io.sluice.server.botauth;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * Fetches key directories with Jetty's client, within the draft's SSRF bounds: only addresses the
 * {@link AddressPolicy} allows (checked on the resolved address the connection uses), no redirects, no content
 * decoding (the size limit is on the bytes read), at most {@code maxBytes}, all of it within {@code fetchTimeout}.
 * Its own small thread pool: a slow directory holds one of its threads at most, never a request's.
 */
final class HttpDirectoryFetcher implements DirectoryFetcher, AutoCloseable {

    static final String MEDIA_TYPE = "application/http-message-signatures-directory+json";
    private static final Pattern MAX_AGE = Pattern.compile("(?:^|[,\\s])max-age=\"?(\\d{1,9})");

    private final HttpClient client;
    private final SignedAgentOptions options;

    HttpDirectoryFetcher(SignedAgentOptions options) throws Exception {
        this.options = options;
        AddressPolicy addresses = new AddressPolicy(options.allowed());
        QueuedThreadPool threads = new QueuedThreadPool(Math.max(8, options.fetchesInAll() + 4), 2);
        threads.setName("sluice-key-directories");
        threads.setDaemon(true);
        ScheduledExecutorScheduler scheduler = new ScheduledExecutorScheduler("sluice-key-directories-timer", true);
        client = new HttpClient();
        client.setExecutor(threads);
        client.setScheduler(scheduler);
        long timeout = options.fetchTimeout().toMillis();
        SocketAddressResolver dns = new SocketAddressResolver.Async(threads, scheduler, timeout);
        client.setSocketAddressResolver((host, port, context, promise) -> dns.resolve(host, port, context,
                new Promise<>() {
                    @Override
                    public void succeeded(List<InetSocketAddress> resolved) {
                        List<InetSocketAddress> allowed = new ArrayList<>();
                        for (InetSocketAddress address : resolved) {
                            if (address.getAddress() != null && addresses.allows(address.getAddress())) {
                                allowed.add(address);
                            }
                        }
                        if (allowed.isEmpty()) {
                            promise.failed(new UnknownHostException(host + " has no address a key directory may be "
                                    + "fetched from (loopback and private ranges need --signed-agents-allow)"));
                        } else {
                            promise.succeeded(allowed);
                        }
                    }

                    @Override
                    public void failed(Throwable failure) {
                        promise.failed(failure);
                    }
                }));
        client.setFollowRedirects(false);
        client.setConnectTimeout(timeout);
        client.setIdleTimeout(timeout);
        client.setMaxConnectionsPerDestination(Math.max(1, options.fetchesPerHost()));
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "Sluice (key directory fetcher)"));
        client.getContentDecoderFactories().clear();
        client.start();
    }

    @Override
    public CompletableFuture<Fetched> fetch(URI uri) {
        CompletableFuture<Fetched> answer = new CompletableFuture<>();
        client.newRequest(uri)
                .timeout(options.fetchTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .headers(headers -> headers.put(HttpHeader.ACCEPT, MEDIA_TYPE + ", application/jwk-set+json, "
                        + "application/json;q=0.5"))
                .send(new BufferingResponseListener(options.maxBytes()) {
                    @Override
                    public void onComplete(Result result) {
                        if (result.isFailed()) {
                            answer.completeExceptionally(result.getFailure());
                        } else if (result.getResponse().getStatus() != 200) {
                            answer.completeExceptionally(new IllegalStateException("status "
                                    + result.getResponse().getStatus()));
                        } else {
                            answer.complete(new Fetched(getContent(),
                                    maxAge(result.getResponse().getHeaders().get(HttpHeader.CACHE_CONTROL))));
                        }
                    }
                });
        return answer;
    }

    /** The {@code max-age} of a {@code Cache-Control} value, or null. */
    static Long maxAge(String cacheControl) {
        if (cacheControl == null) {
            return null;
        }
        Matcher m = MAX_AGE.matcher(cacheControl);
        return m.find() ? Long.valueOf(m.group(1)) : null;
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // stopping: its threads are daemons, and nothing waits on a fetch any more
        }
    }
}
