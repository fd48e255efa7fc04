package io.sluice.console.shell;

import io.sluice.engine.RequestClass;

/** What a pause or resume applies to: the whole service or one class. */
public enum PauseScope {
    WHOLE_SERVICE(null), BROWSER(RequestClass.BROWSER), CRAWLER(RequestClass.CRAWLER), BOT(RequestClass.BOT);

    private final RequestClass only;

    PauseScope(RequestClass only) {
        this.only = only;
    }

    /** The admin API's {@code class}, or null for the whole service. */
    public RequestClass only() {
        return only;
    }

    @Override
    public String toString() {
        return only == null ? "whole service" : only.name();
    }
}
