package io.fastpath.codec;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.web.reactive.function.client.ExchangeStrategies;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DecoratingExchangeStrategies}, each on strategies of its own: Spring's
 * default strategies share their codec instances with every copy made of them, so a limit
 * set here on a copy of them would reach every later test in the JVM.
 */
class DecoratingExchangeStrategiesTests {

	private static final HttpMessageReader<String> marker = PrependMarker.marker;

	private static final HttpMessageReaderDecorator prependMarker = new PrependMarker();

	@Test
	void readersAreTheDelegatesDecorated() {
		ExchangeStrategies delegate = ExchangeStrategies.builder().build();
		ExchangeStrategies decorating = new DecoratingExchangeStrategies(delegate, List.of(prependMarker));
		assertThat(decorating.messageReaders()).startsWith(marker).hasSize(delegate.messageReaders().size() + 1);
		assertThat(decorating.messageWriters()).isEqualTo(delegate.messageWriters());
	}

	@Test
	void handsOutTheSameReadersDecoratedOnce() {
		AtomicInteger decorations = new AtomicInteger();
		HttpMessageReaderDecorator counting = (readers) -> {
			decorations.incrementAndGet();
			return readers;
		};
		ExchangeStrategies decorating = new DecoratingExchangeStrategies(ExchangeStrategies.builder().build(),
				List.of(counting));
		List<HttpMessageReader<?>> first = decorating.messageReaders();
		for (int i = 0; i < 10; i++) {
			assertThat(decorating.messageReaders()).isSameAs(first);
		}
		assertThat(decorations).hasValue(1);
	}

	@Test
	void strategiesMutatedAfterTheirReadersWereHandedOutGiveTheNewReaders() {
		ExchangeStrategies decorating = new DecoratingExchangeStrategies(ExchangeStrategies.builder().build(),
				List.of(prependMarker));
		List<HttpMessageReader<?>> before = decorating.messageReaders();
		ExchangeStrategies mutated = decorating.mutate()
			.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(4321))
			.build();
		assertThat(mutated.messageReaders()).isNotSameAs(before);
		assertThat(decorating.messageReaders()).isSameAs(before);
	}

	@Test
	void mutatedStrategiesKeepCodecCustomizationsAndStayDecorated() {
		ExchangeStrategies decorating = new DecoratingExchangeStrategies(ExchangeStrategies.builder().build(),
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

	@Test
	void writersAreTheDelegatesDecoratedAndStayDecoratedWhenMutated() {
		HttpMessageWriterDecorator dropFirst = (writers) -> writers.subList(1, writers.size());
		ExchangeStrategies delegate = ExchangeStrategies.builder().build();
		ExchangeStrategies decorating = new DecoratingExchangeStrategies(delegate, List.of(prependMarker),
				List.of(dropFirst));
		assertThat(decorating.messageWriters()).isEqualTo(delegate.messageWriters().subList(1,
				delegate.messageWriters().size()));
		assertThat(decorating.messageWriters()).isSameAs(decorating.messageWriters());
		ExchangeStrategies mutated = decorating.mutate().codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(1)).build();
		assertThat(mutated.messageWriters()).hasSize(delegate.messageWriters().size() - 1);
		assertThat(mutated.messageReaders()).startsWith(marker);
	}

	@Test
	void strategiesOfTheDefaultsAreMutatedFromNewDefaults() {
		DecoratingExchangeStrategies defaults = DecoratingExchangeStrategies.withDefaults(List.of(prependMarker),
				List.of());
		JacksonJsonDecoder original = jsonDecoder(defaults.messageReaders());
		int limit = original.getMaxInMemorySize();
		ExchangeStrategies mutated = defaults.mutate()
			.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(limit / 2))
			.build();
		assertThat(mutated.messageReaders()).startsWith(marker);
		assertThat(jsonDecoder(mutated.messageReaders()).getMaxInMemorySize()).isEqualTo(limit / 2);
		assertThat(original.getMaxInMemorySize()).isEqualTo(limit);
		assertThat(jsonDecoder(defaults.messageReaders())).isSameAs(original);
	}

	private static JacksonJsonDecoder jsonDecoder(List<HttpMessageReader<?>> readers) {
		return readers.stream()
			.filter(DecoderHttpMessageReader.class::isInstance)
			.map((reader) -> ((DecoderHttpMessageReader<?>) reader).getDecoder())
			.filter(JacksonJsonDecoder.class::isInstance)
			.map(JacksonJsonDecoder.class::cast)
			.findFirst()
			.orElseThrow();
	}

}
