package io.fastpath.json.write;

import java.nio.charset.Charset;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.FilterProvider;

import org.springframework.core.GenericTypeResolver;
import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.util.MimeType;

import io.fastpath.json.StockMapperSelection;

/**
 * How a stock {@link JacksonJsonEncoder} (exactly that class, whose protected methods are
 * known) writes once its mapper is selected ({@link StockMapperSelection}): its
 * {@code ObjectWriter} for the hints ({@code @JsonView}, filters), its JSON encoding for a
 * charset, whether a media type is a stream. The encoder keeps these to itself (protected
 * or private), so they are derived here from what it makes public, to the same result.
 *
 * @author Fastpath
 */
final class StockJsonWriting {

	private static final Map<String, JsonEncoding> ENCODINGS = new HashMap<>();

	static {
		for (JsonEncoding encoding : JsonEncoding.values()) {
			ENCODINGS.put(encoding.getJavaName(), encoding);
		}
		ENCODINGS.put("US-ASCII", JsonEncoding.UTF8);
	}

	private StockJsonWriting() {
	}

	/** The writer the encoder creates for the type, media type and hints. */
	static ObjectWriter objectWriter(JacksonJsonEncoder encoder, JsonMapper mapper, ResolvableType type,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		JavaType javaType = encoder.getMapper()
			.constructType(GenericTypeResolver.resolveType(type.getType(), (Class<?>) null));
		Class<?> view = null;
		FilterProvider filters = null;
		if (hints != null) {
			view = (Class<?>) hints.get(JacksonCodecSupport.JSON_VIEW_HINT);
			filters = (FilterProvider) hints.get(JacksonCodecSupport.FILTER_PROVIDER_HINT);
		}
		ObjectWriter writer = (view != null) ? mapper.writerWithView(view) : mapper.writer();
		if (filters != null) {
			writer = writer.with(filters);
		}
		if (javaType.isContainerType()) {
			writer = writer.forType(javaType);
		}
		// The encoder indents a value written as an event's data with "data:" on each line.
		if (MediaType.TEXT_EVENT_STREAM.isCompatibleWith(mimeType)
				&& writer.getConfig().isEnabled(SerializationFeature.INDENT_OUTPUT)) {
			DefaultPrettyPrinter printer = new DefaultPrettyPrinter();
			printer.indentObjectsWith(new DefaultIndenter("  ", "\ndata:"));
			writer = writer.with(printer);
		}
		return writer;
	}

	/** The JSON encoding of the charset of the media type; UTF-8 when it has none. */
	static JsonEncoding jsonEncoding(@Nullable MimeType mimeType) {
		Charset charset = (mimeType != null) ? mimeType.getCharset() : null;
		JsonEncoding encoding = (charset != null) ? ENCODINGS.get(charset.name()) : null;
		return (encoding != null) ? encoding : JsonEncoding.UTF8;
	}

	/**
	 * Whether the encoder writes the media type as a stream, each value followed by a
	 * newline, rather than as a JSON array.
	 */
	static boolean isStreaming(JacksonJsonEncoder encoder, @Nullable MimeType mimeType) {
		for (MediaType streaming : encoder.getStreamingMediaTypes()) {
			if (streaming.isCompatibleWith(mimeType)) {
				return true;
			}
		}
		return false;
	}

}
