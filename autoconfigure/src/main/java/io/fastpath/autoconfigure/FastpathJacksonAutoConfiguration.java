package io.fastpath.autoconfigure;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * Keeps the Blackbird module that the Fastpath starter brings out of the application's
 * {@code JsonMapper} while Fastpath reads (and writes) JSON with a twin of that mapper that
 * adds it ({@code fastpath.json.optimize-creators}): Spring Boot registers every module it finds
 * on the class path ({@code spring.jackson.find-and-add-modules}), which would change how
 * the application writes JSON and how its own code reads it.
 * <p>Only while there is a twin to hand Blackbird to: with {@code fastpath.enabled},
 * {@code fastpath.json.enabled} or {@code fastpath.json.optimize-creators} false, or
 * another preferred JSON mapper, the application's mapper is Boot's, Blackbird found on
 * the class path included. An application that wants Blackbird everywhere declares a
 * {@code BlackbirdModule} bean, and this backs off.
 *
 * @author Fastpath
 */
@AutoConfiguration(before = JacksonAutoConfiguration.class)
@ConditionalOnClass({ JsonMapperBuilderCustomizer.class, JsonMapper.class, BlackbirdModule.class })
@ConditionalOnBooleanProperty(name = "fastpath.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "fastpath.json.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "fastpath.json.optimize-creators", matchIfMissing = true)
@ConditionalOnProperty(name = "spring.http.codecs.preferred-json-mapper", havingValue = "jackson",
		matchIfMissing = true)
public final class FastpathJacksonAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(BlackbirdModule.class)
	BlackbirdFoundOnClassPathCustomizer fastpathBlackbirdFoundOnClassPathCustomizer() {
		return new BlackbirdFoundOnClassPathCustomizer();
	}

}
