package io.fastpath.form;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.result.method.annotation.ArgumentResolverConfigurer;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;

/**
 * Registers the controller argument resolvers for {@link FormParam @FormParam},
 * {@link FormParameters} and {@link RequestParameters}. Declare it as a bean in a plain
 * Spring WebFlux application; Spring Boot applications get it from Fastpath's
 * auto-configuration.
 * <p>Once the application's singletons exist, it checks the controllers' {@code @FormParam}
 * arguments: one on a plain {@code Part} or {@code FilePart} that names another field, is
 * optional or has a default fails the start, because WebFlux binds such an argument with
 * its own request part resolver, by parameter name, before any custom resolver.
 *
 * @author Fastpath
 */
public class FormArgumentsWebFluxConfigurer implements WebFluxConfigurer, SmartInitializingSingleton {

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

	@Override
	public void afterSingletonsInstantiated() {
		if (this.beanFactory != null) {
			this.beanFactory.getBeanProvider(RequestMappingHandlerMapping.class)
				.forEach((mapping) -> PlainPartArguments.check(mapping.getHandlerMethods().values(),
						ReactiveAdapterRegistry.getSharedInstance()));
		}
	}

}
