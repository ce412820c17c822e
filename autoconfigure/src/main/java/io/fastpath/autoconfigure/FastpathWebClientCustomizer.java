package io.fastpath.autoconfigure;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.fastpath.codec.DecoratingExchangeStrategies;
import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.HttpMessageWriterDecorator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.core.Ordered;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Gives a {@code WebClient.Builder} {@link DecoratingExchangeStrategies}. It runs first,
 * so that the codec customizations applied after it (Spring Boot's
 * {@code CodecCustomizer}s, the application's own {@code codecs(...)} calls) land on the
 * decorated strategies and are kept. An application that later sets its own
 * {@code exchangeStrategies(...)} replaces them, and with them Fastpath's readers and
 * writers.
 * <p>It remembers, weakly, the builders it customized and the decorators it gave them, so
 * that the {@code fastpath} endpoint and the startup line can say what is installed on a
 * builder without configuring or building on it: an application's own builder bean,
 * which this customizer never saw, is reported as such.
 *
 * @author Fastpath
 */
public class FastpathWebClientCustomizer implements WebClientCustomizer, Ordered {

	private final ObjectProvider<HttpMessageReaderDecorator> decorators;

	private final Supplier<List<HttpMessageWriterDecorator>> writerDecorators;

	/** Builders customized, with the decorators given to each; weak: builders are short-lived. */
	private final Map<WebClient.Builder, Customization> customized = Collections.synchronizedMap(new WeakHashMap<>());

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
			// Strategies of the builder's own, mutated from new defaults on every build, as
			// stock builds a client whose codecs are customized: Spring's default strategies,
			// and every copy made of them, share their codec instances, so a mapper
			// registered on one client's JSON encoder, or a limit set on its codecs, would
			// reach every client built on them.
			builder.exchangeStrategies(DecoratingExchangeStrategies.withDefaults(readerDecorators, writerDecorators));
			this.customized.put(builder, new Customization(readerDecorators, writerDecorators));
		}
	}

	/**
	 * Return the decorators this customizer gave the given builder.
	 * @param builder a builder
	 * @return the decorators, or {@code null} if this customizer did not customize the
	 * builder (or had no decorator to give it)
	 */
	@Nullable Customization customizationOf(WebClient.Builder builder) {
		return this.customized.get(builder);
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/**
	 * The decorators given to one builder, in order.
	 *
	 * @param readers the reader decorators
	 * @param writers the writer decorators
	 */
	record Customization(List<HttpMessageReaderDecorator> readers, List<HttpMessageWriterDecorator> writers) {
	}

}
