package io.fastpath.codec;

import java.util.ArrayList;
import java.util.List;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;

/**
 * A decorator for tests that puts a recognizable reader first.
 */
final class PrependMarker implements HttpMessageReaderDecorator {

	static final HttpMessageReader<String> marker = new DecoderHttpMessageReader<>(StringDecoder.textPlainOnly());

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		List<HttpMessageReader<?>> result = new ArrayList<>(readers);
		result.add(0, marker);
		return result;
	}

}
