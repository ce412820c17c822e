package io.fastpath.codec;

import java.util.List;
import java.util.function.Consumer;

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
 *
 * @author Fastpath
 */
public final class DecoratingExchangeStrategies implements ExchangeStrategies {

	private final ExchangeStrategies delegate;

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
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(readerDecorators, "'readerDecorators' must not be null");
		Assert.notNull(writerDecorators, "'writerDecorators' must not be null");
		this.delegate = delegate;
		this.decorators = List.copyOf(readerDecorators);
		this.writerDecorators = List.copyOf(writerDecorators);
		this.readers = List.copyOf(HttpMessageReaderDecorator.decorateAll(delegate.messageReaders(), this.decorators));
		this.writers = List
			.copyOf(HttpMessageWriterDecorator.decorateAll(delegate.messageWriters(), this.writerDecorators));
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
		return new DecoratingBuilder(this.delegate.mutate(), this.decorators, this.writerDecorators);
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
