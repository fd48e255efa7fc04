package io.sluice.console.chart;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import javafx.scene.chart.NumberAxis;
import javafx.util.StringConverter;

/** The axes the console's charts share: epoch seconds as clock time, and a count per second. */
final class TimeAxes {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss")
            .withZone(ZoneId.systemDefault());

    private TimeAxes() {
    }

    /** Epoch seconds, labelled as the local clock; the range is set by {@link ChartMarks#window}. */
    static NumberAxis clock() {
        NumberAxis axis = new NumberAxis();
        axis.setAutoRanging(false);
        axis.setForceZeroInRange(false);
        axis.setMinorTickVisible(false);
        axis.setTickUnit(30);
        axis.setTickLabelFormatter(new StringConverter<>() {
            @Override
            public String toString(Number epochSecond) {
                return CLOCK.format(Instant.ofEpochSecond(epochSecond.longValue()));
            }

            @Override
            public Number fromString(String text) {
                throw new UnsupportedOperationException("the time axis is not edited");
            }
        });
        return axis;
    }

    static NumberAxis perSecond(String label) {
        NumberAxis axis = new NumberAxis();
        axis.setLabel(label);
        axis.setMinorTickVisible(false);
        return axis;
    }
}
