package io.sluice.console.live;

import javafx.collections.ObservableList;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;

/** Requests served per second, one line per class, with the operator's actions marked on the time axis. */
public final class ServedChart extends LineChart<Number, Number> {
    private final MarkLayer marks = new MarkLayer(getPlotChildren(), this::requestChartLayout);

    public ServedChart() {
        super(RateAxes.time(), RateAxes.perSecond("served / s"));
        setAnimated(false);
        setCreateSymbols(false);
    }

    void follow(ObservableList<AuditMark> source) {
        marks.follow(source);
    }

    MarkLayer marks() {
        return marks;
    }

    @Override
    protected void layoutPlotChildren() {
        super.layoutPlotChildren();
        marks.layout((NumberAxis) getXAxis(), getYAxis().getHeight());
    }
}
