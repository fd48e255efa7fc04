package io.sluice.console.dashboard;

import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import java.util.List;
import java.util.function.IntConsumer;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelWriter;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/**
 * The hit-stack heatmap: the busiest clients as rows, the last 60 seconds as columns, colour by hits in
 * that second. Cells are written into one image with a {@link PixelWriter} and drawn once, so a redraw
 * costs the same whatever the traffic. Colours run along a viridis-like ramp (readable for colour-blind
 * operators and in a dark room); a second with refusals gets a vermillion mark on top of its cell.
 */
public final class HeatmapCanvas extends Canvas {
    static final double LABEL_WIDTH = 340;
    static final double ROW_HEIGHT = 18;
    static final int SECONDS = 60;
    /** The strip under the rows: time ticks under the cells, the colour key under the labels. */
    static final double AXIS_HEIGHT = 22;
    /** Seconds between time ticks. */
    static final int TICK_SECONDS = 15;
    /** Hits per second shown in the colour key (the last stands for that many and more). */
    private static final int[] KEY_HITS = {1, 5, 20};
    private static final Color[] RAMP = {
        Color.web("#440154"), Color.web("#3b528b"), Color.web("#21918c"), Color.web("#5ec962"), Color.web("#fde725")};
    private static final Color REFUSED = Color.web("#D55E00");
    private static final Color BACKGROUND = Color.web("#161b22");

    /** Secondary text: the axis, the key, the empty-table hint, the mark of a client in good standing. */
    private static final Color MUTED_TEXT = Color.web("#8b949e");

    private static final Font LABEL_FONT = Font.font("monospace", 12);
    private static final Font AXIS_FONT = Font.font(11);

    private final int labelColumns = labelColumns();
    private List<ClientRow> rows = List.of();
    private int selectedRow = -1;

    public HeatmapCanvas(IntConsumer onRowClicked) {
        super(900, 360);
        setOnMouseClicked(e -> {
            int row = (int) (e.getY() / ROW_HEIGHT);
            if (row >= 0 && row < rows.size()) {
                onRowClicked.accept(row);
            }
        });
    }

    private static int labelColumns() {
        Text sample = new Text("0123456789");
        sample.setFont(LABEL_FONT);
        double charWidth = sample.getLayoutBounds().getWidth() / 10;
        return (int) Math.floor((LABEL_WIDTH - 26) / Math.max(1, charWidth));
    }

    public void show(List<ClientRow> newRows, int selected) {
        this.rows = newRows;
        this.selectedRow = selected;
        setHeight(Math.max(ROW_HEIGHT * 4, ROW_HEIGHT * newRows.size()) + AXIS_HEIGHT);
        draw();
    }

    /** Hits per second mapped to the ramp; 0 is the background, 1 is already visible, 20+ is the top. */
    static Color colour(int hits) {
        if (hits <= 0) {
            return BACKGROUND;
        }
        double t = Math.min(1.0, Math.log1p(hits) / Math.log1p(20));
        double scaled = t * (RAMP.length - 1);
        int low = (int) Math.floor(scaled);
        int high = Math.min(RAMP.length - 1, low + 1);
        return RAMP[low].interpolate(RAMP[high], scaled - low);
    }

    private void draw() {
        GraphicsContext g = getGraphicsContext2D();
        double width = getWidth();
        double cellWidth = (width - LABEL_WIDTH) / SECONDS;
        g.setFill(BACKGROUND);
        g.fillRect(0, 0, width, getHeight());
        if (rows.isEmpty()) {
            g.setFill(MUTED_TEXT);
            g.fillText("No clients yet", 12, 20);
            return;
        }
        WritableImage cells = new WritableImage(SECONDS, rows.size());
        PixelWriter pixels = cells.getPixelWriter();
        for (int r = 0; r < rows.size(); r++) {
            int[] hits = rows.get(r).hitsPerSecond();
            for (int s = 0; s < SECONDS; s++) {
                pixels.setColor(s, r, colour(s < hits.length ? hits[s] : 0));
            }
        }
        g.setImageSmoothing(false);
        g.drawImage(cells, LABEL_WIDTH, 0, cellWidth * SECONDS, ROW_HEIGHT * rows.size());
        g.setFont(LABEL_FONT);
        for (int r = 0; r < rows.size(); r++) {
            ClientRow row = rows.get(r);
            double y = r * ROW_HEIGHT;
            int[] refused = row.refusedPerSecond();
            g.setFill(REFUSED);
            for (int s = 0; s < SECONDS && s < refused.length; s++) {
                if (refused[s] > 0) {
                    g.fillRect(LABEL_WIDTH + s * cellWidth, y, cellWidth, 4);
                }
            }
            if (r == selectedRow) {
                g.setFill(Color.web("#1f6feb", 0.35));
                g.fillRect(0, y, LABEL_WIDTH, ROW_HEIGHT);
                g.setStroke(Color.web("#58a6ff"));
                g.strokeRect(0.5, y + 0.5, width - 1, ROW_HEIGHT - 1);
            }
            g.setFill(statusColour(row.status()));
            g.fillText(statusMark(row.status()), 6, y + 13);
            g.setFill(Color.web("#c9d1d9"));
            // Cut to the columns that fit rather than letting fillText squeeze the glyphs to maxWidth.
            g.fillText(DashboardViewModel.heatmapLabel(row, labelColumns), 22, y + 13);
        }
        drawAxis(g, cellWidth, ROW_HEIGHT * rows.size());
    }

    /** Time ticks under the cells and the colour key under the labels, so a row reads without the heading. */
    private void drawAxis(GraphicsContext g, double cellWidth, double top) {
        double baseline = top + 15;
        g.setFont(AXIS_FONT);
        g.setFill(MUTED_TEXT);
        g.setStroke(MUTED_TEXT);
        for (int column = 0; column <= SECONDS; column += TICK_SECONDS) {
            double x = LABEL_WIDTH + column * cellWidth;
            g.strokeLine(x + 0.5, top, x + 0.5, top + 4);
            g.setTextAlign(column == 0 ? TextAlignment.LEFT
                    : column == SECONDS ? TextAlignment.RIGHT : TextAlignment.CENTER);
            g.fillText(DashboardViewModel.heatmapTick(column, SECONDS), x, baseline);
        }
        g.setTextAlign(TextAlignment.LEFT);
        double x = 22;
        g.fillText("hits/s", x, baseline);
        for (int hits : KEY_HITS) {
            x += 48;
            g.setFill(colour(hits));
            g.fillRect(x, top + 5, 12, 12);
            g.setFill(MUTED_TEXT);
            g.fillText(hits == KEY_HITS[KEY_HITS.length - 1] ? hits + "+" : String.valueOf(hits), x + 16, baseline);
        }
    }

    private static String statusMark(ClientStatus status) {
        return switch (status) {
            case BANNED -> "⛔";
            case LIMITED -> "!";
            case ALLOWED -> "✓";
            default -> "·";
        };
    }

    private static Color statusColour(ClientStatus status) {
        return switch (status) {
            case BANNED, LIMITED -> REFUSED;
            case ALLOWED -> Color.web("#56B4E9");
            default -> MUTED_TEXT;
        };
    }
}
