package io.fastpath.form;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.result.method.annotation.ArgumentResolverConfigurer;

/**
 * Registers the controller argument resolvers for {@link FormParam @FormParam},
 * {@link FormParameters} and {@link RequestParameters}. Declare it as a bean in a plain
 * Spring WebFlux application; Spring Boot applications get it from Fastpath's
 * auto-configuration.
 *
 * @author Fastpath
 */
public class FormArgumentsWebFluxConfigurer implements WebFluxConfigurer {

	private final @Nullable ConfigurableBeanFactory beanFactory;

	/**
	 * Create a configurer.
	 * @param beanFactory the bean factory that resolves placeholders and expressions in
	 * {@code @FormParam} default values, or {@code null}
	 */
	public FormArgumentsWebFluxConfigurer(@Nullable ConfigurableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void configureArgumentResolvers(ArgumentResolverConfigurer configurer) {
		// WebFlux's own registry bean lives in the configuration that consumes configurers,
		// so it cannot be injected here; the shared instance knows the same reactive types.
		configurer.addCustomResolver(
				new FormParamMethodArgumentResolver(this.beanFactory, ReactiveAdapterRegistry.getSharedInstance()),
				new FormParametersArgumentResolver());
	}

}
