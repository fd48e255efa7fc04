package io.sluice.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/** The admin API's wire conventions, shared by every resource: JSON answers, bounded bodies, field errors. */
final class ApiMessages {
    /** The largest request body any admin or worker call accepts. */
    static final int MAX_BODY_BYTES = 1 << 20;
    private static final ObjectMapper JSON = PolicyJson.mapper();

    private ApiMessages() {
    }

    /**
     * The request body, read up to {@link #MAX_BODY_BYTES}: one byte more and the call is refused with 413
     * without reading (or buffering) the rest, whether the length was announced or the body is chunked.
     */
    static String body(Request request) throws IOException {
        if (request.getLength() > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        byte[] bytes;
        try {
            InputStream in = Content.Source.asInputStream(request);
            bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        } catch (IOException | RuntimeException e) {
            if (e.toString().contains("413")) {
                // Jetty's own size limit (the SizeLimitHandler in front) stopped the body.
                throw tooLarge();
            }
            throw e;
        }
        if (bytes.length > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static ApiError tooLarge() {
        return new ApiError(413, List.of(new FieldError("body", "larger than " + MAX_BODY_BYTES + " bytes")));
    }

    static <T> T read(Request request, Class<T> type) throws IOException {
        return parseRequired(body(request), type);
    }

    static <T> T parseRequired(String body, Class<T> type) {
        if (body.isBlank()) {
            throw ApiError.field("body", "a JSON body is required");
        }
        return parse(body, type);
    }

    /**
     * {@code body} read as a {@code type}; whatever the text, the answer is that value or a 400 naming the field at
     * fault (the JSON path Jackson reached, or {@code body}), never another exception.
     */
    static <T> T parse(String body, Class<T> type) {
        T value;
        try {
            value = JSON.readValue(body, type);
        } catch (MismatchedInputException e) {
            String message = e instanceof InvalidFormatException invalid
                    ? "'" + invalid.getValue() + "' is not a valid " + invalid.getTargetType().getSimpleName()
                    : e.getOriginalMessage();
            throw ApiError.field(field(e), message);
        } catch (JsonMappingException e) {
            // e.g. a value a record's constructor refused, or a number out of an int's range: named by its path
            throw ApiError.field(field(e), e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw ApiError.field("body", "malformed JSON: " + e.getOriginalMessage());
        }
        if (value == null) {
            throw ApiError.field("body", "a JSON object is required, was null");
        }
        return value;
    }

    /** The JSON path of the field Jackson failed at ({@code bans[2].value}), or {@code body} for the top level. */
    private static String field(JsonMappingException e) {
        String field = e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
        return field.isEmpty() ? "body" : field;
    }

    /**
     * The policy version an edit was made from, read from {@code If-Match}; null when it is missing (428) or not
     * a policy ETag (400), and that answer has been sent.
     */
    static Long ifMatchVersion(Request request, Response response, Callback callback) throws IOException {
        String ifMatch = request.getHeaders().get(HttpHeader.IF_MATCH);
        if (ifMatch == null) {
            error(response, callback, 428, "If-Match with the policy's ETag is required");
            return null;
        }
        try {
            return Long.parseLong(ifMatch.replace("W/", "").replace("\"", "").trim());
        } catch (NumberFormatException e) {
            error(response, callback, 400, "If-Match must be a policy ETag such as \"7\"");
            return null;
        }
    }

    static String etag(long version) {
        return "\"" + version + "\"";
    }

    static boolean error(Response response, Callback callback, int status, String message)
            throws JsonProcessingException {
        return json(response, callback, status, Map.of("error", message));
    }

    static boolean json(Response response, Callback callback, int status, Object body)
            throws JsonProcessingException {
        return text(response, callback, "application/json", status, JSON.writeValueAsString(body));
    }

    static boolean text(Response response, Callback callback, String type, int status, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        Content.Sink.write(response, true, body, callback);
        return true;
    }

    /**
     * Answers 204 No Content, by an empty last write of its own rather than a callback completed with nothing written.
     * Given the latter, Jetty 12.1.14 sends the last write itself under a wrapper that its write completion does not
     * take for the last write, and that wrapper could run during the connection's next request, on the recycled
     * channel: an AssertionError in {@code LastWriteCallback} under {@code -ea}, in 4 of 12 {@code GovernorApiTest}
     * runs beside two busy loops (a feedback, then a held permit call); 0 of 12 with this write.
     */
    static boolean noContent(Response response, Callback callback) {
        response.setStatus(204);
        response.write(true, BufferUtil.EMPTY_BUFFER, callback);
        return true;
    }
}
