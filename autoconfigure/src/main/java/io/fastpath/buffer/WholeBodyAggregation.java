package io.fastpath.buffer;

import java.util.ArrayList;
import java.util.List;

import io.fastpath.codec.HttpMessageReaderDecorator;

import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;

/**
 * Puts {@link DataBufferAggregator} under the whole-body path of the stock readers: each
 * plain {@link DecoderHttpMessageReader} whose decoder
 * {@linkplain AggregatingHttpMessageReader#supports supports it} is replaced, in place,
 * by an {@link AggregatingHttpMessageReader} around it. Readers of other kinds, and
 * readers already decorated, are left as they are.
 *
 * @author Fastpath
 */
public final class WholeBodyAggregation implements HttpMessageReaderDecorator {

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		List<HttpMessageReader<?>> result = new ArrayList<>(readers.size());
		for (HttpMessageReader<?> reader : readers) {
			result.add(decorate(reader));
		}
		return result;
	}

	private static HttpMessageReader<?> decorate(HttpMessageReader<?> reader) {
		// Exact class only: subclasses (for example ResourceHttpMessageReader) read differently.
		if (reader.getClass() == DecoderHttpMessageReader.class) {
			DecoderHttpMessageReader<?> decoderReader = (DecoderHttpMessageReader<?>) reader;
			if (AggregatingHttpMessageReader.supports(decoderReader.getDecoder())) {
				return new AggregatingHttpMessageReader<>(decoderReader);
			}
		}
		return reader;
	}

}
