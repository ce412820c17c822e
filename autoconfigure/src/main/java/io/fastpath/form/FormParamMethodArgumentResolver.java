package io.fastpath.form;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.beans.ConversionNotSupportedException;
import org.springframework.beans.TypeMismatchException;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.http.codec.multipart.Part;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ValueConstants;
import org.springframework.web.reactive.BindingContext;
import org.springframework.web.reactive.result.method.HandlerMethodArgumentResolverSupport;
import org.springframework.web.server.MissingRequestValueException;
import org.springframework.web.server.ServerErrorException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;

/**
 * Resolves {@link FormParam @FormParam} arguments from the request's form, urlencoded or
 * multipart, read once per request through {@code ServerWebExchange.getFormData()} or
 * {@code getMultipartData()}. Name, default value, required fields, {@code Optional} and
 * conversion are handled as WebFlux's {@code AbstractNamedValueArgumentResolver} handles
 * them for {@code @RequestParam}: one field gives its value, repeated fields give the list
 * of values, file parts give their {@code Part}s; {@code ${...}} and {@code #{...}} in
 * names and default values are resolved per request; the value is converted with a data
 * binder created for the argument, so {@code @InitBinder} methods apply. A missing
 * required field is a {@link MissingRequestValueException} (400), or a 415 if the request
 * is not a form at all.
 * <p>Unlike that base class, which chains five reactive operators per argument, an
 * argument is one operator on the request's form, cached on the exchange: what is left
 * per argument is the lookup and the conversion.
 *
 * @author Fastpath
 */
final class FormParamMethodArgumentResolver extends HandlerMethodArgumentResolverSupport {

	/** The part type of arguments bound to text fields. */
	private static final Class<?> TEXT = Void.class;

	private final @Nullable ConfigurableBeanFactory beanFactory;

	private final @Nullable BeanExpressionContext expressionContext;

	private final Map<MethodParameter, FormArgument> arguments = new ConcurrentHashMap<>();

