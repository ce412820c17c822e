package io.fastpath.autoconfigure;

import io.fastpath.form.FormArgumentsWebFluxConfigurer;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.config.WebFluxConfigurer;

/**
 * Auto-configuration of the {@code @FormParam}, {@code FormParameters} and
 * {@code RequestParameters} controller arguments. Unlike the codec features, it does not
 * back off with {@code fastpath.enabled=false} or {@code fastpath.form.enabled=false}:
 * controllers are written against these arguments, and they keep working on Spring's
 * stock form reader, so the same application can be run with Fastpath's codecs on and
 * off.
 *
 * @author Fastpath
 */
@AutoConfiguration(beforeName = "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(WebFluxConfigurer.class)
public final class FastpathFormArgumentsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FormArgumentsWebFluxConfigurer fastpathFormArgumentsWebFluxConfigurer(ConfigurableListableBeanFactory beanFactory) {
		return new FormArgumentsWebFluxConfigurer(beanFactory);
	}

}
