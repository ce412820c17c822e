package io.fastpath.integration;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.fastpath.codec.DecoratingServerCodecConfigurer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with Actuator whose own mapper is customized answers its Actuator
 * endpoints with Fastpath as it does with {@code fastpath.enabled=false}: Actuator writes
 * its responses with a mapper of its own, which Spring Boot registers on the server's
 * JSON encoder. The application's mapper requires setters for getters and names in snake
 * case: written with it, Actuator's descriptors (which have getters only) come out as
 * {@code {}}. Two applications run side by side, one on Fastpath, one on stock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ActuatorIntegrationTests {

	private ConfigurableApplicationContext fastpath;

	private ConfigurableApplicationContext stock;

	@BeforeAll
	void startBoth() {
		this.fastpath = start(true);
		this.stock = start(false);
	}

	@AfterAll
	void stopBoth() {
		this.fastpath.close();
		this.stock.close();
	}

	@Test
	void theApplicationsRunOnFastpathAndOnStock() {
		assertThat(this.fastpath.getBean(ServerCodecConfigurer.class))
			.isInstanceOf(DecoratingServerCodecConfigurer.class);
		assertThat(this.stock.getBean(ServerCodecConfigurer.class))
			.isNotInstanceOf(DecoratingServerCodecConfigurer.class);
	}

	/** Each application's own startup: the same fields, with values of its own. */
	@Test
	void startupTimelineHasStocksFields() {
		Set<String> stockFields = fields(get(this.stock, "/actuator/startup"));
		assertThat(stockFields).contains("$.springBootVersion", "$.timeline.events[].startupStep.name");
		assertThat(fields(get(this.fastpath, "/actuator/startup"))).isEqualTo(stockFields);
	}

	@Test
	void metricIsAnsweredAsOnStock() {
		String stockMetric = get(this.stock, "/actuator/metrics/jvm.info");
		assertThat(stockMetric).contains("\"availableTags\":");
		assertThat(get(this.fastpath, "/actuator/metrics/jvm.info")).isEqualTo(stockMetric);
	}

	/**
	 * A logger's levels: Actuator's descriptor of them has getters only, named in camel
	 * case, which the application's mapper would not write as they are.
	 */
	@Test
	void loggerLevelsAreAnsweredAsOnStock() {
		String stockLevels = get(this.stock, "/actuator/loggers/io.fastpath.integration");
		assertThat(stockLevels).isEqualTo("{\"configuredLevel\":\"WARN\",\"effectiveLevel\":\"WARN\"}");
		assertThat(get(this.fastpath, "/actuator/loggers/io.fastpath.integration")).isEqualTo(stockLevels);
	}

	private static ConfigurableApplicationContext start(boolean fastpathEnabled) {
		return new SpringApplicationBuilder(ActuatorApplication.class)
			.applicationStartup(new BufferingApplicationStartup(4096))
			.run("--fastpath.enabled=" + fastpathEnabled, "--server.port=0",
					"--spring.autoconfigure.exclude=" + RealServerTests.TOMCAT + "," + RealServerTests.JETTY,
					"--management.endpoints.web.exposure.include=loggers,metrics,startup",
					"--logging.level.io.fastpath.integration=WARN",
					"--spring.jackson.mapper.require-setters-for-getters=true",
					"--spring.jackson.property-naming-strategy=SNAKE_CASE");
	}

	private static String get(ConfigurableApplicationContext context, String path) {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		String body = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + port)
			.build()
			.get()
			.uri(path)
			.accept(MediaType.APPLICATION_JSON)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(body).isNotNull();
		return body;
	}

	/** The paths of every field in the JSON, array elements as {@code []}. */
	private static Set<String> fields(String json) {
		Set<String> fields = new TreeSet<>();
		collectFields(JsonMapper.shared().readTree(json), "$", fields);
		return fields;
	}

	private static void collectFields(JsonNode node, String path, Set<String> fields) {
		fields.add(path);
		if (node.isObject()) {
			for (Map.Entry<String, JsonNode> field : node.properties()) {
				collectFields(field.getValue(), path + "." + field.getKey(), fields);
			}
		}
		else if (node.isArray()) {
			for (JsonNode element : node.values()) {
				collectFields(element, path + "[]", fields);
			}
		}
	}

	/**
	 * An application of Boot's auto-configuration only: Actuator, WebFlux, Jackson, Fastpath.
	 * Not a {@code @SpringBootConfiguration} (nor a component), which the other tests of
	 * this package would find beside {@link FastpathTestApplication}.
	 */
	@EnableAutoConfiguration
	static class ActuatorApplication {

	}

}