	/**
	 * Create a resolver.
	 * @param beanFactory the bean factory that resolves {@code ${...}} placeholders and
	 * {@code #{...}} expressions in default values, or {@code null}
	 * @param adapterRegistry the registry of reactive types, to reject reactive arguments
	 */
	FormParamMethodArgumentResolver(@Nullable ConfigurableBeanFactory beanFactory,
			ReactiveAdapterRegistry adapterRegistry) {
		super(adapterRegistry);
		this.beanFactory = beanFactory;
		this.expressionContext = (beanFactory != null) ? new BeanExpressionContext(beanFactory, null) : null;
	}

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return checkAnnotatedParamNoReactiveWrapper(parameter, FormParam.class, (annotation, type) -> true);
	}

	@Override
	public Mono<Object> resolveArgument(MethodParameter parameter, BindingContext bindingContext,
			ServerWebExchange exchange) {

		FormArgument argument = argument(parameter);
		Object name = argument.hasPlainName ? argument.name : resolveEmbeddedValue(argument.name);
		if (name == null) {
			return Mono.error(new IllegalArgumentException(
					"Specified name must not resolve to null: [" + argument.name + "]"));
		}
		return RequestForm.from(exchange).handle((form, sink) -> {
			Object value = resolve(argument, name.toString(), form, parameter, bindingContext, exchange);
			if (value != null) {
				sink.next(value);
			}
		});
	}

	private FormArgument argument(MethodParameter parameter) {
		FormArgument argument = this.arguments.get(parameter);
		if (argument == null) {
			argument = new FormArgument(parameter);
			this.arguments.put(parameter, argument);
		}
		return argument;
	}

	/**
	 * What {@code AbstractNamedValueArgumentResolver} does with a present value and, in
	 * {@code getDefaultValue}, with a missing one (or one that converts to {@code null}),
	 * in one synchronous step.
	 */
	private @Nullable Object resolve(FormArgument argument, String name, RequestForm form, MethodParameter parameter,
			BindingContext bindingContext, ServerWebExchange exchange) {

		Object value = (argument.partType == TEXT) ? form.fields().valueOf(name)
				: form.partsOf(name, argument.partType);
		if (value != null) {
			if ("".equals(value) && argument.defaultValue != null) {
				value = resolveEmbeddedValue(argument.defaultValue);
			}
			Object converted = convert(value, argument, parameter, bindingContext, exchange);
			if (converted != null) {
				return converted;
			}
		}
		Object fallback = null;
		if (argument.defaultValue != null) {
			fallback = resolveEmbeddedValue(argument.defaultValue);
		}
		else if (argument.required && !parameter.isOptional()) {
			throw missingValue(name, parameter, exchange);
		}
		fallback = handleNullValue(name, fallback, parameter.getNestedParameterType());
		return convert(fallback, argument, parameter, bindingContext, exchange);
	}

	private static @Nullable Object convert(@Nullable Object value, FormArgument argument, MethodParameter parameter,
			BindingContext bindingContext, ServerWebExchange exchange) {

		WebDataBinder binder = bindingContext.createDataBinder(exchange, argument.name);
		try {
			return binder.convertIfNecessary(value, parameter.getParameterType(), parameter);
		}
		catch (ConversionNotSupportedException ex) {
			throw new ServerErrorException("Conversion not supported.", parameter, ex);
		}
		catch (TypeMismatchException ex) {
			ex.initPropertyName(argument.name);
			throw new ServerWebInputException("Type mismatch.", parameter, ex);
		}
	}

	private static RuntimeException missingValue(String name, MethodParameter parameter, ServerWebExchange exchange) {
		if (!RequestForm.isForm(exchange)) {
			return new UnsupportedMediaTypeStatusException(RequestForm.contentType(exchange), RequestForm.FORM_TYPES);
		}
		return new MissingRequestValueException(name, parameter.getNestedParameterType(), "form field", parameter);
	}

	/**
	 * As {@code AbstractNamedValueArgumentResolver}: {@code false} for a missing
	 * {@code boolean}, an error for other primitives.
	 */
	private static @Nullable Object handleNullValue(String name, @Nullable Object value, Class<?> type) {
		if (value == null) {
			if (type == boolean.class) {
				return Boolean.FALSE;
			}
			if (type.isPrimitive()) {
				throw new IllegalStateException("Optional " + type.getSimpleName() + " parameter '" + name
						+ "' is present but cannot be translated into a null value due to being declared as a "
						+ "primitive type. Consider declaring it as object wrapper for the corresponding primitive type.");
			}
		}
		return value;
	}

	/**
	 * Resolve {@code ${...}} placeholders and {@code #{...}} expressions, as
	 * {@code AbstractNamedValueArgumentResolver} does.
	 */
	private @Nullable Object resolveEmbeddedValue(String value) {
		if (this.beanFactory == null || this.expressionContext == null) {
			return value;
		}
		String placeholdersResolved = this.beanFactory.resolveEmbeddedValue(value);
		BeanExpressionResolver expressionResolver = this.beanFactory.getBeanExpressionResolver();
		if (expressionResolver == null) {
			return value;
		}
		return expressionResolver.evaluate(placeholdersResolved, this.expressionContext);
	}

	/**
	 * What is known of an argument before any request: its name, whether it is required,
	 * its default value, and whether it takes text or parts.
	 */
	private static final class FormArgument {

		private final String name;

		/** Without {@code ${} or {@code #{}, a name resolves to itself: not per request. */
		private final boolean hasPlainName;

		private final boolean required;

		private final @Nullable String defaultValue;

		private final Class<?> partType;

		FormArgument(MethodParameter parameter) {
			FormParam annotation = parameter.getParameterAnnotation(FormParam.class);
			if (annotation == null) {
				throw new IllegalStateException("No @FormParam on " + parameter);
			}
			String name = annotation.name();
			if (name.isEmpty()) {
				name = parameter.getParameterName();
				if (name == null) {
					throw new IllegalArgumentException("Name for argument of type ["
							+ parameter.getNestedParameterType().getName() + "] not specified, and parameter name "
							+ "information not available via reflection. Ensure that the compiler uses the "
							+ "'-parameters' flag.");
				}
			}
			this.name = name;
			this.hasPlainName = !name.contains("${") && !name.contains("#{");
			this.defaultValue = ValueConstants.DEFAULT_NONE.equals(annotation.defaultValue()) ? null
					: annotation.defaultValue();
			this.required = annotation.required();
			this.partType = partType(parameter.nestedIfOptional());
		}

		/**
		 * The type of part the argument takes ({@code Part}, {@code FilePart}, or the
		 * element type of a list or array of them), or {@link #TEXT} for text fields.
		 */
		private static Class<?> partType(MethodParameter parameter) {
			Class<?> type = parameter.getNestedParameterType();
			if (type.isArray()) {
				type = type.getComponentType();
			}
			else if (Collection.class.isAssignableFrom(type)) {
				type = ResolvableType.forMethodParameter(parameter).asCollection().resolveGeneric();
			}
			return (type != null && Part.class.isAssignableFrom(type)) ? type : TEXT;
		}

	}

}
