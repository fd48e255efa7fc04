package io.sluice.console.ui;

import java.util.ArrayList;
import java.util.List;
import javafx.beans.InvalidationListener;
import javafx.beans.value.ChangeListener;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.scene.Node;

/**
 * A view's update of a control that matters only while the control is on screen: run now when it shows, else kept
 * (the newest only) and run when it shows again. A table in a tab that is not selected is still laid out, its cells
 * made again, on every update it is given: with a snapshot a second, the console's hidden tables cost more than the
 * one in view. "Shown" is what a tab pane or the operator's choice says: the node and every ancestor visible. A node
 * in no scene yet is updated at once (nothing lays it out). On the FX thread.
 */
public final class WhileShown {
    private final Node node;
    private final List<Node> watched = new ArrayList<>();
    // a change listener, not an invalidation one: a property nobody reads stays invalid and tells no more
    private final ChangeListener<Boolean> recheck = (observable, was, now) -> runPendingIfShown();
    private Runnable pending;

    public WhileShown(Node node) {
        this.node = node;
        node.sceneProperty().addListener((observable, was, now) -> watchAncestors());
        watchAncestors();
    }

    /** Runs {@code update} now if the node is shown, else when it next is, unless a newer update replaces it. */
    public void run(Runnable update) {
        if (shown()) {
            pending = null;
            update.run();
        } else {
            pending = update;
        }
    }

    /**
     * A copy of a view model's {@code items} for the node (a list or a table) to show: kept equal to them while the
     * node is shown, brought up to date when it shows again.
     */
    public <T> ObservableList<T> mirror(ObservableList<T> items) {
        ObservableList<T> shownItems = FXCollections.observableArrayList(items);
        items.addListener((InvalidationListener) observable -> run(() -> shownItems.setAll(items)));
        return shownItems;
    }

    /** Whether the node and every ancestor are visible, or the node is in no scene. */
    public boolean shown() {
        if (node.getScene() == null) {
            return true;
        }
        for (Node at = node; at != null; at = at.getParent()) {
            if (!at.isVisible()) {
                return false;
            }
        }
        return true;
    }

    private void runPendingIfShown() {
        if (pending != null && shown()) {
            Runnable update = pending;
            pending = null;
            update.run();
        }
    }

    /** Listens to the visibility of the node's ancestors as they are now (a scene change may bring new ones). */
    private void watchAncestors() {
        watched.forEach(ancestor -> ancestor.visibleProperty().removeListener(recheck));
        watched.clear();
        for (Node at = node; at != null; at = at.getParent()) {
            at.visibleProperty().addListener(recheck);
            watched.add(at);
        }
        runPendingIfShown();
    }
}
