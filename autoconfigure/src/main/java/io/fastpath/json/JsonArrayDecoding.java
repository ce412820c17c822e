package io.fastpath.json;

import java.util.ArrayList;
import java.util.List;

import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.ReadListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.util.Assert;

/**
 * Puts {@link FastpathJsonDecoder} in place of the stock Jackson JSON reader: the plain
 * {@link DecoderHttpMessageReader} of a {@link JacksonJsonDecoder} (exactly that class:
 * a subclass may customize its readers) is replaced, in the same position, by one of a
 * {@code FastpathJsonDecoder} that decorates the same decoder instance, so the application's
 * mapper, registrations, MIME types and limit are kept. Readers of other JSON libraries
 * (Jackson 2, Gson, Kotlin serialization) are left alone.
 * <p>Each decoration builds new decoders, whose caches (one reader per type) live as long
 * as the decorated list that holds them: the decorating configurer and exchange
 * strategies build their list once and keep it.
 * <p>With creator optimization on (the default), values are read with a twin of each
 * application mapper that adds Jackson's Blackbird module, when Blackbird is on the class
 * path and the application does not run in a native image (Blackbird generates classes at
 * run time). Records and {@code @JsonCreator}s are then built without reflection. The
 * application's mapper itself is left as configured, for application code. Twins are
 * shared by every decoder this decoration builds, server and client.
 *
 * @author Fastpath
 */
public final class JsonArrayDecoding implements HttpMessageReaderDecorator {

	private static final Log logger = LogFactory.getLog(JsonArrayDecoding.class);

	/** The twins to read with, or {@code null} to read with the application's mappers. */
	private final @Nullable BlackbirdTwins twins;

	private final ReadListener listener;

	/**
	 * Create a decoration that optimizes creators where it can.
	 */
	public JsonArrayDecoding() {
		this(true, ReadListener.NONE);
	}

	/**
	 * Create a decoration.
	 * @param optimizeCreators whether to read with twins of the application's mappers that
	 * add Jackson's Blackbird module, where it is on the class path and outside a native
	 * image
	 */
	public JsonArrayDecoding(boolean optimizeCreators) {
		this(optimizeCreators, ReadListener.NONE);
	}

	/**
	 * Create a decoration that optimizes creators where it can, and whose decoders tell the
	 * given listener which way each body goes.
	 * @param listener the listener to tell
	 */
	public JsonArrayDecoding(ReadListener listener) {
		this(true, listener);
	}

	/**
	 * Create a decoration.
	 * @param optimizeCreators whether to read with twins of the application's mappers that
	 * add Jackson's Blackbird module, where it is on the class path and outside a native
	 * image
	 * @param listener the listener the decoders tell which way each body goes
	 */
	public JsonArrayDecoding(boolean optimizeCreators, ReadListener listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.twins = BlackbirdAvailability.twins(optimizeCreators, BlackbirdTwins.Use.READING);
		this.listener = listener;
	}

	/**
	 * Whether the decoders this decoration builds read with twins of the application's
	 * mappers that add Blackbird.
	 * @return whether creators are optimized
	 */
	public boolean optimizesCreators() {
		return this.twins != null;
	}

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		List<HttpMessageReader<?>> result = new ArrayList<>(readers.size());
		boolean replaced = false;
		for (HttpMessageReader<?> reader : readers) {
			if (reader.getClass() == DecoderHttpMessageReader.class
					&& ((DecoderHttpMessageReader<?>) reader).getDecoder().getClass() == JacksonJsonDecoder.class) {
				JacksonJsonDecoder stock = (JacksonJsonDecoder) ((DecoderHttpMessageReader<?>) reader).getDecoder();
				result.add(new DecoderHttpMessageReader<>(
						FastpathJsonDecoder.from(stock, this.twins, this.listener)));
				replaced = true;
			}
			else {
				result.add(reader);
			}
		}
		if (!replaced && logger.isDebugEnabled() && readers.stream().noneMatch(JsonArrayDecoding::isFastpathJson)) {
			logger.debug("No stock Jackson 3 JSON reader to replace (another JSON library is preferred?): "
					+ "JSON is read by the configured reader");
		}
		return result;
	}

	private static boolean isFastpathJson(HttpMessageReader<?> reader) {
		return reader instanceof DecoderHttpMessageReader<?> decoderReader
				&& decoderReader.getDecoder() instanceof FastpathJsonDecoder;
	}

}
