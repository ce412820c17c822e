package io.fastpath.codec;

import java.util.List;

import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.util.Assert;

/**
 * A {@link ServerCodecConfigurer} whose {@link #getReaders()} are the delegate's,
 * rewritten by {@link HttpMessageReaderDecorator}s. Everything that asks the server's
 * configurer for readers (annotated controllers, functional endpoints,
 * {@code ServerWebExchange#getFormData()}) then sees the decorated list, while all
 * configuration still goes to, and is kept by, the delegate.
 * <p>Plain Spring WebFlux applications can expose one as their {@code ServerCodecConfigurer}
 * bean; Spring Boot applications get it from Fastpath's auto-configuration.
 *
 * @author Fastpath
 */
public final class DecoratingServerCodecConfigurer implements ServerCodecConfigurer {

	private final ServerCodecConfigurer delegate;

	private final List<? extends HttpMessageReaderDecorator> decorators;

	/**
	 * Decorate the given configurer.
	 * @param delegate the configurer that holds the configuration
	 * @param decorators the decorators to apply to its readers, in order
	 */
	public DecoratingServerCodecConfigurer(ServerCodecConfigurer delegate,
			List<? extends HttpMessageReaderDecorator> decorators) {
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(decorators, "'decorators' must not be null");
		this.delegate = delegate;
		this.decorators = List.copyOf(decorators);
	}

	@Override
	public ServerDefaultCodecs defaultCodecs() {
		return this.delegate.defaultCodecs();
	}

	@Override
	public CustomCodecs customCodecs() {
		return this.delegate.customCodecs();
	}

	@Override
	public void registerDefaults(boolean registerDefaults) {
		this.delegate.registerDefaults(registerDefaults);
	}

	@Override
	public List<HttpMessageReader<?>> getReaders() {
		return HttpMessageReaderDecorator.decorateAll(this.delegate.getReaders(), this.decorators);
	}

	@Override
	public List<HttpMessageWriter<?>> getWriters() {
		return this.delegate.getWriters();
	}

	@Override
	public ServerCodecConfigurer clone() {
		return new DecoratingServerCodecConfigurer(this.delegate.clone(), this.decorators);
	}

	/**
	 * Return the configurer that holds the configuration.
	 * @return the delegate
	 */
	public ServerCodecConfigurer getDelegate() {
		return this.delegate;
	}

}
