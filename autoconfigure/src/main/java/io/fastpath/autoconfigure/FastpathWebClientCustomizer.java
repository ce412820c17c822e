package io.fastpath.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import io.fastpath.codec.DecoratingExchangeStrategies;
import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.HttpMessageWriterDecorator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.core.Ordered;
import org.springframework.web.reactive.function.client.ExchangeStrategies;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Gives a {@code WebClient.Builder} {@link DecoratingExchangeStrategies}. It runs first,
 * so that the codec customizations applied after it (Spring Boot's
 * {@code CodecCustomizer}s, the application's own {@code codecs(...)} calls) land on the
 * decorated strategies and are kept. An application that later sets its own
 * {@code exchangeStrategies(...)} replaces them, and with them Fastpath's readers and
 * writers.
 *
 * @author Fastpath
 */
public class FastpathWebClientCustomizer implements WebClientCustomizer, Ordered {

	private final ObjectProvider<HttpMessageReaderDecorator> decorators;

	private final Supplier<List<HttpMessageWriterDecorator>> writerDecorators;

	/**
	 * Create a customizer that applies the given reader decorators, in their order.
	 * @param decorators the decorators, resolved when a builder is customized
	 */
	public FastpathWebClientCustomizer(ObjectProvider<HttpMessageReaderDecorator> decorators) {
		this.decorators = decorators;
		this.writerDecorators = List::of;
	}

	/**
	 * Create a customizer that applies the given reader and writer decorators, in their
	 * order.
	 * @param readerDecorators the reader decorators, resolved when a builder is customized
	 * @param writerDecorators the writer decorators, likewise
	 */
	public FastpathWebClientCustomizer(ObjectProvider<HttpMessageReaderDecorator> readerDecorators,
			ObjectProvider<HttpMessageWriterDecorator> writerDecorators) {
		this.decorators = readerDecorators;
		this.writerDecorators = () -> writerDecorators.orderedStream().toList();
	}

	@Override
	public void customize(WebClient.Builder builder) {
		List<HttpMessageReaderDecorator> readerDecorators = this.decorators.orderedStream().toList();
		List<HttpMessageWriterDecorator> writerDecorators = this.writerDecorators.get();
		if (!readerDecorators.isEmpty() || !writerDecorators.isEmpty()) {
			builder.exchangeStrategies(new DecoratingExchangeStrategies(ExchangeStrategies.withDefaults(),
					readerDecorators, writerDecorators));
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
