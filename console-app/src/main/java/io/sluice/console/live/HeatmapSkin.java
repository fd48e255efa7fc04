package io.sluice.console.live;

import io.sluice.console.ui.WhileShown;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import java.util.List;
import javafx.geometry.Orientation;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.SkinBase;
import javafx.scene.image.PixelWriter;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.paint.Paint;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/**
 * Draws a {@link Heatmap} on one canvas the size of the control: cells are written into one image with a
 * {@link PixelWriter} and drawn once (chart-fx's {@code ContourDataSetRenderer}), so a redraw costs the same
 * whatever the traffic. Rows past the height scroll (scroll bar, mouse wheel); the time axis and the colour
 * key are drawn under the last visible row, always.
 */
final class HeatmapSkin extends SkinBase<Heatmap> {
    static final double LABEL_WIDTH = 340;
    static final double ROW_HEIGHT = 18;
    static final int SECONDS = 60;
    /** The strip under the rows: time ticks under the cells, the colour key under the labels. */
    static final double AXIS_HEIGHT = 22;
    static final int TICK_SECONDS = 15;
    /** Hits per second shown in the colour key (the last stands for that many and more). */
    private static final int[] KEY_HITS = {1, 5, 20};
    private static final Font LABEL_FONT = Font.font("monospace", 12);
    private static final Font AXIS_FONT = Font.font(11);

    private final Canvas canvas = new Canvas();
    private final ScrollBar scroll = new ScrollBar();
    private final int labelColumns = labelColumns();

    HeatmapSkin(Heatmap heatmap) {
        super(heatmap);
        scroll.setOrientation(Orientation.VERTICAL);
        scroll.setMin(0);
        scroll.setUnitIncrement(1);
        getChildren().addAll(canvas, scroll);
        WhileShown shown = new WhileShown(heatmap);
        registerChangeListener(heatmap.rowsProperty(), o -> shown.run(() -> {
            updateScroll();
            draw();
        }));
        registerChangeListener(heatmap.selectedIndexProperty(), o -> draw());
        registerChangeListener(scroll.valueProperty(), o -> draw());
        heatmap.colours().forEach(colour -> registerChangeListener(colour, o -> draw()));
        canvas.setOnMouseClicked(e -> {
            int row = firstRow() + (int) (e.getY() / ROW_HEIGHT);
            if (e.getY() < fittingRows() * ROW_HEIGHT && row < rows().size()) {
                heatmap.onRowClickedProperty().get().accept(row);
            }
        });
        canvas.setOnScroll(e -> scroll.setValue(clamp(scroll.getValue() - Math.signum(e.getDeltaY()) * 3)));
    }

    private static int labelColumns() {
        Text sample = new Text("0123456789");
        sample.setFont(LABEL_FONT);
        double charWidth = sample.getLayoutBounds().getWidth() / 10;
        return (int) Math.floor((LABEL_WIDTH - 26) / Math.max(1, charWidth));
    }

    private List<ClientRow> rows() {
        List<ClientRow> rows = getSkinnable().rowsProperty().get();
        return rows == null ? List.of() : rows;
    }

    /** Rows that fit above the axis strip. */
    int fittingRows() {
        return Math.max(1, (int) Math.floor((canvas.getHeight() - AXIS_HEIGHT) / ROW_HEIGHT));
    }

    int firstRow() {
        return (int) Math.round(scroll.isVisible() ? scroll.getValue() : 0);
    }

    private double clamp(double value) {
        return Math.max(scroll.getMin(), Math.min(scroll.getMax(), value));
    }

    private void updateScroll() {
        int hidden = Math.max(0, rows().size() - fittingRows());
        scroll.setVisible(hidden > 0);
        scroll.setMax(hidden);
        scroll.setVisibleAmount(Math.max(1, fittingRows()));
        scroll.setBlockIncrement(Math.max(1, fittingRows() - 1));
        scroll.setValue(clamp(scroll.getValue()));
    }

    @Override
    protected double computeMinHeight(double width, double top, double right, double bottom, double left) {
        return top + bottom + ROW_HEIGHT * 4 + AXIS_HEIGHT;
    }

    @Override
    protected double computePrefHeight(double width, double top, double right, double bottom, double left) {
        return top + bottom + ROW_HEIGHT * 12 + AXIS_HEIGHT;
    }

    @Override
    protected double computeMaxHeight(double width, double top, double right, double bottom, double left) {
        return Double.MAX_VALUE;
    }

    @Override
    protected double computePrefWidth(double height, double top, double right, double bottom, double left) {
        return left + right + LABEL_WIDTH + SECONDS * 8;
    }

    @Override
    protected void layoutChildren(double x, double y, double width, double height) {
        double bar = scroll.prefWidth(-1);
        canvas.setLayoutX(x);
        canvas.setLayoutY(y);
        canvas.setWidth(Math.max(0, width - bar));
        canvas.setHeight(Math.max(0, height));
        scroll.resizeRelocate(x + width - bar, y, bar, Math.max(0, height - AXIS_HEIGHT));
        updateScroll();
        draw();
    }

