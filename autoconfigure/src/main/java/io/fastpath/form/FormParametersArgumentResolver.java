package io.fastpath.form;

import reactor.core.publisher.Mono;

import org.springframework.core.MethodParameter;
import org.springframework.web.reactive.BindingContext;
import org.springframework.web.reactive.result.method.HandlerMethodArgumentResolver;
import org.springframework.web.server.ServerWebExchange;

/**
 * Resolves controller arguments of type {@link FormParameters} (the request's form) and
 * {@link RequestParameters} (its query and form parameters), without annotation. The body
 * is read once per request, through {@code ServerWebExchange.getFormData()}.
 *
 * @author Fastpath
 */
final class FormParametersArgumentResolver implements HandlerMethodArgumentResolver {

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		Class<?> type = parameter.getParameterType();
		return type == FormParameters.class || type == RequestParameters.class;
	}

	@Override
	public Mono<Object> resolveArgument(MethodParameter parameter, BindingContext bindingContext,
			ServerWebExchange exchange) {

		if (parameter.getParameterType() == RequestParameters.class) {
			return RequestParameters.from(exchange).cast(Object.class);
		}
		return FormParameters.from(exchange).cast(Object.class);
	}

}
