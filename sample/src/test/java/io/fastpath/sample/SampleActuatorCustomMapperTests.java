package io.fastpath.sample;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample with a customized application mapper (setters required for getters, names
 * in snake case) answers its Actuator endpoints as it does on stock Spring: Actuator
 * writes with its own mapper, which Boot registers on the server's JSON encoder, and
 * Fastpath's JSON writer writes with it. Written with the application's mapper, Actuator's
 * descriptors (getters only) would come out as {@code {}}. The sample runs twice, on
 * Fastpath and with {@code fastpath.enabled=false}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SampleActuatorCustomMapperTests {

	private ConfigurableApplicationContext fastpath;

	private ConfigurableApplicationContext stock;

	@BeforeAll
	void startBoth() {
		this.fastpath = start(true);
		this.stock = start(false);
		assertThat(this.fastpath.getBean(ServerCodecConfigurer.class).getClass().getName())
			.isEqualTo("io.fastpath.codec.DecoratingServerCodecConfigurer");
		assertThat(this.stock.getBean(ServerCodecConfigurer.class).getClass().getName())
			.doesNotStartWith("io.fastpath");
	}

	@AfterAll
	void stopBoth() {
		this.fastpath.close();
		this.stock.close();
	}

	@Test
	void healthIsAnsweredAsOnStock() {
		String stockHealth = get(this.stock, "/actuator/health");
		assertThat(stockHealth).contains("\"status\":\"UP\"");
		assertThat(get(this.fastpath, "/actuator/health")).isEqualTo(stockHealth);
	}

	@Test
	void metricIsAnsweredAsOnStock() {
		String stockMetric = get(this.stock, "/actuator/metrics/jvm.info");
		assertThat(stockMetric).contains("\"availableTags\":");
		assertThat(get(this.fastpath, "/actuator/metrics/jvm.info")).isEqualTo(stockMetric);
	}

	/** Each run's own startup: the same fields, with values of its own. */
	@Test
	void startupTimelineHasStocksFields() {
		Set<String> stockFields = fields(get(this.stock, "/actuator/startup"));
		assertThat(stockFields).contains("$.springBootVersion", "$.timeline.events[].startupStep.name");
		assertThat(fields(get(this.fastpath, "/actuator/startup"))).isEqualTo(stockFields);
	}

	private static ConfigurableApplicationContext start(boolean fastpathEnabled) {
		return new SpringApplicationBuilder(SampleApplication.class)
			.applicationStartup(new BufferingApplicationStartup(4096))
			.run("--fastpath.enabled=" + fastpathEnabled, "--server.port=0",
					"--management.endpoints.web.exposure.include=health,metrics,startup",
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

}
