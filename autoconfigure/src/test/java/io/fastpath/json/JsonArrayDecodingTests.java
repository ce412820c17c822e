package io.fastpath.json;

import java.util.List;

import io.fastpath.codec.DecoratingExchangeStrategies;
import io.fastpath.codec.DecoratingServerCodecConfigurer;
import org.junit.jupiter.api.Test;

import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.web.reactive.function.client.ExchangeStrategies;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JsonArrayDecoding}.
 */
class JsonArrayDecodingTests {

	@Test
	void replacesTheStockJsonReaderInPlaceAroundTheSameStockDecoder() {
		List<HttpMessageReader<?>> readers = ServerCodecConfigurer.create().getReaders();
		List<HttpMessageReader<?>> decorated = new JsonArrayDecoding().decorate(readers);
		assertThat(decorated).hasSameSizeAs(readers);
		for (int i = 0; i < readers.size(); i++) {
			if (readers.get(i) instanceof DecoderHttpMessageReader<?> reader
					&& reader.getDecoder().getClass() == JacksonJsonDecoder.class) {
				assertThat(jsonDecoder(decorated).getStockDecoder()).isSameAs(reader.getDecoder());
				assertThat(decorated.get(i)).isInstanceOfSatisfying(DecoderHttpMessageReader.class,
						(replaced) -> assertThat(replaced.getDecoder()).isInstanceOf(FastpathJsonDecoder.class));
			}
			else {
				assertThat(decorated.get(i)).isSameAs(readers.get(i));
			}
		}
	}

	@Test
	void serverConfigurerKeepsItsJsonDecoderAcrossCallsAndCollections() {
		ServerCodecConfigurer configurer = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of(new JsonArrayDecoding()));
		List<HttpMessageReader<?>> readers = configurer.getReaders();
		FastpathJsonDecoder decoder = jsonDecoder(readers);
		// The list that holds the decoder is the configurer's own: nothing weak in between.
		assertThat(configurer.getReaders()).containsExactlyElementsOf(readers);
		System.gc();
		assertThat(jsonDecoder(configurer.getReaders())).isSameAs(decoder);
	}

	@Test
	void exchangeStrategiesKeepTheirJsonDecoderAcrossCallsAndCollections() {
		ExchangeStrategies strategies = new DecoratingExchangeStrategies(ExchangeStrategies.withDefaults(),
				List.of(new JsonArrayDecoding()));
		List<HttpMessageReader<?>> readers = strategies.messageReaders();
		FastpathJsonDecoder decoder = jsonDecoder(readers);
		assertThat(strategies.messageReaders()).isSameAs(readers);
		System.gc();
		assertThat(jsonDecoder(strategies.messageReaders())).isSameAs(decoder);
	}

	static FastpathJsonDecoder jsonDecoder(List<HttpMessageReader<?>> readers) {
		return readers.stream()
			.filter(DecoderHttpMessageReader.class::isInstance)
			.map((reader) -> ((DecoderHttpMessageReader<?>) reader).getDecoder())
			.filter(FastpathJsonDecoder.class::isInstance)
			.map(FastpathJsonDecoder.class::cast)
			.findFirst()
			.orElseThrow();
	}

}
