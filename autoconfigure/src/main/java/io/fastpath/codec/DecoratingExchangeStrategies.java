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
 * {@link HttpMessageReaderDecorator}s, and whose {@link #mutate()} builder produces
 * decorated strategies again. Set on a {@code WebClient.Builder} before its codecs are
 * customized, it keeps every later {@code codecs(...)} customization and decorates the
 * result, so response bodies ({@code bodyToMono}, {@code toEntity}, ...) are read through
 * the decorated readers.
 *
 * @author Fastpath
 */
public final class DecoratingExchangeStrategies implements ExchangeStrategies {

	private final ExchangeStrategies delegate;

	private final List<? extends HttpMessageReaderDecorator> decorators;

	private final List<HttpMessageReader<?>> readers;

	/**
	 * Decorate the given strategies.
	 * @param delegate the strategies that hold the configuration
	 * @param decorators the decorators to apply to their readers, in order
	 */
	public DecoratingExchangeStrategies(ExchangeStrategies delegate,
			List<? extends HttpMessageReaderDecorator> decorators) {
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(decorators, "'decorators' must not be null");
		this.delegate = delegate;
		this.decorators = List.copyOf(decorators);
		this.readers = List.copyOf(HttpMessageReaderDecorator.decorateAll(delegate.messageReaders(), this.decorators));
	}

	@Override
	public List<HttpMessageReader<?>> messageReaders() {
		return this.readers;
	}

	@Override
	public List<HttpMessageWriter<?>> messageWriters() {
		return this.delegate.messageWriters();
	}

	@Override
	public Builder mutate() {
		return new DecoratingBuilder(this.delegate.mutate(), this.decorators);
	}

	private static final class DecoratingBuilder implements Builder {

		private final Builder delegate;

		private final List<? extends HttpMessageReaderDecorator> decorators;

		DecoratingBuilder(Builder delegate, List<? extends HttpMessageReaderDecorator> decorators) {
			this.delegate = delegate;
			this.decorators = decorators;
		}

		@Override
		public Builder codecs(Consumer<ClientCodecConfigurer> consumer) {
			this.delegate.codecs(consumer);
			return this;
		}

		@Override
		public ExchangeStrategies build() {
			return new DecoratingExchangeStrategies(this.delegate.build(), this.decorators);
		}

	}

}
