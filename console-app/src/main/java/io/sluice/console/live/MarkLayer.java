package io.sluice.console.live;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.Node;
import javafx.scene.chart.ValueAxis;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.shape.Line;

/**
 * The operator's actions as vertical marks across a chart's plot, at their second on the time axis, each with
 * its word ("ban", "pause", "policy") at the top and who did what in a tooltip. A chart owns one and calls
 * {@link #layout} from its {@code layoutPlotChildren}; marks outside the axis' range are hidden.
 */
final class MarkLayer {
    private final ObservableList<Node> plotChildren;
    private final List<Node> nodes = new ArrayList<>();
    private final List<AuditMark> marks = new ArrayList<>();
    private final Runnable requestLayout;

    MarkLayer(ObservableList<Node> plotChildren, Runnable requestLayout) {
        this.plotChildren = plotChildren;
        this.requestLayout = requestLayout;
    }

    /** Follows {@code source}: the marks are redrawn whenever it changes. */
    void follow(ObservableList<AuditMark> source) {
        show(source);
        source.addListener((ListChangeListener<AuditMark>) change -> show(source));
    }

    void show(List<AuditMark> newMarks) {
        plotChildren.removeAll(nodes);
        nodes.clear();
        marks.clear();
        marks.addAll(newMarks);
        for (AuditMark mark : newMarks) {
            Line line = new Line();
            line.getStyleClass().addAll("audit-mark", mark.kind().label());
            line.setManaged(false);
            Label word = new Label(mark.kind().label());
            word.getStyleClass().addAll("audit-mark-label", mark.kind().label());
            word.setManaged(false);
            Tooltip.install(word, new Tooltip(mark.describe()));
            nodes.add(line);
            nodes.add(word);
        }
        plotChildren.addAll(nodes);
        requestLayout.run();
    }

    /** Places the marks on {@code time} over a plot {@code height} high. */
    void layout(ValueAxis<Number> time, double height) {
        for (int i = 0; i < marks.size(); i++) {
            AuditMark mark = marks.get(i);
            Line line = (Line) nodes.get(2 * i);
            Label word = (Label) nodes.get(2 * i + 1);
            boolean inRange = mark.epochSecond() >= time.getLowerBound() && mark.epochSecond() <= time.getUpperBound();
            line.setVisible(inRange);
            word.setVisible(inRange);
            if (!inRange) {
                continue;
            }
            double x = Math.round(time.getDisplayPosition(mark.epochSecond())) + 0.5;
            line.setStartX(x);
            line.setEndX(x);
            line.setStartY(0);
            line.setEndY(height);
            word.autosize();
            word.relocate(x + 2, 2 + (i % 3) * 14);
            line.toFront();
            word.toFront();
        }
    }

    /** The marks drawn now and in the axis' range (for tests). */
    List<AuditMark> visible() {
        List<AuditMark> shown = new ArrayList<>();
        for (int i = 0; i < marks.size(); i++) {
            if (nodes.get(2 * i).isVisible()) {
                shown.add(marks.get(i));
            }
        }
        return shown;
    }
}
