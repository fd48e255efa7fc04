package io.sluice.console.chart;

import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import javafx.beans.binding.Bindings;
import javafx.beans.value.ObservableLongValue;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.Node;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.shape.Line;

/**
 * The operator's actions as vertical marks across a chart's plot, at their second on its clock-time axis, each
 * with its word ("ban", "pause", "policy") at the top and who did what in a tooltip; marks outside the axis'
 * range are hidden. The one component every chart of the console marks actions with ({@link MarkedLineChart},
 * {@link MarkedAreaChart}): a chart owns one and calls {@link #layout} from its {@code layoutPlotChildren}, the
 * only place JavaFX lets a chart draw on its plot. Its look is {@code ChartMarks.css}, which it gives the chart.
 */
public final class ChartMarks {
    private static final String STYLESHEET = "ChartMarks.css";

    private final NumberAxis time;
    private final XYChart<Number, Number> chart;
    private final ObservableList<Node> plotChildren;
    private final Runnable requestLayout;
    private final List<Node> nodes = new ArrayList<>();
    private final List<AuditMark> marks = new ArrayList<>();

    /**
     * @param chart         a chart whose x axis is {@link TimeAxes#clock()}
     * @param plotChildren  the chart's plot children (what only the chart itself can reach)
     * @param requestLayout the chart's {@code requestChartLayout}
     */
    ChartMarks(XYChart<Number, Number> chart, ObservableList<Node> plotChildren, Runnable requestLayout) {
        this.chart = chart;
        this.time = (NumberAxis) chart.getXAxis();
        this.plotChildren = plotChildren;
        this.requestLayout = requestLayout;
        URL css = ChartMarks.class.getResource(STYLESHEET);
        if (css == null) {
            throw new IllegalStateException("no " + STYLESHEET + " beside " + ChartMarks.class.getName());
        }
        chart.getStylesheets().add(css.toExternalForm());
    }

    /** Makes the chart show the {@code seconds} seconds up to {@code end} (an epoch second), following it. */
    public void window(ObservableLongValue end, int seconds) {
        time.upperBoundProperty().bind(end);
        time.lowerBoundProperty().bind(Bindings.subtract(end, seconds - 1));
    }

    /** Marks the actions of {@code source}, redrawn whenever it changes. */
    public void follow(ObservableList<AuditMark> source) {
        show(source);
        source.addListener((ListChangeListener<AuditMark>) change -> show(source));
    }

    /** The marks drawn now, in the time axis' range (read on the FX thread, which draws them). */
    public List<AuditMark> visible() {
        List<AuditMark> shown = new ArrayList<>();
        for (int i = 0; i < marks.size(); i++) {
            if (nodes.get(2 * i).isVisible()) {
                shown.add(marks.get(i));
            }
        }
        return shown;
    }

    private void show(List<AuditMark> newMarks) {
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

    /** Places the marks on the time axis, across the plot's height; the chart calls it as it lays its plot out. */
    void layout() {
        double height = chart.getYAxis().getHeight();
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
}
