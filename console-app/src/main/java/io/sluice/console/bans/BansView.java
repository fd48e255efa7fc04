package io.sluice.console.bans;

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

/** The bans room's view: binds {@code BansView.fxml} to a {@link BansViewModel}. */
public final class BansView implements Room {
    private final BansViewModel model;
    private final Parent root;

    @FXML
    private Label bansSummary;
    @FXML
    private ListView<BansViewModel.BanRow> banList;
    @FXML
    private Label bansResult;

    public BansView(Session session) {
        this.model = new BansViewModel(session);
        this.root = Fxml.load(this);
    }

    @FXML
    private void initialize() {
        bansSummary.textProperty().bind(model.summaryProperty());
        bansResult.textProperty().bind(model.actionResultProperty());
        banList.setItems(new WhileShown(banList).mirror(model.bans()));
        banList.setCellFactory(list -> new ListCell<>() {
            private final Button unban = new Button("Unban");

            {
                unban.getStyleClass().add("unban");
                unban.setOnAction(e -> {
                    if (getItem() != null) {
                        model.unban(getItem().ban());
                    }
                });
            }

            @Override
            protected void updateItem(BansViewModel.BanRow row, boolean empty) {
                super.updateItem(row, empty);
                setText(empty || row == null ? null : row.text());
                setGraphic(empty || row == null ? null : unban);
            }
        });
    }

    public BansViewModel model() {
        return model;
    }

    @Override
    public String id() {
        return "bans";
    }

    @Override
    public String title() {
        return "Bans";
    }

    @Override
    public Parent view() {
        return root;
    }
}
