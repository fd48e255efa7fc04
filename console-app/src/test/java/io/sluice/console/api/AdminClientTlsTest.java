package io.sluice.console.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.AdminOptions;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import io.sluice.server.tls.AdminTls;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's client against a real server over HTTPS on loopback: a pinned certificate, and a changed one. */
class AdminClientTlsTest {
    @TempDir
    Path state;
    @TempDir
    Path config;

    private static ServerConfig tls(Path state) {
        return ServerConfig.demo(state).withAdminOptions(AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED));
    }

    @Test
    void aPinnedSelfSignedCertificateIsTrustedAndAnImpostorsIsRefused(@TempDir Path otherState) throws Exception {
        try (SluiceServer server = Demo.start(tls(state));
             SluiceServer impostor = Demo.start(tls(otherState))) {
            String fingerprint = server.adminCertificate().fingerprint();
            Path pinsFile = config.resolve("known-servers.json");
            CertificatePins.inFile(pinsFile).pin("127.0.0.1:" + server.adminUri().getPort(),
                    CertificatePin.parse(fingerprint));
            CertificatePin pinned = CertificatePins.inFile(pinsFile).pinned("127.0.0.1:" + server.adminUri().getPort())
                    .orElseThrow();
            assertThat(Files.readString(pinsFile)).as("kept as OpenSSL prints it").contains(fingerprint);

            assertThat(new AdminClient(server.adminUri(), server.adminToken(), "tester", pinned).snapshot()
                    .policyVersion()).isEqualTo(1);

            // The impostor answers where the pinned server was: same pin, another certificate.
            AdminClient fooled = new AdminClient(impostor.adminUri(), impostor.adminToken(), "tester", pinned);
            assertThatThrownBy(fooled::snapshot).isInstanceOf(AdminException.class)
                    .satisfies(e -> assertThat(((AdminException) e).kind())
                            .isEqualTo(AdminException.Kind.CERTIFICATE_CHANGED))
                    .hasMessageContaining("CHANGED").hasMessageContaining(fingerprint);
        }
    }

    @Test
    void telemetryWithFieldsFromANewerServerIsReadAndAPolicyWithUnknownFieldsIsNot() throws Exception {
        String snapshot;
        String policy;
        try (SluiceServer real = Demo.start(ServerConfig.demo(state))) {
            AdminClient client = new AdminClient(real.adminUri(), real.adminToken(), "tester");
            snapshot = PolicyJson.mapper().writeValueAsString(client.snapshot());
            policy = PolicyJson.mapper().writeValueAsString(client.policy());
        }
        ObjectNode newerSnapshot = (ObjectNode) PolicyJson.mapper().readTree(snapshot);
        newerSnapshot.put("fleetForecast", "a field this console has never heard of");
        ObjectNode newerPolicy = (ObjectNode) PolicyJson.mapper().readTree(policy);
        newerPolicy.putObject("newRule").put("limit", 3);
        Server newer = new Server();
        ServerConnector connector = new ServerConnector(newer);
        connector.setHost("127.0.0.1");
        newer.addConnector(connector);
        newer.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response,
                                  Callback callback) {
                boolean isPolicy = request.getHttpURI().getPath().endsWith("/policy");
                response.getHeaders().put("Content-Type", "application/json");
                Content.Sink.write(response, true, (isPolicy ? newerPolicy : newerSnapshot).toString(), callback);
                return true;
            }
        });
        newer.start();
        try {
            AdminClient client = new AdminClient(URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/"),
                    "token", "tester");
            assertThat(client.snapshot().policyVersion()).isEqualTo(1);
            assertThatThrownBy(client::policy).isInstanceOf(AdminException.class).hasMessageContaining("newRule");
        } finally {
            newer.stop();
        }
    }
}
