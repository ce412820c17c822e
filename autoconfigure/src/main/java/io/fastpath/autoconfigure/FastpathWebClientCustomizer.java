package io.fastpath.autoconfigure;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

import org.jspecify.annotations.Nullable;

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
 * <p>It remembers, weakly, the builders it customized and the decorators it gave them, so
 * that the {@code fastpath} endpoint and the startup line can say what is installed on a
 * builder without configuring or building on it: an application's own builder bean,
 * which this customizer never saw, is reported as such.
 *
 * @author Fastpath
 */
public class FastpathWebClientCustomizer implements WebClientCustomizer, Ordered {

	private final ObjectProvider<HttpMessageReaderDecorator> decorators;

	/** Builders customized, with the decorators given to each; weak: builders are short-lived. */
	private final Map<WebClient.Builder, List<HttpMessageReaderDecorator>> customized = Collections
		.synchronizedMap(new WeakHashMap<>());

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
			this.customized.put(builder, ordered);
		}
	}

	/**
	 * Return the decorators this customizer gave the given builder.
	 * @param builder a builder
	 * @return the decorators, in order, or {@code null} if this customizer did not
	 * customize the builder (or had no decorator to give it)
	 */
	@Nullable List<HttpMessageReaderDecorator> decoratorsOf(WebClient.Builder builder) {
		return this.customized.get(builder);
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
