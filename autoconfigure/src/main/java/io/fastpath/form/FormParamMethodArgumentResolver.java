package io.fastpath.form;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.http.codec.multipart.Part;
import org.springframework.web.reactive.result.method.annotation.AbstractNamedValueArgumentResolver;
import org.springframework.web.server.MissingRequestValueException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;

/**
 * Resolves {@link FormParam @FormParam} arguments from the request's form, urlencoded or
 * multipart, read once per request through {@code ServerWebExchange.getFormData()} or
 * {@code getMultipartData()}. Name, default value, required fields, {@code Optional} and
 * conversion are handled as for WebFlux's {@code @RequestParam}: one field gives its
 * value, repeated fields give the list of values; file parts give their {@code Part}s. A
 * missing required field is a {@link MissingRequestValueException} (400), or a 415 if the
 * request is not a form at all.
 *
 * @author Fastpath
 */
public class FormParamMethodArgumentResolver extends AbstractNamedValueArgumentResolver {

	/** The part type of arguments bound to text fields. */
	private static final Class<?> TEXT = Void.class;

	private final Map<MethodParameter, Class<?>> partTypes = new ConcurrentHashMap<>();

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
		Class<?> partType = partType(parameter);
		if (partType == TEXT) {
			return RequestForm.from(exchange).mapNotNull((form) -> form.fields().valueOf(name));
		}
		return RequestForm.from(exchange).mapNotNull((form) -> form.partsOf(name, partType));
	}

	/**
	 * The type of part the argument takes ({@code Part}, {@code FilePart}, or the element
	 * type of a list or array of them), or {@link #TEXT} for text fields.
	 */
	private Class<?> partType(MethodParameter parameter) {
		Class<?> type = this.partTypes.get(parameter);
		if (type == null) {
			type = findPartType(parameter);
			this.partTypes.put(parameter, type);
		}
		return type;
	}

	private static Class<?> findPartType(MethodParameter parameter) {
		Class<?> type = parameter.getNestedParameterType();
		if (type.isArray()) {
			type = type.getComponentType();
		}
		else if (Collection.class.isAssignableFrom(type)) {
			type = ResolvableType.forMethodParameter(parameter).asCollection().resolveGeneric();
		}
		return (type != null && Part.class.isAssignableFrom(type)) ? type : TEXT;
	}

	@Override
	protected void handleMissingValue(String name, MethodParameter parameter, ServerWebExchange exchange) {
		if (!RequestForm.isForm(exchange)) {
			throw new UnsupportedMediaTypeStatusException(RequestForm.contentType(exchange), RequestForm.FORM_TYPES);
		}
		throw new MissingRequestValueException(name, parameter.getNestedParameterType(), "form field", parameter);
	}

}
