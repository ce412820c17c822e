package io.fastpath.buffer;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ResourceHttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link WholeBodyAggregation}.
 */
class WholeBodyAggregationTests {

	private final WholeBodyAggregation aggregation = new WholeBodyAggregation();

	@Test
	void replacesSupportedStockReadersInPlaceAndKeepsTheRest() {
		List<HttpMessageReader<?>> stock = ServerCodecConfigurer.create().getReaders();
		List<HttpMessageReader<?>> decorated = this.aggregation.decorate(stock);
		assertThat(decorated).hasSameSizeAs(stock);
		for (int i = 0; i < stock.size(); i++) {
			HttpMessageReader<?> original = stock.get(i);
			HttpMessageReader<?> replacement = decorated.get(i);
			if (original.getClass() == DecoderHttpMessageReader.class
					&& AggregatingHttpMessageReader.supports(((DecoderHttpMessageReader<?>) original).getDecoder())) {
				assertThat(replacement).isInstanceOfSatisfying(AggregatingHttpMessageReader.class,
						(aggregating) -> assertThat(aggregating.getDelegate()).isSameAs(original));
			}
			else {
				assertThat(replacement).isSameAs(original);
			}
		}
	}

	@Test
	void decoratesStringBytesAndJacksonReadersButNotFormsOrResources() {
		List<HttpMessageReader<?>> decorated = this.aggregation.decorate(ServerCodecConfigurer.create().getReaders());
		assertThat(decorated).filteredOn(AggregatingHttpMessageReader.class::isInstance)
			.map((reader) -> ((AggregatingHttpMessageReader<?>) reader).getDelegate().getDecoder())
			.hasAtLeastOneElementOfType(StringDecoder.class)
			.hasAtLeastOneElementOfType(JacksonJsonDecoder.class);
		assertThat(decorated).hasAtLeastOneElementOfType(FormHttpMessageReader.class)
			.hasAtLeastOneElementOfType(ResourceHttpMessageReader.class);
	}

	@Test
	void leavesAlreadyDecoratedReadersAlone() {
		List<HttpMessageReader<?>> once = this.aggregation.decorate(ServerCodecConfigurer.create().getReaders());
		List<HttpMessageReader<?>> twice = this.aggregation.decorate(once);
		assertThat(twice).hasSameSizeAs(once);
		for (int i = 0; i < once.size(); i++) {
			assertThat(twice.get(i)).isSameAs(once.get(i));
		}
	}

}
