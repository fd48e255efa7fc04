package io.sluice.console.chart;

import javafx.beans.NamedArg;
import javafx.scene.chart.StackedAreaChart;

/**
 * Counts per second stacked over clock time (epoch seconds), with the operator's actions marked across them: the
 * live room's refusals by reason, so the operator sees both how many and why, and what changed it.
 */
public final class MarkedAreaChart extends StackedAreaChart<Number, Number> {
    private final ChartMarks marks = new ChartMarks(this, getPlotChildren(), this::requestChartLayout);

    /** @param valueLabel the value axis' label ("refused / s") */
    public MarkedAreaChart(@NamedArg("valueLabel") String valueLabel) {
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
