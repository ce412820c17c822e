package io.fastpath.json;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Collection;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

import io.fastpath.codec.ReadEvent;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.util.MimeType;

/**
 * Which bodies {@link FastpathJsonDecoder} reads itself and which it hands to stock, and how
 * it names its rejections, as {@link ReadEvent}s.
 *
 * @author Fastpath
 */
final class JsonReadEvents {

	/** Read features under which the JSON between elements is not plain JSON. */
	private static final JsonReadFeature[] SYNTAX_FEATURES = { JsonReadFeature.ALLOW_JAVA_COMMENTS,
			JsonReadFeature.ALLOW_YAML_COMMENTS, JsonReadFeature.ALLOW_SINGLE_QUOTES,
			JsonReadFeature.ALLOW_UNQUOTED_PROPERTY_NAMES, JsonReadFeature.ALLOW_TRAILING_COMMA,
			JsonReadFeature.ALLOW_MISSING_VALUES, JsonReadFeature.ALLOW_RS_CONTROL_CHAR };

	private JsonReadEvents() {
	}

	/**
	 * Whether a {@code Flux} of the given type is read by splitting elements, and if not
	 * why: as the stock decoder, every element type but arrays and collections (which
	 * stock reads whole), with UTF-8 input (stock re-encodes other charsets) and plain
	 * JSON syntax.
	 * @return {@link ReadEvent#JSON_FLUX}, or the reason to hand the stream to stock
	 */
	static ReadEvent fluxPath(@Nullable JsonMapper mapper, ResolvableType elementType, @Nullable MimeType mimeType) {
		if (mapper == null) {
			return ReadEvent.JSON_FLUX_NO_MAPPER;
		}
		if (elementType.isArray() || Collection.class.isAssignableFrom(elementType.resolve(Object.class))) {
			return ReadEvent.JSON_FLUX_OF_COLLECTIONS;
		}
		Charset charset = (mimeType != null) ? mimeType.getCharset() : null;
		if (charset != null && !StandardCharsets.UTF_8.equals(charset) && !StandardCharsets.US_ASCII.equals(charset)) {
			return ReadEvent.JSON_FLUX_CHARSET;
		}
		for (JsonReadFeature feature : SYNTAX_FEATURES) {
			if (mapper.isEnabled(feature)) {
				return ReadEvent.JSON_FLUX_MAPPER_SYNTAX;
			}
		}
		// Elements are found in the raw bytes, which a decorator would change before parsing
		// (stock's non-blocking parser does not decorate its input).
		return (mapper.tokenStreamFactory().getInputDecorator() == null) ? ReadEvent.JSON_FLUX
				: ReadEvent.JSON_FLUX_INPUT_DECORATOR;
	}

	/**
	 * The rejection an exception raised while reading a body stands for: a Jackson
	 * exception, or the splitter's own {@code DecodingException} (malformed structure) and
	 * {@code DataBufferLimitException} (an element over the limit). {@code null} for
	 * anything else, such as a type definition error, which is the application's
	 * (answered with 500, as by stock), not the body's.
	 */
	static @Nullable ReadEvent rejection(RuntimeException ex) {
		if (ex instanceof DataBufferLimitException) {
			return ReadEvent.JSON_TOO_LARGE;
		}
		if (ex instanceof DecodingException) {
			return ReadEvent.JSON_MALFORMED;
		}
		if (!(ex instanceof JacksonException) || ex instanceof InvalidDefinitionException) {
			return null;
		}
		if (ex instanceof StreamConstraintsException) {
			return ReadEvent.JSON_CONSTRAINT;
		}
		// A number out of range for its type is read by the parser but is a binding error.
		return (ex instanceof StreamReadException && !(ex instanceof InputCoercionException)) ? ReadEvent.JSON_MALFORMED
				: ReadEvent.JSON_INVALID;
	}

}
