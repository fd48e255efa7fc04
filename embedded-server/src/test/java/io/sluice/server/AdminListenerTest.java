package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.testkit.Servers;
import io.sluice.server.tls.AdminTls;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What the admin listener refuses, and the console command printed at start. */
class AdminListenerTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    @Test
    void plainHttpIsForLoopbackOnly() {
        AdminListener.refusePlainHttp(new HostPort("127.0.0.1", 9090));
        AdminListener.refusePlainHttp(new HostPort("::1", 9090));
        AdminListener.refusePlainHttp(new HostPort("localhost", 9090));

        assertThatThrownBy(() -> AdminListener.refusePlainHttp(new HostPort("0.0.0.0", 9090)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clear text");
        assertThatThrownBy(() -> AdminListener.refusePlainHttp(new HostPort("192.0.2.1", 9090)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theConsoleCommandPrintedAtStartCarriesTheCertificatesPin() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state).withAdminOptions(
                AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED)));
        String command = AdminListener.consoleCommand(server.adminUri(), state.resolve("admin-token"),
                server.adminCertificate());

        assertThat(command).isEqualTo("./sluice console --url https://127.0.0.1:" + server.adminUri().getPort()
                + "/ --token-file " + state.resolve("admin-token") + " --pin SHA256:"
                + server.adminCertificate().fingerprint());
        assertThat(AdminListener.consoleCommand(URI.create("http://127.0.0.1:9090/"), Path.of("/s/t"), null))
                .isEqualTo("./sluice console --url http://127.0.0.1:9090/ --token-file /s/t");
    }
}
