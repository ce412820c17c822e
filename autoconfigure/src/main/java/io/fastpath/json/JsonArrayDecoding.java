package io.fastpath.json;

import java.util.ArrayList;
import java.util.List;

import io.fastpath.codec.HttpMessageReaderDecorator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;

/**
 * Puts {@link JsonArrayDecoder} in place of the stock Jackson JSON reader: the plain
 * {@link DecoderHttpMessageReader} of a {@link JacksonJsonDecoder} (exactly that class:
 * a subclass may customize its readers) is replaced, in the same position, by one of a
 * {@code JsonArrayDecoder} that decorates the same decoder instance, so the application's
 * mapper, registrations, MIME types and limit are kept. Readers of other JSON libraries
 * (Jackson 2, Gson, Kotlin serialization) are left alone.
 * <p>Each decoration builds new decoders, whose caches (one reader per type) live as long
 * as the decorated list that holds them: the decorating configurer and exchange
 * strategies build their list once and keep it.
 *
 * @author Fastpath
 */
public final class JsonArrayDecoding implements HttpMessageReaderDecorator {

	private static final Log logger = LogFactory.getLog(JsonArrayDecoding.class);

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		List<HttpMessageReader<?>> result = new ArrayList<>(readers.size());
		boolean replaced = false;
		for (HttpMessageReader<?> reader : readers) {
			if (reader.getClass() == DecoderHttpMessageReader.class
					&& ((DecoderHttpMessageReader<?>) reader).getDecoder().getClass() == JacksonJsonDecoder.class) {
				JacksonJsonDecoder stock = (JacksonJsonDecoder) ((DecoderHttpMessageReader<?>) reader).getDecoder();
				result.add(new DecoderHttpMessageReader<>(JsonArrayDecoder.from(stock)));
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
				&& decoderReader.getDecoder() instanceof JsonArrayDecoder;
	}

}
