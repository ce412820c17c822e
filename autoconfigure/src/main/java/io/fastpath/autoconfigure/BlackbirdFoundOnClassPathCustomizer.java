package io.fastpath.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.core.Ordered;

/**
 * Removes the {@link BlackbirdModule} that Spring Boot's standard customizer found on the
 * class path from the application's {@code JsonMapper.Builder}, unless the application
 * declared one as a bean. It runs right after Boot's standard customizer (order 0), before
 * the application's own customizers, which may still add Blackbird.
 *
 * @author Fastpath
 * @see FastpathJacksonAutoConfiguration
 */
class BlackbirdFoundOnClassPathCustomizer implements JsonMapperBuilderCustomizer, Ordered {

	private static final Log logger = LogFactory.getLog(BlackbirdFoundOnClassPathCustomizer.class);

	private final ObjectProvider<JacksonModule> modules;

	BlackbirdFoundOnClassPathCustomizer(ObjectProvider<JacksonModule> modules) {
		this.modules = modules;
	}

	@Override
	public void customize(JsonMapper.Builder builder) {
		if (this.modules.stream().anyMatch(BlackbirdModule.class::isInstance)) {
			return;
		}
		List<JacksonModule> registered = new ArrayList<>();
		builder.withModules(registered::add);
		List<JacksonModule> kept = registered.stream().filter((module) -> !(module instanceof BlackbirdModule)).toList();
		if (kept.size() < registered.size()) {
			builder.removeAllModules().addModules(kept);
			logger.debug("Blackbird found on the class path is kept out of the application's JsonMapper; "
					+ "Fastpath reads with a twin that has it. Declare a BlackbirdModule bean to use it everywhere.");
		}
	}

	@Override
	public int getOrder() {
		return 1;
	}

}
