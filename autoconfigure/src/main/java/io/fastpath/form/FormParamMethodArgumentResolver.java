package io.fastpath.form;

import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.web.reactive.result.method.annotation.AbstractNamedValueArgumentResolver;
import org.springframework.web.server.MissingRequestValueException;
import org.springframework.web.server.ServerWebExchange;

/**
 * Resolves {@link FormParam @FormParam} arguments from the request's form, read once per
 * request through {@code ServerWebExchange.getFormData()}. Name, default value, required
 * fields, {@code Optional} and conversion are handled as for WebFlux's
 * {@code @RequestParam}: one field gives its value, repeated fields give the list of
 * values; a missing required field is a {@link MissingRequestValueException} (400).
 *
 * @author Fastpath
 */
public class FormParamMethodArgumentResolver extends AbstractNamedValueArgumentResolver {

	/**
	 * Create a resolver.
	 * @param beanFactory the bean factory that resolves {@code ${...}} placeholders and
	 * {@code #{...}} expressions in default values, or {@code null}
	 * @param adapterRegistry the registry of reactive types, to reject reactive arguments
	 */
	public FormParamMethodArgumentResolver(@Nullable ConfigurableBeanFactory beanFactory,
			ReactiveAdapterRegistry adapterRegistry) {
		super(beanFactory, adapterRegistry);
	}

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return checkAnnotatedParamNoReactiveWrapper(parameter, FormParam.class, (annotation, type) -> true);
	}

	@Override
	protected NamedValueInfo createNamedValueInfo(MethodParameter parameter) {
		FormParam annotation = parameter.getParameterAnnotation(FormParam.class);
		if (annotation == null) {
			throw new IllegalStateException("No @FormParam on " + parameter);
		}
		return new NamedValueInfo(annotation.name(), annotation.required(), annotation.defaultValue());
	}

	@Override
	protected Mono<Object> resolveName(String name, MethodParameter parameter, ServerWebExchange exchange) {
		return FormParameters.from(exchange).mapNotNull(form -> {
			List<@Nullable String> values = form.getAll(name);
			if (values.isEmpty()) {
				return null;
			}
			return (values.size() == 1 ? values.get(0) : values);
		});
	}

	@Override
	protected void handleMissingValue(String name, MethodParameter parameter, ServerWebExchange exchange) {
		throw new MissingRequestValueException(name, parameter.getNestedParameterType(), "form field", parameter);
	}

}
