package io.fastpath.form;

import java.util.ArrayList;
import java.util.List;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.http.codec.multipart.Part;
import org.springframework.web.bind.annotation.ValueConstants;
import org.springframework.web.method.HandlerMethod;

/**
 * Finds {@code @FormParam} arguments that WebFlux binds without asking Fastpath: a plain
 * {@code Part} or {@code FilePart} (or a {@code Mono} or {@code Flux} of one) is claimed by
 * WebFlux's {@code RequestPartMethodArgumentResolver}, which comes before every custom
 * resolver and goes by the parameter's name, required. Such an argument works as written
 * only if its annotation says just that; one that names another field, is optional or has
 * a default would be bound otherwise than it reads, so it is refused when the application
 * starts, with what to write instead.
 */
final class PlainPartArguments {

	/** As WebFlux's handler methods discover parameter names. */
	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private PlainPartArguments() {
	}

	/**
	 * Fail if any of the handler methods has a {@code @FormParam} that WebFlux would bind
	 * otherwise than it reads.
	 * @param methods the handler methods of the application
	 * @param registry the reactive types WebFlux unwraps
	 * @throws IllegalStateException naming every such argument
	 */
	static void check(Iterable<HandlerMethod> methods, ReactiveAdapterRegistry registry) {
		List<String> problems = new ArrayList<>();
		for (HandlerMethod method : methods) {
			for (MethodParameter declared : method.getMethodParameters()) {
				MethodParameter parameter = declared.clone();
				parameter.initParameterNameDiscovery(PARAMETER_NAMES);
				FormParam formParam = parameter.getParameterAnnotation(FormParam.class);
				if (formParam != null && isPlainPart(parameter, registry) && !boundAsWritten(parameter, formParam)) {
					problems.add(describe(method, parameter));
				}
			}
		}
		if (!problems.isEmpty()) {
			throw new IllegalStateException("@FormParam on a plain Part or FilePart argument is bound by WebFlux's "
					+ "own request part resolver, which comes first and reads the part named as the parameter, "
					+ "required; a field name, required = false or a default value would be ignored. Declare "
					+ "Optional<FilePart> (or List<FilePart>) for an optional or renamed file part, or name "
					+ "the parameter as the field: " + String.join(", ", problems));
		}
	}

	/** As {@code RequestPartMethodArgumentResolver} sees it: a part, maybe in a Mono or Flux. */
	private static boolean isPlainPart(MethodParameter parameter, ReactiveAdapterRegistry registry) {
		Class<?> type = parameter.getParameterType();
		ReactiveAdapter adapter = registry.getAdapter(type);
		if (adapter != null && !adapter.isNoValue()) {
			type = parameter.nested().getNestedParameterType();
		}
		return Part.class.isAssignableFrom(type);
	}

	private static boolean boundAsWritten(MethodParameter parameter, FormParam formParam) {
		String name = formParam.name();
		return formParam.required() && ValueConstants.DEFAULT_NONE.equals(formParam.defaultValue())
				&& (name.isEmpty() || name.equals(parameter.getParameterName()));
	}

	private static String describe(HandlerMethod method, MethodParameter parameter) {
		return "parameter '" + parameter.getParameterName() + "' of " + method.getBeanType().getSimpleName() + "#"
				+ method.getMethod().getName();
	}

}
