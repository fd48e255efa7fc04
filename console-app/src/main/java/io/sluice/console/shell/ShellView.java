package io.sluice.console.shell;

import io.sluice.console.ui.Command;
import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import io.sluice.engine.policy.BrowserCheck;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javafx.collections.FXCollections;
import javafx.css.PseudoClass;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;

/**
 * The connected console: the top bar ({@code ShellView.fxml}, bound to a {@link ShellViewModel}) over one tab per
 * room. It knows the rooms only as {@link Room}s, in the order it is given them, and tells a room when it is
 * shown and left; it closes them and the session with itself.
 */
public final class ShellView implements AutoCloseable {
    private final ShellViewModel model;
    private final Session session;
    private final List<Room> rooms;
    private final Parent root;
    private static final PseudoClass UNDER_PRESSURE = PseudoClass.getPseudoClass("under-pressure");

    @FXML
    private Label connectionStatus;
    @FXML
    private Label policyVersion;
    @FXML
    private Label pauseBanner;
    @FXML
    private ChoiceBox<PauseScope> pauseScope;
    @FXML
    private Button pauseButton;
    @FXML
    private Button resumeButton;
    @FXML
    private Button switchServer;
    @FXML
    private Label shellResult;
    @FXML
    private Label browserCheck;
    @FXML
    private ChoiceBox<BrowserCheck.Mode> checkMode;
    @FXML
    private Button checkButton;
    @FXML
    private TabPane roomTabs;

    /**
     * @param rooms        the rooms, in tab order, already opened on {@code session}
     * @param switchServer what "Switch server" does after this shell is closed
     */
    public ShellView(Session session, List<Room> rooms, Runnable switchServer) {
        this.session = session;
        this.rooms = List.copyOf(rooms);
        this.model = new ShellViewModel(session, switchServer);
        this.root = Fxml.load(this);
        session.snapshots().start();
    }

    @FXML
    private void initialize() {
        connectionStatus.textProperty().bind(model.connectionProperty());
        model.stateProperty().addListener((o, was, now) -> showState(now));
        showState(model.stateProperty().get());
        policyVersion.textProperty().bind(model.policyVersionProperty());
        pauseBanner.textProperty().bind(model.pauseBannerProperty());
        pauseBanner.visibleProperty().bind(model.pausedProperty());
        pauseBanner.managedProperty().bind(model.pausedProperty());
        pauseScope.setItems(FXCollections.observableArrayList(PauseScope.values()));
        pauseScope.valueProperty().bindBidirectional(model.scopeProperty());
        pauseButton.disableProperty().bind(model.pause().executableProperty().not());
        pauseButton.setOnAction(e -> confirmPause());
        bind(resumeButton, model.resume());
        bind(switchServer, model.switchServer());
        shellResult.textProperty().bind(model.actionResultProperty());
        browserCheck.textProperty().bind(model.browserCheckProperty());
        model.underPressureProperty().addListener((o, was, now) -> browserCheck.pseudoClassStateChanged(
                UNDER_PRESSURE, now));
        checkMode.setItems(FXCollections.observableArrayList(BrowserCheck.Mode.values()));
        checkMode.valueProperty().bindBidirectional(model.checkModeProperty());
        bind(checkButton, model.applyCheckMode());

        for (Room room : rooms) {
            Tab tab = new Tab(room.title(), room.view());
            tab.setId(room.id());
            tab.setUserData(room);
            tab.setClosable(false);
            roomTabs.getTabs().add(tab);
        }
        roomTabs.getSelectionModel().selectedItemProperty().addListener((o, was, now) -> {
            if (was != null) {
                ((Room) was.getUserData()).hidden();
            }
            if (now != null) {
                ((Room) now.getUserData()).shown();
            }
        });
        if (!rooms.isEmpty()) {
            rooms.get(0).shown();
        }
        roomTabs.sceneProperty().addListener((o, was, scene) -> {
            if (scene != null) {
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.P, KeyCombination.SHORTCUT_DOWN),
                        this::togglePause);
            }
        });
    }

    private void showState(ConnectionState state) {
        connectionStatus.getStyleClass().removeIf(c -> c.startsWith("state-"));
        connectionStatus.getStyleClass().add("state-" + state.name().toLowerCase(Locale.ROOT)
                .replace('_', '-'));
    }

    private static void bind(Button button, Command command) {
        button.disableProperty().bind(command.executableProperty().not());
        button.setOnAction(e -> command.execute());
    }

    /** Pause asks first; Cancel is the default button, so Enter never pauses by accident. */
    private void confirmPause() {
        PauseScope scope = model.scopeProperty().get();
        Alert confirm = new Alert(Alert.AlertType.CONFIRMATION);
        confirm.setTitle("Pause " + scope);
        confirm.setHeaderText("Pause " + scope + "?");
        confirm.setContentText("Every request of " + scope + " will get a 503 until you resume.");
        ButtonType yes = new ButtonType("Pause " + scope, ButtonBar.ButtonData.OK_DONE);
        confirm.getButtonTypes().setAll(ButtonType.CANCEL, yes);
        ((Button) confirm.getDialogPane().lookupButton(yes)).setDefaultButton(false);
        ((Button) confirm.getDialogPane().lookupButton(ButtonType.CANCEL)).setDefaultButton(true);
        confirm.getDialogPane().lookupButton(yes).setId("confirmPause");
        confirm.initOwner(root.getScene() == null ? null : root.getScene().getWindow());
        Optional<ButtonType> answer = confirm.showAndWait();
        if (answer.filter(yes::equals).isPresent()) {
            model.pause().execute();
        }
    }

    private void togglePause() {
        if (model.pausedProperty().get()) {
            model.scopeProperty().set(PauseScope.WHOLE_SERVICE);
            model.resume().execute();
        } else {
            model.scopeProperty().set(PauseScope.WHOLE_SERVICE);
            confirmPause();
        }
    }

    /** Selects the room with this id (for keyboard users and tests). */
    public void show(String roomId) {
        roomTabs.getTabs().stream().filter(t -> roomId.equals(t.getId())).findFirst()
                .ifPresent(t -> roomTabs.getSelectionModel().select(t));
    }

    /** The room with this id, if the shell has one. */
    public <R extends Room> Optional<R> room(String roomId, Class<R> type) {
        return rooms.stream().filter(r -> r.id().equals(roomId)).filter(type::isInstance).map(type::cast)
                .findFirst();
    }

    public ShellViewModel model() {
        return model;
    }

    public Session session() {
        return session;
    }

    public Parent view() {
        return root;
    }

    @Override
    public void close() {
        for (Room room : rooms) {
            try {
                room.close();
            } catch (RuntimeException e) {
                // one room failing to close must not keep the others (or the session) open
            }
        }
        session.close();
    }
}
