package io.fastpath.autoconfigure;

import java.util.List;

import io.fastpath.codec.DecoratingExchangeStrategies;
import io.fastpath.codec.HttpMessageReaderDecorator;

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
 * {@code exchangeStrategies(...)} replaces them, and with them Fastpath's readers.
 *
 * @author Fastpath
 */
public class FastpathWebClientCustomizer implements WebClientCustomizer, Ordered {

	private final ObjectProvider<HttpMessageReaderDecorator> decorators;

	/**
	 * Create a customizer that applies the given decorators, in their order.
	 * @param decorators the decorators, resolved when a builder is customized
	 */
	public FastpathWebClientCustomizer(ObjectProvider<HttpMessageReaderDecorator> decorators) {
		this.decorators = decorators;
	}

	@Override
	public void customize(WebClient.Builder builder) {
		List<HttpMessageReaderDecorator> ordered = this.decorators.orderedStream().toList();
		if (!ordered.isEmpty()) {
			builder.exchangeStrategies(new DecoratingExchangeStrategies(ExchangeStrategies.withDefaults(), ordered));
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
