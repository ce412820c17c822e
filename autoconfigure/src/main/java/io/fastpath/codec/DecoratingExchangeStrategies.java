package io.fastpath.codec;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.springframework.http.codec.ClientCodecConfigurer;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.util.Assert;
import org.springframework.web.reactive.function.client.ExchangeStrategies;

/**
 * {@link ExchangeStrategies} whose readers are the delegate's, rewritten by
 * {@link HttpMessageReaderDecorator}s, whose writers are the delegate's, rewritten by
 * {@link HttpMessageWriterDecorator}s, and whose {@link #mutate()} builder produces
 * decorated strategies again. Set on a {@code WebClient.Builder} before its codecs are
 * customized, it keeps every later {@code codecs(...)} customization and decorates the
 * result, so response bodies ({@code bodyToMono}, {@code toEntity}, ...) are read through
 * the decorated readers and request bodies ({@code body(flux, T.class)}) written through
 * the decorated writers.
 * <p>Strategies made {@linkplain #withDefaults(List, List) of Spring's defaults} are
 * mutated from new defaults each time, as a {@code WebClient.Builder} given no strategies
 * builds its clients from new ones: a copy of the delegate would share with the delegate,
 * and with every other copy, the codec instances that Spring's configurer creates once
 * and keeps (the JSON codecs, among others), and a limit or setting applied to a copy's
 * codecs would reach them all.
 *
 * @author Fastpath
 */
public final class DecoratingExchangeStrategies implements ExchangeStrategies {

	/**
	 * Gives the builder that {@link #mutate()} decorates: the delegate's own, or one of
	 * new defaults.
	 */
	private final Supplier<Builder> mutation;

	private final List<? extends HttpMessageReaderDecorator> decorators;

	private final List<? extends HttpMessageWriterDecorator> writerDecorators;

	private final List<HttpMessageReader<?>> readers;

	private final List<HttpMessageWriter<?>> writers;

	/**
	 * Decorate the given strategies' readers.
	 * @param delegate the strategies that hold the configuration
	 * @param decorators the decorators to apply to their readers, in order
	 */
	public DecoratingExchangeStrategies(ExchangeStrategies delegate,
			List<? extends HttpMessageReaderDecorator> decorators) {
		this(delegate, decorators, List.of());
	}

	/**
	 * Decorate the given strategies' readers and writers.
	 * @param delegate the strategies that hold the configuration
	 * @param readerDecorators the decorators to apply to their readers, in order
	 * @param writerDecorators the decorators to apply to their writers, in order
	 */
	public DecoratingExchangeStrategies(ExchangeStrategies delegate,
			List<? extends HttpMessageReaderDecorator> readerDecorators,
			List<? extends HttpMessageWriterDecorator> writerDecorators) {
		this(delegate, () -> delegate.mutate(), readerDecorators, writerDecorators);
	}

	private DecoratingExchangeStrategies(ExchangeStrategies delegate, Supplier<Builder> mutation,
			List<? extends HttpMessageReaderDecorator> readerDecorators,
			List<? extends HttpMessageWriterDecorator> writerDecorators) {
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(readerDecorators, "'readerDecorators' must not be null");
		Assert.notNull(writerDecorators, "'writerDecorators' must not be null");
		this.mutation = mutation;
		this.decorators = List.copyOf(readerDecorators);
		this.writerDecorators = List.copyOf(writerDecorators);
		this.readers = List.copyOf(HttpMessageReaderDecorator.decorateAll(delegate.messageReaders(), this.decorators));
		this.writers = List
			.copyOf(HttpMessageWriterDecorator.decorateAll(delegate.messageWriters(), this.writerDecorators));
	}

	/**
	 * Decorate the readers and writers of Spring's default strategies, mutated from new
	 * defaults each time.
	 * @param readerDecorators the decorators to apply to the readers, in order
	 * @param writerDecorators the decorators to apply to the writers, in order
	 * @return the strategies
	 */
	public static DecoratingExchangeStrategies withDefaults(
			List<? extends HttpMessageReaderDecorator> readerDecorators,
			List<? extends HttpMessageWriterDecorator> writerDecorators) {
		return new DecoratingExchangeStrategies(ExchangeStrategies.builder().build(), ExchangeStrategies::builder,
				readerDecorators, writerDecorators);
	}

	@Override
	public List<HttpMessageReader<?>> messageReaders() {
		return this.readers;
	}

	@Override
	public List<HttpMessageWriter<?>> messageWriters() {
		return this.writers;
	}

	@Override
	public Builder mutate() {
		return new DecoratingBuilder(this.mutation.get(), this.decorators, this.writerDecorators);
	}

	private static final class DecoratingBuilder implements Builder {

		private final Builder delegate;

		private final List<? extends HttpMessageReaderDecorator> decorators;

		private final List<? extends HttpMessageWriterDecorator> writerDecorators;

		DecoratingBuilder(Builder delegate, List<? extends HttpMessageReaderDecorator> decorators,
				List<? extends HttpMessageWriterDecorator> writerDecorators) {
			this.delegate = delegate;
			this.decorators = decorators;
			this.writerDecorators = writerDecorators;
		}

		@Override
		public Builder codecs(Consumer<ClientCodecConfigurer> consumer) {
			this.delegate.codecs(consumer);
			return this;
		}

		@Override
		public ExchangeStrategies build() {
			return new DecoratingExchangeStrategies(this.delegate.build(), this.decorators, this.writerDecorators);
		}

	}

}