    private void draw() {
        Heatmap heatmap = getSkinnable();
        GraphicsContext g = canvas.getGraphicsContext2D();
        double width = canvas.getWidth();
        double height = canvas.getHeight();
        double cellWidth = Math.max(1, (width - LABEL_WIDTH) / SECONDS);
        g.setFill(heatmap.emptyColour());
        g.fillRect(0, 0, width, height);
        List<ClientRow> rows = rows();
        int first = firstRow();
        int shown = Math.max(0, Math.min(fittingRows(), rows.size() - first));
        if (rows.isEmpty()) {
            g.setFill(heatmap.mutedColour());
            g.setFont(AXIS_FONT);
            g.setTextAlign(TextAlignment.LEFT);
            g.fillText("No clients yet", 12, 20);
        } else if (shown > 0) {
            drawRows(g, rows.subList(first, first + shown), first, cellWidth, width);
        }
        drawAxis(g, cellWidth, ROW_HEIGHT * fittingRows());
    }

    private void drawRows(GraphicsContext g, List<ClientRow> visible, int first, double cellWidth, double width) {
        Heatmap heatmap = getSkinnable();
        Color[] ramp = heatmap.ramp();
        WritableImage cells = new WritableImage(SECONDS, visible.size());
        PixelWriter pixels = cells.getPixelWriter();
        for (int r = 0; r < visible.size(); r++) {
            int[] hits = visible.get(r).hitsPerSecond();
            for (int s = 0; s < SECONDS; s++) {
                pixels.setColor(s, r, Heatmap.colour(s < hits.length ? hits[s] : 0, ramp, heatmap.emptyColour()));
            }
        }
        g.setImageSmoothing(false);
        g.drawImage(cells, LABEL_WIDTH, 0, cellWidth * SECONDS, ROW_HEIGHT * visible.size());
        g.setFont(LABEL_FONT);
        g.setTextAlign(TextAlignment.LEFT);
        int selected = heatmap.selectedIndexProperty().get() - first;
        for (int r = 0; r < visible.size(); r++) {
            ClientRow row = visible.get(r);
            double y = r * ROW_HEIGHT;
            int[] refusedPerSecond = row.refusedPerSecond();
            g.setFill(heatmap.refusedColour());
            for (int s = 0; s < SECONDS && s < refusedPerSecond.length; s++) {
                if (refusedPerSecond[s] > 0) {
                    g.fillRect(LABEL_WIDTH + s * cellWidth, y, cellWidth, 4);
                }
            }
            if (r == selected) {
                Color selection = heatmap.selectionColour();
                g.setFill(selection.deriveColor(0, 1, 1, 0.35));
                g.fillRect(0, y, LABEL_WIDTH, ROW_HEIGHT);
                g.setStroke(selection);
                g.strokeRect(0.5, y + 0.5, width - 1, ROW_HEIGHT - 1);
            }
            g.setFill(statusColour(row.status()));
            g.fillText(statusMark(row.status()), 6, y + 13);
            g.setFill(heatmap.textColour());
            // Cut to the columns that fit rather than letting fillText squeeze the glyphs to maxWidth.
            g.fillText(LiveViewModel.heatmapLabel(row, labelColumns), 22, y + 13);
        }
    }

    /** Time ticks under the cells and the colour key under the labels, so a row reads without the heading. */
    private void drawAxis(GraphicsContext g, double cellWidth, double top) {
        Heatmap heatmap = getSkinnable();
        double baseline = top + 15;
        g.setFont(AXIS_FONT);
        g.setFill(heatmap.mutedColour());
        g.setStroke(heatmap.mutedColour());
        for (int column = 0; column <= SECONDS; column += TICK_SECONDS) {
            double x = LABEL_WIDTH + column * cellWidth;
            g.strokeLine(x + 0.5, top, x + 0.5, top + 4);
            g.setTextAlign(column == 0 ? TextAlignment.LEFT
                    : column == SECONDS ? TextAlignment.RIGHT : TextAlignment.CENTER);
            g.fillText(LiveViewModel.heatmapTick(column, SECONDS), x, baseline);
        }
        g.setTextAlign(TextAlignment.LEFT);
        double x = 22;
        g.fillText("hits/s", x, baseline);
        for (int hits : KEY_HITS) {
            x += 48;
            g.setFill(heatmap.colour(hits));
            g.fillRect(x, top + 5, 12, 12);
            g.setFill(heatmap.mutedColour());
            g.fillText(hits == KEY_HITS[KEY_HITS.length - 1] ? hits + "+" : String.valueOf(hits), x + 16, baseline);
        }
        g.setFill(heatmap.refusedColour());
        g.fillRect(x + 48, top + 5, 12, 4);
        g.setFill(heatmap.mutedColour());
        g.fillText("refused", x + 64, baseline);
    }

    private static String statusMark(ClientStatus status) {
        return switch (status) {
            case BANNED -> "✖";
            case LIMITED -> "!";
            case ALLOWED -> "✓";
            default -> "·";
        };
    }

    private Paint statusColour(ClientStatus status) {
        return switch (status) {
            case BANNED, LIMITED -> getSkinnable().refusedColour();
            case ALLOWED -> getSkinnable().allowedColour();
            default -> getSkinnable().mutedColour();
        };
    }
}
