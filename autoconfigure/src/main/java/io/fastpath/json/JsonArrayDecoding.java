package io.fastpath.json;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.ReadListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.util.Assert;
import org.springframework.util.ConcurrentReferenceHashMap;

/**
 * Puts {@link JsonArrayDecoder} in place of the stock Jackson JSON reader: the plain
 * {@link DecoderHttpMessageReader} of a {@link JacksonJsonDecoder} (exactly that class:
 * a subclass may customize its readers) is replaced, in the same position, by one of a
 * {@code JsonArrayDecoder} that decorates the same decoder instance, so the application's
 * mapper, registrations, MIME types and limit are kept. Readers of other JSON libraries
 * (Jackson 2, Gson, Kotlin serialization) are left alone.
 *
 * @author Fastpath
 */
public final class JsonArrayDecoding implements HttpMessageReaderDecorator {

	private static final Log logger = LogFactory.getLog(JsonArrayDecoding.class);

	private final ReadListener listener;

	/** One decoder, with its reader cache, per stock decoder: readers are listed more than once. */
	private final Map<JacksonJsonDecoder, JsonArrayDecoder> decoders = new ConcurrentReferenceHashMap<>(4,
			ConcurrentReferenceHashMap.ReferenceType.WEAK);

	/**
	 * Create a decorator whose decoders tell nobody which way bodies go.
	 */
	public JsonArrayDecoding() {
		this(ReadListener.NONE);
	}

	/**
	 * Create a decorator whose decoders tell the given listener which way each body goes.
	 * @param listener the listener to tell
	 */
	public JsonArrayDecoding(ReadListener listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.listener = listener;
	}

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		List<HttpMessageReader<?>> result = new ArrayList<>(readers.size());
		boolean replaced = false;
		for (HttpMessageReader<?> reader : readers) {
			if (reader.getClass() == DecoderHttpMessageReader.class
					&& ((DecoderHttpMessageReader<?>) reader).getDecoder().getClass() == JacksonJsonDecoder.class) {
				JacksonJsonDecoder stock = (JacksonJsonDecoder) ((DecoderHttpMessageReader<?>) reader).getDecoder();
				result.add(new DecoderHttpMessageReader<>(this.decoders.computeIfAbsent(stock, this::decoderFor)));
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

	private JsonArrayDecoder decoderFor(JacksonJsonDecoder stock) {
		return JsonArrayDecoder.from(stock, this.listener);
	}

	private static boolean isFastpathJson(HttpMessageReader<?> reader) {
		return reader instanceof DecoderHttpMessageReader<?> decoderReader
				&& decoderReader.getDecoder() instanceof JsonArrayDecoder;
	}

}
