package io.sluice.server.demo;

import io.sluice.server.Main;
import picocli.CommandLine;

/**
 * {@code java -jar demo/target/sluice-demo.jar}: {@code sluice-server} with the demo, every option of the server's
 * command line and two more things it does: {@code --demo} and {@code --demo-traffic} start the demo site and its
 * traffic ({@link Demo}) where the server jar refuses them, and {@code demo-cluster} runs the demo as a cluster
 * ({@code ./sluice demo --cluster}, {@code ./sluice server --demo}).
 */
public final class DemoMain {
    private DemoMain() {
    }

    public static void main(String[] args) {
        Main.runAndExit(args, DemoMain::commandLine);
    }

    /** The server's command line with the demo's start and its {@code demo-cluster} command. */
    public static CommandLine commandLine() {
        return Main.commandLine(Demo::start).addSubcommand(new DemoClusterCommand());
    }
}
