package io.sluice.server;

import io.sluice.server.state.StateException;
import io.sluice.server.tls.AdminCertificate;
import io.sluice.server.tls.AdminTls;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice-server tls fingerprint}: the SHA-256 fingerprint a console should see on first connect. */
@Command(name = "tls", mixinStandardHelpOptions = true, description = "The admin listener's TLS certificate.",
        subcommands = TlsCommand.Fingerprint.class)
final class TlsCommand {

    @Command(name = "fingerprint", mixinStandardHelpOptions = true, description = "Print the admin certificate's "
            + "SHA-256 fingerprint: the self-signed one of the state directory, or --admin-cert's.")
    static final class Fingerprint implements Callable<Integer> {
        @Option(names = "--state", paramLabel = "DIR", defaultValue = "${sys:user.home}/.sluice/state",
                description = "State directory (default: ${DEFAULT-VALUE}).")
        Path state;

        @Option(names = "--admin-cert", paramLabel = "FILE", description = "The operator's certificate instead.")
        Path certificate;

        @Option(names = "--admin-key", paramLabel = "FILE", description = "Its PEM key, if not in the file.")
        Path key;

        @Option(names = "--admin-cert-password-file", paramLabel = "FILE", description = "Its PKCS#12 password.")
        Path passwordFile;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            try {
                Optional<X509Certificate> found = certificate != null
                        ? Optional.of(AdminTls.operatorsCertificate(new AdminTls.Settings(certificate, key,
                                passwordFile)))
                        : AdminTls.selfSigned(state);
                if (found.isEmpty()) {
                    spec.commandLine().getErr().println("sluice-server: no self-signed admin certificate in " + state
                            + " yet; it is made at the first start with --admin-tls");
                    return 1;
                }
                spec.commandLine().getOut().println("SHA-256 " + AdminCertificate.fingerprint(found.get()));
                spec.commandLine().getOut().flush();
                return 0;
            } catch (StateException e) {
                spec.commandLine().getErr().println("sluice-server: " + e.getMessage());
                return 1;
            }
        }
    }
}
