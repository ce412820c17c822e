package io.fastpath.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.core.Ordered;

/**
 * Removes the {@link BlackbirdModule} that Spring Boot's standard customizer found on the
 * class path from the application's {@code JsonMapper.Builder} (it is not registered when
 * the application declares one as a bean). It runs right after Boot's standard customizer (order 0), before
 * the application's own customizers, which may still add Blackbird.
 *
 * @author Fastpath
 * @see FastpathJacksonAutoConfiguration
 */
class BlackbirdFoundOnClassPathCustomizer implements JsonMapperBuilderCustomizer, Ordered {

	private static final Log logger = LogFactory.getLog(BlackbirdFoundOnClassPathCustomizer.class);

	@Override
	public void customize(JsonMapper.Builder builder) {
		List<JacksonModule> registered = new ArrayList<>();
		builder.withModules(registered::add);
		List<JacksonModule> kept = registered.stream().filter((module) -> !(module instanceof BlackbirdModule)).toList();
		if (kept.size() < registered.size()) {
			builder.removeAllModules().addModules(kept);
			logger.debug("Blackbird found on the class path is kept out of the application's JsonMapper; "
					+ "Fastpath reads and writes with a twin that has it. Declare a BlackbirdModule bean to use it everywhere.");
		}
	}

	@Override
	public int getOrder() {
		return 1;
	}

}
