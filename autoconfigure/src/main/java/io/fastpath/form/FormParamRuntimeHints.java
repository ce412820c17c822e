package io.fastpath.form;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Native-image hints for {@link FormParam @FormParam}: Spring reads it as a merged
 * annotation through the annotation type's declared methods, and synthesizes it (its
 * {@code value} and {@code name} are aliases) as a JDK proxy of the annotation type.
 * Registered in {@code META-INF/spring/aot.factories}, so they apply with or without
 * Spring Boot.
 *
 * @author Fastpath
 */
final class FormParamRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(FormParam.class, MemberCategory.INVOKE_DECLARED_METHODS);
		hints.proxies().registerJdkProxy(FormParam.class);
	}

}
