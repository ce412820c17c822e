package io.fastpath.autoconfigure;

import java.util.List;
import java.util.Map;

import io.fastpath.codec.DecoratingServerCodecConfigurer;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.AbstractBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.actuate.web.WebFluxEndpointManagementContextConfiguration;
import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Actuator's responses are written with Actuator's own mapper when Fastpath writes JSON,
 * whichever is post-processed first: Fastpath's decoration of the server's codec
 * configurer, or Spring Boot's registration of that mapper on the configurer's
 * {@code JacksonJsonEncoder} ({@code WebFluxEndpointManagementContextConfiguration}'s
 * post-processor). The application's mapper requires setters for getters, so it writes
 * the test's response body, which has only a getter, as {@code {}}; Actuator's mapper
 * writes its property.
 */
class ActuatorJsonMapperTests {

	private static final String FASTPATH_POST_PROCESSOR = ServerCodecConfigurerDecoratingPostProcessor.class.getName();

	private static final String BOOT_POST_PROCESSOR = WebFluxEndpointManagementContextConfiguration.class.getName()
			+ "$ServerCodecConfigurerEndpointJsonMapperBeanPostProcessor";

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
				WebFluxAutoConfiguration.class))
		.withPropertyValues("spring.jackson.mapper.require-setters-for-getters=true");

	/** As in an application: Actuator's WebFlux configuration comes after the auto-configurations. */
	private final ReactiveWebApplicationContextRunner actuatorAfterFastpath = this.contextRunner
		.withConfiguration(AutoConfigurations.of(FastpathAutoConfiguration.class,
				FastpathWebFluxAutoConfiguration.class, EndpointAutoConfiguration.class,
				WebEndpointAutoConfiguration.class, JacksonEndpointAutoConfiguration.class,
				ManagementContextAutoConfiguration.class));

	@Test
	void actuatorResponsesAreWrittenWithActuatorsMapperWhenFastpathDecoratesTheConfigurerFirst() {
		this.actuatorAfterFastpath.run((context) -> {
			assertThat(postProcessorOrder(context)).containsExactly(FASTPATH_POST_PROCESSOR, BOOT_POST_PROCESSOR);
			assertWrittenWithActuatorsMapper(context);
		});
	}

	@Test
	void actuatorResponsesAreWrittenWithActuatorsMapperWhenBootRegistersItFirst() {
		// Configuration classes given as the application's own are registered in their order
		// (and before the auto-configurations): Actuator's WebFlux configuration before Fastpath's.
		this.contextRunner
			.withUserConfiguration(EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class,
					JacksonEndpointAutoConfiguration.class, WebFluxEndpointManagementContextConfiguration.class,
					FastpathAutoConfiguration.class, FastpathWebFluxAutoConfiguration.class)
			.run((context) -> {
				assertThat(postProcessorOrder(context)).containsExactly(BOOT_POST_PROCESSOR, FASTPATH_POST_PROCESSOR);
				assertWrittenWithActuatorsMapper(context);
			});
	}

	@Test
	void actuatorResponsesAreWrittenWithActuatorsMapperOnStock() {
		this.actuatorAfterFastpath.withPropertyValues("fastpath.enabled=false")
			.run((context) -> {
				assertThat(postProcessorOrder(context)).containsExactly(BOOT_POST_PROCESSOR);
				assertWrittenWithActuatorsMapper(context);
			});
	}

	private static void assertWrittenWithActuatorsMapper(AssertableReactiveWebApplicationContext context) {
		ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
		boolean fastpath = !context.getBeansOfType(ServerCodecConfigurerDecoratingPostProcessor.class).isEmpty();
		assertThat(configurer instanceof DecoratingServerCodecConfigurer).isEqualTo(fastpath);
		HttpMessageWriter<Object> writer = jsonWriter(configurer);
		assertThat(writer.getClass() == EncoderHttpMessageWriter.class).isEqualTo(!fastpath);
		JsonMapper actuators = context.getBean(EndpointJsonMapper.class).get();
		String descriptor = actuators.writeValueAsString(new Descriptor());
		assertThat(descriptor).isEqualTo("{\"endpoint\":\"startup\"}");
		assertThat(context.getBean(JsonMapper.class).writeValueAsString(new Descriptor())).isEqualTo("{}");
		assertThat(write(writer, Mono.just(new Descriptor()))).isEqualTo(descriptor);
		assertThat(write(writer, Flux.just(new Descriptor(), new Descriptor())))
			.isEqualTo("[" + descriptor + "," + descriptor + "]");
	}

	/** The server's writer of the response body's type as JSON, as WebFlux picks it. */
	@SuppressWarnings("unchecked")
	private static HttpMessageWriter<Object> jsonWriter(ServerCodecConfigurer configurer) {
		ResolvableType type = ResolvableType.forClass(Descriptor.class);
		List<HttpMessageWriter<?>> writers = configurer.getWriters();
		return (HttpMessageWriter<Object>) writers.stream()
			.filter((candidate) -> candidate.canWrite(type, MediaType.APPLICATION_JSON))
			.findFirst()
			.orElseThrow();
	}

	private static String write(HttpMessageWriter<Object> writer, Publisher<Descriptor> body) {
		MockServerHttpResponse response = new MockServerHttpResponse();
		writer.write(body, ResolvableType.forClass(Descriptor.class), MediaType.APPLICATION_JSON, response, Map.of())
			.block();
		return response.getBodyAsString().block();
	}

	/** The post-processors of the server's codec configurer, in the order they run. */
	private static List<String> postProcessorOrder(AssertableReactiveWebApplicationContext context) {
		AbstractBeanFactory beanFactory = (AbstractBeanFactory) context.getSourceApplicationContext()
			.getBeanFactory();
		return beanFactory.getBeanPostProcessors()
			.stream()
			.map(BeanPostProcessor::getClass)
			.map(Class::getName)
			.filter((name) -> name.equals(FASTPATH_POST_PROCESSOR) || name.equals(BOOT_POST_PROCESSOR))
			.toList();
	}

	/** An Actuator response body with a getter and no setter. */
	static final class Descriptor implements OperationResponseBody {

		public String getEndpoint() {
			return "startup";
		}

	}

}
