package io.sluice.console.chart;

import javafx.beans.NamedArg;
import javafx.scene.chart.LineChart;

/**
 * Counts per second as lines over clock time (epoch seconds), with the operator's actions marked across them:
 * the live room's requests served by class, the fleet's requests and refusals.
 */
public final class MarkedLineChart extends LineChart<Number, Number> {
    private final ChartMarks marks = new ChartMarks(this, getPlotChildren(), this::requestChartLayout);

    /** @param valueLabel the value axis' label ("served / s") */
    public MarkedLineChart(@NamedArg("valueLabel") String valueLabel) {
        super(TimeAxes.clock(), TimeAxes.perSecond(valueLabel));
        setAnimated(false);
        setCreateSymbols(false);
    }

    /** Its time window and the actions marked on it. */
    public ChartMarks marks() {
        return marks;
    }

    @Override
    protected void layoutPlotChildren() {
        super.layoutPlotChildren();
        marks.layout();
    }
}
