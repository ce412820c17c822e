package io.fastpath.autoconfigure;

import java.util.List;

import io.fastpath.codec.DecoratingServerCodecConfigurer;
import io.fastpath.codec.HttpMessageReaderDecorator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * Wraps the application's {@link ServerCodecConfigurer} in a
 * {@link DecoratingServerCodecConfigurer}. A post-processor rather than a
 * {@code CodecCustomizer}: a customizer can only add readers, which would shadow decoders
 * the application configured itself and change which reader wins for a type, while the
 * decorated configurer replaces stock readers in place, with their configuration.
 *
 * @author Fastpath
 */
public class ServerCodecConfigurerDecoratingPostProcessor implements BeanPostProcessor {

	private final ObjectProvider<HttpMessageReaderDecorator> decorators;

	/**
	 * Create a post-processor that applies the given decorators, in their order.
	 * @param decorators the decorators, resolved when the configurer is created
	 */
	public ServerCodecConfigurerDecoratingPostProcessor(ObjectProvider<HttpMessageReaderDecorator> decorators) {
		this.decorators = decorators;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof ServerCodecConfigurer configurer && !(bean instanceof DecoratingServerCodecConfigurer)) {
			List<HttpMessageReaderDecorator> ordered = this.decorators.orderedStream().toList();
			if (!ordered.isEmpty()) {
				return new DecoratingServerCodecConfigurer(configurer, ordered);
			}
		}
		return bean;
	}

}
