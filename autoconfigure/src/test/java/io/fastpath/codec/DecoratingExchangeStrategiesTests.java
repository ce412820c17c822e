package io.fastpath.codec;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.web.reactive.function.client.ExchangeStrategies;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DecoratingExchangeStrategies}.
 */
class DecoratingExchangeStrategiesTests {

	private static final HttpMessageReader<String> marker = PrependMarker.marker;

	private static final HttpMessageReaderDecorator prependMarker = new PrependMarker();

	@Test
	void readersAreTheDelegatesDecorated() {
		ExchangeStrategies delegate = ExchangeStrategies.withDefaults();
		ExchangeStrategies decorating = new DecoratingExchangeStrategies(delegate, List.of(prependMarker));
		assertThat(decorating.messageReaders()).startsWith(marker).hasSize(delegate.messageReaders().size() + 1);
		assertThat(decorating.messageWriters()).isEqualTo(delegate.messageWriters());
	}

	@Test
	void mutatedStrategiesKeepCodecCustomizationsAndStayDecorated() {
		ExchangeStrategies decorating = new DecoratingExchangeStrategies(ExchangeStrategies.withDefaults(),
				List.of(prependMarker));
		ExchangeStrategies mutated = decorating.mutate()
			.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(4321))
			.build();
		assertThat(mutated).isInstanceOf(DecoratingExchangeStrategies.class);
		assertThat(mutated.messageReaders()).startsWith(marker);
		assertThat(mutated.messageReaders()).filteredOn(DecoderHttpMessageReader.class::isInstance)
			.map((reader) -> ((DecoderHttpMessageReader<?>) reader).getDecoder())
			.filteredOn(StringDecoder.class::isInstance)
			.anySatisfy((decoder) -> assertThat(((StringDecoder) decoder).getMaxInMemorySize()).isEqualTo(4321));
	}

}
