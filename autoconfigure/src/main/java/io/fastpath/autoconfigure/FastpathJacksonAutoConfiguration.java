package io.fastpath.autoconfigure;

import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * Keeps the Blackbird module that the Fastpath starter brings out of the application's
 * {@code JsonMapper}: Spring Boot registers every module it finds on the class path
 * ({@code spring.jackson.find-and-add-modules}), which would change how the application
 * writes JSON and how its own code reads it. Fastpath reads request and response bodies
 * with a twin of the mapper that adds Blackbird ({@code fastpath.json.optimize-creators}).
 * An application that wants Blackbird everywhere declares a {@code BlackbirdModule} bean
 * (or adds it in its own {@code JsonMapperBuilderCustomizer}), and keeps it.
 * <p>Not conditional on {@code fastpath.enabled}: the module is on the class path either
 * way.
 *
 * @author Fastpath
 */
@AutoConfiguration(before = JacksonAutoConfiguration.class)
@ConditionalOnClass({ JsonMapperBuilderCustomizer.class, JsonMapper.class, BlackbirdModule.class })
public final class FastpathJacksonAutoConfiguration {

	@Bean
	BlackbirdFoundOnClassPathCustomizer fastpathBlackbirdFoundOnClassPathCustomizer(
			ObjectProvider<JacksonModule> modules) {
		return new BlackbirdFoundOnClassPathCustomizer(modules);
	}

}
