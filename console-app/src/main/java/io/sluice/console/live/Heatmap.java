package io.sluice.console.live;

import io.sluice.engine.telemetry.ClientRow;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntConsumer;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.css.CssMetaData;
import javafx.css.Styleable;
import javafx.css.StyleableObjectProperty;
import javafx.css.StyleableProperty;
import javafx.css.StyleablePropertyFactory;
import javafx.scene.control.Control;
import javafx.scene.control.Skin;
import javafx.scene.paint.Color;
import javafx.scene.paint.Paint;

/**
 * The hit-stack heatmap as a control (after AtlantaFX's {@code Card}/{@code CardSkin}): the busiest clients as
 * rows, the last 60 seconds as columns, colour by hits in that second, a mark on every second with refusals.
 * It takes the height it is given: as many rows as fit are drawn, a scroll bar reaches the rest, and the time
 * axis and colour key stay under the rows. Its colours are CSS properties ({@code -sluice-heat-0} ... set from the
 * palette's looked-up colours in {@code LiveView.css}), so the palette lives once, in CSS.
 */
public final class Heatmap extends Control {
    private static final StyleablePropertyFactory<Heatmap> CSS = new StyleablePropertyFactory<>(
            Control.getClassCssMetaData());

    private final ObjectProperty<List<ClientRow>> rows = new SimpleObjectProperty<>(this, "rows", List.of());
    private final IntegerProperty selectedIndex = new SimpleIntegerProperty(this, "selectedIndex", -1);
    private final ObjectProperty<IntConsumer> onRowClicked = new SimpleObjectProperty<>(this, "onRowClicked",
            row -> { });
    private final StyleableObjectProperty<Color> heat0 = colour("heat0", "-sluice-heat-0", h -> h.heat0);
    private final StyleableObjectProperty<Color> heat1 = colour("heat1", "-sluice-heat-1", h -> h.heat1);
    private final StyleableObjectProperty<Color> heat2 = colour("heat2", "-sluice-heat-2", h -> h.heat2);
    private final StyleableObjectProperty<Color> heat3 = colour("heat3", "-sluice-heat-3", h -> h.heat3);
    private final StyleableObjectProperty<Color> heat4 = colour("heat4", "-sluice-heat-4", h -> h.heat4);
    private final StyleableObjectProperty<Color> empty = colour("empty", "-sluice-heat-empty", h -> h.empty);
    private final StyleableObjectProperty<Color> refused = colour("refused", "-sluice-heat-refused", h -> h.refused);
    private final StyleableObjectProperty<Color> allowed = colour("allowed", "-sluice-heat-allowed", h -> h.allowed);
    private final StyleableObjectProperty<Color> text = colour("text", "-sluice-heat-text", h -> h.text);
    private final StyleableObjectProperty<Color> muted = colour("muted", "-sluice-heat-muted", h -> h.muted);
    private final StyleableObjectProperty<Color> selection =
            colour("selection", "-sluice-heat-selection", h -> h.selection);

    /**
     * A colour the stylesheet sets. Its initial value is a plain grey on purpose: the palette lives in CSS only,
     * and a heatmap without its stylesheet should look unstyled rather than carry a second copy of it.
     */
    private StyleableObjectProperty<Color> colour(String name, String css,
            Function<Heatmap, StyleableProperty<Color>> property) {
        return (StyleableObjectProperty<Color>) CSS.createStyleableColorProperty(this, name, css, property,
                Color.GRAY);
    }

    public Heatmap() {
        getStyleClass().add("heatmap");
        setFocusTraversable(true);
    }

    @Override
    protected Skin<?> createDefaultSkin() {
        return new HeatmapSkin(this);
    }

    public static List<CssMetaData<? extends Styleable, ?>> getClassCssMetaData() {
        return CSS.getCssMetaData();
    }

    @Override
    protected List<CssMetaData<? extends Styleable, ?>> getControlCssMetaData() {
        return getClassCssMetaData();
    }

    /** The ramp from one hit a second to 20 and more, low to high. */
    Color[] ramp() {
        return new Color[] {heat0.get(), heat1.get(), heat2.get(), heat3.get(), heat4.get()};
    }

    /** Hits per second on the ramp; 0 is the background, 1 is already visible, 20+ is the top. */
    Color colour(int hits) {
        return colour(hits, ramp(), empty.get());
    }

    static Color colour(int hits, Color[] ramp, Color background) {
        if (hits <= 0) {
            return background;
        }
        double t = Math.min(1.0, Math.log1p(hits) / Math.log1p(20));
        double scaled = t * (ramp.length - 1);
        int low = (int) Math.floor(scaled);
        int high = Math.min(ramp.length - 1, low + 1);
        return ramp[low].interpolate(ramp[high], scaled - low);
    }

    public ObjectProperty<List<ClientRow>> rowsProperty() {
        return rows;
    }

    public IntegerProperty selectedIndexProperty() {
        return selectedIndex;
    }

    /** Told the index of a row the operator clicked. */
    public ObjectProperty<IntConsumer> onRowClickedProperty() {
        return onRowClicked;
    }

    public void setOnRowClicked(IntConsumer action) {
        onRowClicked.set(action);
    }

    Color emptyColour() {
        return empty.get();
    }

    Paint refusedColour() {
        return refused.get();
    }

    Paint allowedColour() {
        return allowed.get();
    }

    Paint textColour() {
        return text.get();
    }

    Paint mutedColour() {
        return muted.get();
    }

    Color selectionColour() {
        return selection.get();
    }

    /** The styleable colours, so the skin redraws when the stylesheet sets them. */
    List<StyleableObjectProperty<Color>> colours() {
        return List.of(heat0, heat1, heat2, heat3, heat4, empty, refused, allowed, text, muted, selection);
    }
}
