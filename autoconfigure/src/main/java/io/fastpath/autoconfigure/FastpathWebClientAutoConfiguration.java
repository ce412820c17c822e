package io.fastpath.autoconfigure;

import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.HttpMessageWriterDecorator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Auto-configuration that applies Fastpath's reader and writer decorators to the
 * {@code WebClient.Builder} that Spring Boot auto-configures, so that response bodies
 * read with {@code bodyToMono}, {@code toEntity} and friends, and request bodies written
 * from a {@code Flux}, take Fastpath's paths.
 *
 * @author Fastpath
 */
@AutoConfiguration(after = FastpathAutoConfiguration.class,
		beforeName = "org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration")
@ConditionalOnClass({ WebClient.class, WebClientCustomizer.class })
@ConditionalOnBooleanProperty(name = "fastpath.enabled", matchIfMissing = true)
public final class FastpathWebClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FastpathWebClientCustomizer fastpathWebClientCustomizer(ObjectProvider<HttpMessageReaderDecorator> decorators,
			ObjectProvider<HttpMessageWriterDecorator> writerDecorators) {
		return new FastpathWebClientCustomizer(decorators, writerDecorators);
	}

}
