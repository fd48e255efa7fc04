package io.sluice.console.live;

import javafx.collections.ObservableList;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.StackedAreaChart;

/**
 * Requests refused per second, stacked by reason (ban, pause, hit stack, ...), so the operator sees both how
 * many and why; the operator's actions are marked on the same time axis as the served chart's.
 */
public final class RefusedChart extends StackedAreaChart<Number, Number> {
    private final MarkLayer marks = new MarkLayer(getPlotChildren(), this::requestChartLayout);

    public RefusedChart() {
        super(RateAxes.time(), RateAxes.perSecond("refused / s"));
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
