package io.fastpath.codec;

import java.util.List;

import org.springframework.http.codec.HttpMessageReader;

/**
 * Rewrites the final list of readers that a codec configurer hands out, after every
 * customization has been applied. This is how Fastpath features take the place of stock
 * readers in the exact position and with the exact configuration the application gave
 * them, which registering extra custom readers cannot do (they would shadow decoders the
 * application configured itself and change which reader wins for a type).
 * <p>Implementations must be idempotent: applied to a list they already decorated, they
 * return it unchanged.
 *
 * @author Fastpath
 * @see DecoratingServerCodecConfigurer
 * @see DecoratingExchangeStrategies
 */
@FunctionalInterface
public interface HttpMessageReaderDecorator {

	/**
	 * Return the readers to use instead of the given ones.
	 * @param readers the readers, in the order the codec configurer built them
	 * @return the readers to use, in the order to consult them
	 */
	List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers);

	/**
	 * Apply the given decorators in order.
	 * @param readers the readers to decorate
	 * @param decorators the decorators, in order
	 * @return the decorated readers
	 */
	static List<HttpMessageReader<?>> decorateAll(List<HttpMessageReader<?>> readers,
			List<? extends HttpMessageReaderDecorator> decorators) {
		List<HttpMessageReader<?>> result = readers;
		for (HttpMessageReaderDecorator decorator : decorators) {
			result = decorator.decorate(result);
		}
		return result;
	}

}
