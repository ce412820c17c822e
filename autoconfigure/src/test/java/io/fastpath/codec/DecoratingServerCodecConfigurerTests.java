package io.fastpath.codec;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DecoratingServerCodecConfigurer}.
 */
class DecoratingServerCodecConfigurerTests {

	private static final HttpMessageReader<String> marker = PrependMarker.marker;

	private static final HttpMessageReaderDecorator prependMarker = new PrependMarker();

	@Test
	void readersAreTheDelegatesDecoratedInOrder() {
		HttpMessageReaderDecorator dropFirst = (readers) -> readers.subList(1, readers.size());
		ServerCodecConfigurer delegate = ServerCodecConfigurer.create();
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(delegate,
				List.of(prependMarker, dropFirst));
		assertThat(decorating.getReaders()).hasSameSizeAs(delegate.getReaders()).doesNotContain(marker);
		ServerCodecConfigurer reversed = new DecoratingServerCodecConfigurer(delegate, List.of(dropFirst, prependMarker));
		assertThat(reversed.getReaders()).startsWith(marker);
	}

	@Test
	void configurationGoesToTheDelegateAndShowsInDecoratedReaders() {
		ServerCodecConfigurer delegate = ServerCodecConfigurer.create();
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(delegate, List.of());
		decorating.defaultCodecs().maxInMemorySize(1234);
		assertThat(decorating.getReaders()).filteredOn(DecoderHttpMessageReader.class::isInstance)
			.map((reader) -> ((DecoderHttpMessageReader<?>) reader).getDecoder())
			.filteredOn(StringDecoder.class::isInstance)
			.allSatisfy((decoder) -> assertThat(((StringDecoder) decoder).getMaxInMemorySize()).isEqualTo(1234));
		assertThat(decorating.getWriters()).hasSameSizeAs(delegate.getWriters());
	}

	@Test
	void cloneIsDecoratedToo() {
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of(prependMarker));
		ServerCodecConfigurer clone = decorating.clone();
		assertThat(clone).isInstanceOf(DecoratingServerCodecConfigurer.class);
		assertThat(clone.getReaders()).startsWith(marker);
	}

}
