package io.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.connect.ConnectView;
import io.sluice.console.connect.ConnectViewModel;
import io.sluice.console.connect.ServerBook;
import io.sluice.console.shell.ShellView;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.TestSessions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javafx.scene.Parent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;

/**
 * Every FXML file loads with its controller: each fx:id finds its field and each control its class. The files
 * are found on disk, so a new room's layout is checked as soon as it exists (and this test fails until it is
 * loaded here).
 */
@ExtendWith(ApplicationExtension.class)
class FxmlTest {
    private static final Path RESOURCES = Path.of("src/main/resources");
    /** Rooms with more than their own layout: the limits room carries the what-if panel, the live room two tabs. */
    private static final Map<String, List<String>> LAYOUTS_OF = Map.of(
            "limits", List.of("LimitsView", "WhatIfView"),
            "live", List.of("LiveView", "NetworksView", "AgentsView", "AsnView"));

    @Test
    void everyLayoutLoadsWithItsController(FxRobot robot, @TempDir Path config) throws IOException {
        List<String> loaded = new ArrayList<>();
        robot.interact(() -> {
            Session session = TestSessions.offline(new CurrentThreadUiExecutor());
            List<Room> rooms = Rooms.open(Rooms.standard(), session);
            for (Room room : rooms) {
                Parent view = room.view();
                assertThat(view).as(room.id()).isNotNull();
                loaded.addAll(LAYOUTS_OF.getOrDefault(room.id(), List.of(room.getClass().getSimpleName())));
            }
            ShellView shell = new ShellView(session, rooms, () -> { });
            assertThat(shell.view().lookup("#roomTabs")).isNotNull();
            loaded.add("ShellView");
            new ConnectView(new ConnectViewModel(new ServerBook(config), session.ui(), Clock.systemUTC(), "tester",
                    s -> { })).view();
            loaded.add("ConnectView");
            shell.close();
        });

        assertThat(loaded).containsExactlyInAnyOrderElementsOf(layouts());
    }

    @Test
    void everyLayoutHasItsStylesheetAndUsesOnlyThePalettesColours() throws IOException {
        for (String layout : layouts()) {
            assertThat(stylesheet(layout)).as(layout + ".css").exists();
        }
        try (Stream<Path> css = Files.walk(RESOURCES)) {
            for (Path file : css.filter(f -> f.toString().endsWith(".css")).toList()) {
                if (!file.getFileName().toString().equals("console.css")) {
                    assertThat(Files.readString(file)).as("%s names colours only through the palette", file)
                            .doesNotContainPattern("#[0-9a-fA-F]{3,6}\\b");
                }
            }
        }
    }

    private static Path stylesheet(String layout) throws IOException {
        try (Stream<Path> files = Files.walk(RESOURCES)) {
            return files.filter(f -> f.getFileName().toString().equals(layout + ".css")).findFirst()
                    .orElse(RESOURCES.resolve(layout + ".css"));
        }
    }

    private static List<String> layouts() throws IOException {
        try (Stream<Path> files = Files.walk(RESOURCES)) {
            return files.map(f -> f.getFileName().toString()).filter(name -> name.endsWith(".fxml"))
                    .map(name -> name.substring(0, name.length() - ".fxml".length())).toList();
        }
    }
}
