package io.fastpath.form;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;
import org.springframework.web.bind.annotation.ValueConstants;

/**
 * Binds a field of an {@code application/x-www-form-urlencoded} or
 * {@code multipart/form-data} request body to a controller method argument, as
 * {@code @RequestParam} does for query parameters in WebFlux. The value is converted with
 * the application's conversion service: strings, numbers, booleans, enums, {@code List<T>}
 * (every field with the name), arrays and {@code Optional<T>}; in a multipart form, a text
 * field's value is its part's content in the part's charset. File parts bind to
 * {@code Optional<FilePart>}, {@code List<FilePart>} and the like ({@code Part} for any
 * part that is not a text field); a plain {@code Part} or {@code FilePart} argument is
 * bound by WebFlux's own request part resolver, which runs first and goes by the
 * parameter's name, required: on such an argument a field name other than the
 * parameter's, {@code required = false} or a default value fail the application's start
 * (see {@link FormArgumentsWebFluxConfigurer}). A missing required field is answered with 400 Bad Request naming the
 * field, or 415 if the request is not a form. A {@link FormParameters} or
 * {@link RequestParameters} argument, without annotation, receives the whole form.
 * <p>The body is read once per request, through {@code ServerWebExchange.getFormData()}
 * or {@code getMultipartData()}, so Spring's limits apply
 * ({@code spring.webflux.multipart.*} for multipart forms).
 *
 * @author Fastpath
 * @see FormArgumentsWebFluxConfigurer
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FormParam {

	/**
	 * Alias for {@link #name}.
	 * @return the field name
	 */
	@AliasFor("name")
	String value() default "";

	/**
	 * The name of the form field to bind to; defaults to the parameter name.
	 * @return the field name
	 */
	@AliasFor("value")
	String name() default "";

	/**
	 * Whether the field is required: a missing required field is a 400, a missing
	 * optional one is {@code null} (or an empty {@code Optional}).
	 * @return whether the field is required
	 */
	boolean required() default true;

	/**
	 * The value to use when the field is missing or empty; setting it makes the field
	 * optional.
	 * @return the default value
	 */
	String defaultValue() default ValueConstants.DEFAULT_NONE;

}
