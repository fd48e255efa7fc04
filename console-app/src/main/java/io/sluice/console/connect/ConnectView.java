package io.sluice.console.connect;

import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.PasswordField;
import javafx.scene.control.TextField;
import javafx.scene.layout.VBox;
import io.sluice.console.ui.Fxml;

/** The connect room's view: binds {@code ConnectView.fxml} to a {@link ConnectViewModel}. */
public final class ConnectView {
    private final ConnectViewModel model;
    private final Parent root;

    @FXML
    private ComboBox<KnownServer> knownServers;
    @FXML
    private Button forgetServer;
    @FXML
    private TextField serverName;
    @FXML
    private TextField serverUrl;
    @FXML
    private TextField tokenName;
    @FXML
    private PasswordField token;
    @FXML
    private CheckBox rememberServer;
    @FXML
    private Button connect;
    @FXML
    private Label connectStatus;
    @FXML
    private VBox trustPrompt;
    @FXML
    private Label trustQuestion;
    @FXML
    private Button trustCertificate;
    @FXML
    private Button distrustCertificate;

    public ConnectView(ConnectViewModel model) {
        this.model = model;
        this.root = Fxml.load(this);
    }

    @FXML
    private void initialize() {
        knownServers.setItems(model.servers());
        knownServers.valueProperty().bindBidirectional(model.chosenProperty());
        knownServers.setCellFactory(list -> new ServerCell());
        knownServers.setButtonCell(new ServerCell());
        forgetServer.disableProperty().bind(model.forget().executableProperty().not());
        forgetServer.setOnAction(e -> model.forget().execute());
        serverName.textProperty().bindBidirectional(model.nameProperty());
        serverUrl.textProperty().bindBidirectional(model.urlProperty());
        tokenName.textProperty().bindBidirectional(model.tokenNameProperty());
        token.textProperty().bindBidirectional(model.tokenProperty());
        token.promptTextProperty().bind(javafx.beans.binding.Bindings.when(model.chosenProperty().isNull())
                .then("paste the token").otherwise("remembered (paste to replace)"));
        rememberServer.selectedProperty().bindBidirectional(model.rememberProperty());
        connect.disableProperty().bind(model.connect().executableProperty().not());
        connect.setOnAction(e -> model.connect().execute());
        connectStatus.textProperty().bind(model.statusProperty());
        model.certificateChangedProperty().addListener((o, was, changed) -> {
            connectStatus.getStyleClass().remove("certificate-changed");
            if (changed) {
                connectStatus.getStyleClass().add("certificate-changed");
            }
        });
        trustPrompt.visibleProperty().bind(model.offeredProperty().isNotNull());
        trustPrompt.managedProperty().bind(trustPrompt.visibleProperty());
        trustQuestion.textProperty().bind(model.trustQuestionProperty());
        trustCertificate.disableProperty().bind(model.trust().executableProperty().not());
        trustCertificate.setOnAction(e -> model.trust().execute());
        distrustCertificate.disableProperty().bind(model.distrust().executableProperty().not());
        distrustCertificate.setOnAction(e -> model.distrust().execute());
    }

    /** A remembered server as "name  (url, as token)". */
    private static final class ServerCell extends ListCell<KnownServer> {
        @Override
        protected void updateItem(KnownServer server, boolean empty) {
            super.updateItem(server, empty);
            setText(empty || server == null ? "a new server" : server.name() + "   (" + server.url() + ", as "
                    + server.tokenName() + ")");
        }
    }

    public ConnectViewModel model() {
        return model;
    }

    public Parent view() {
        return root;
    }
}
