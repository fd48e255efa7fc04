package io.sluice.console.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.WhileShown;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.TextArea;

/** The audit room's view: binds {@code AuditView.fxml} to an {@link AuditViewModel}; read again when shown. */
public final class AuditView implements Room {
    private final AuditViewModel model;
    private final Parent root;

    @FXML
    private ListView<JsonNode> auditList;
    @FXML
    private TextArea auditDetails;
    @FXML
    private Button refreshAudit;
    @FXML
    private Label auditStatus;

    public AuditView(Session session) {
        this.model = new AuditViewModel(session);
        this.root = Fxml.load(this);
    }

    @FXML
    private void initialize() {
        auditList.setItems(new WhileShown(auditList).mirror(model.entries()));
        auditList.setCellFactory(list -> new ListCell<>() {
            @Override
            protected void updateItem(JsonNode entry, boolean empty) {
                super.updateItem(entry, empty);
                setText(empty || entry == null ? null : AuditViewModel.line(entry));
            }
        });
        auditList.getSelectionModel().selectedItemProperty().addListener((o, was, now) ->
                model.selectedProperty().set(now));
        auditDetails.textProperty().bind(model.detailsProperty());
        auditStatus.textProperty().bind(model.statusProperty());
        refreshAudit.disableProperty().bind(model.refresh().executableProperty().not());
        refreshAudit.setOnAction(e -> model.refresh().execute());
    }

    public AuditViewModel model() {
        return model;
    }

    @Override
    public void shown() {
        model.refresh().execute();
    }

    @Override
    public String id() {
        return "audit";
    }

    @Override
    public String title() {
        return "Audit";
    }

    @Override
    public Parent view() {
        return root;
    }
}
