package io.fastpath.buffer;

import java.util.ArrayList;
import java.util.List;

import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.ReadListener;

import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.util.Assert;

/**
 * Puts {@link DataBufferAggregator} under the whole-body path of the stock readers: each
 * plain {@link DecoderHttpMessageReader} whose decoder's whole-body path is "join, then
 * decode" (the {@code core.codec} data buffer decoders for {@code String}, {@code byte[]}
 * and the like, the Jackson decoders, and every {@link JoiningDecoder}) is replaced, in
 * place, by a reader of the same decoder whose {@code readMono} aggregates the body first.
 * Readers of other kinds, and readers already replaced, are left as they are.
 *
 * @author Fastpath
 */
public final class WholeBodyAggregation implements HttpMessageReaderDecorator {

	private final ReadListener listener;

	/**
	 * Create a decorator whose readers tell nobody which way bodies go.
	 */
	public WholeBodyAggregation() {
		this(ReadListener.NONE);
	}

	/**
	 * Create a decorator whose readers tell the given listener which way each body goes.
	 * @param listener the listener to tell
	 */
	public WholeBodyAggregation(ReadListener listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.listener = listener;
	}

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		List<HttpMessageReader<?>> result = new ArrayList<>(readers.size());
		for (HttpMessageReader<?> reader : readers) {
			result.add(decorate(reader));
		}
		return result;
	}

	private HttpMessageReader<?> decorate(HttpMessageReader<?> reader) {
		// Exact class only: subclasses (for example ResourceHttpMessageReader) read differently.
		if (reader.getClass() == DecoderHttpMessageReader.class) {
			DecoderHttpMessageReader<?> decoderReader = (DecoderHttpMessageReader<?>) reader;
			if (AggregatingHttpMessageReader.supports(decoderReader.getDecoder())) {
				return new AggregatingHttpMessageReader<>(decoderReader, this.listener);
			}
		}
		return reader;
	}

}
