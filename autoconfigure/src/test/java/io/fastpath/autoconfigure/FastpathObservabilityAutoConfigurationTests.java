package io.fastpath.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import io.fastpath.autoconfigure.FastpathEndpoint.CodecsDescriptor;
import io.fastpath.autoconfigure.FastpathEndpoint.FastpathDescriptor;
import io.fastpath.autoconfigure.FastpathEndpoint.ReadCount;
import io.fastpath.autoconfigure.FastpathEndpoint.ReplacedReader;
import io.fastpath.autoconfigure.FastpathEndpoint.ReplacedWriter;
import io.fastpath.autoconfigure.FastpathEndpoint.WriteBatching;
import io.fastpath.autoconfigure.FastpathEndpoint.WriteCount;
import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;
import io.fastpath.test.CapturedLogs;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the auto-configuration of Fastpath's meters, its {@code fastpath} endpoint
 * and its startup log line, one condition at a time.
 */
class FastpathObservabilityAutoConfigurationTests {

	private static final AutoConfigurations fastpath = AutoConfigurations.of(FastpathAutoConfiguration.class,
			FastpathWebFluxAutoConfiguration.class, FastpathWebClientAutoConfiguration.class,
			FastpathFormArgumentsAutoConfiguration.class, FastpathMetricsAutoConfiguration.class,
			FastpathEndpointAutoConfiguration.class);

	private static final AutoConfigurations metrics = AutoConfigurations.of(MetricsAutoConfiguration.class,
			SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class);

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(fastpath)
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
				WebFluxAutoConfiguration.class, WebClientAutoConfiguration.class))
		.withConfiguration(metrics)
		.withPropertyValues("management.endpoints.web.exposure.include=fastpath");

	@Test
	void metersAreBoundToTheRegistry() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(FastpathMetrics.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.find("fastpath.reads").counters()).hasSize(15);
			assertThat(registry.find("fastpath.rejections").counters()).hasSize(8);
			assertThat(registry.find("fastpath.writes").counters()).hasSize(9);
			assertThat(registry.find("fastpath.writes.values").counters()).hasSize(3);
			assertThat(registry.find("fastpath.writes.batches").counters()).hasSize(3);
		});
	}

	@Test
	void serverWritersCountOnTheMeters() {
		this.contextRunner.run((context) -> {
			MockServerHttpResponse response = new MockServerHttpResponse();
			writeFlux(jsonWriter(context.getBean(ServerCodecConfigurer.class).getWriters()), response,
					Flux.range(0, 100));
			List<DataBuffer> body = response.getBody().collectList().block();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("fastpath.writes").tags("kind", "json-array", "outcome", "complete").counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("fastpath.writes.values").tag("kind", "json-array").counter().count())
				.isEqualTo(100);
			assertThat(registry.get("fastpath.writes.batches").tag("kind", "json-array").counter().count())
				.isEqualTo(body.size());
			body.forEach(DataBufferUtils::release);
		});
	}

	@Test
	void webClientRequestBodiesCountOnTheMeters() {
		this.contextRunner.run((context) -> {
			List<DataBuffer> sent = new CopyOnWriteArrayList<>();
			WebClient client = context.getBean(WebClient.Builder.class).clientConnector((method, uri, callback) -> {
				MockClientHttpRequest request = new MockClientHttpRequest(method, uri);
				request.setWriteHandler((body) -> Flux.from(body).doOnNext(sent::add).then());
				return callback.apply(request).thenReturn(new MockClientHttpResponse(HttpStatus.OK));
			}).build();
			client.post()
				.uri("http://localhost/people")
				.contentType(MediaType.APPLICATION_NDJSON)
				.body(Flux.range(0, 100), Integer.class)
				.retrieve()
				.toBodilessEntity()
				.block();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("fastpath.writes").tags("kind", "json-stream", "outcome", "complete").counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("fastpath.writes.values").tag("kind", "json-stream").counter().count())
				.isEqualTo(100);
			assertThat(registry.get("fastpath.writes.batches").tag("kind", "json-stream").counter().count())
				.isEqualTo(sent.size())
				.isPositive();
			sent.forEach(DataBufferUtils::release);
		});
	}

	@Test
	void writersTellEveryListenerBeanWhenThereAreSeveral() {
		List<WriteEvent> told = new CopyOnWriteArrayList<>();
		this.contextRunner.withBean("loggingWriteListener", WriteListener.class, () -> told::add).run((context) -> {
			MockServerHttpResponse response = new MockServerHttpResponse();
			writeFlux(jsonWriter(context.getBean(ServerCodecConfigurer.class).getWriters()), response,
					Flux.range(0, 3));
			assertThat(response.getBodyAsString().block()).isEqualTo("[0,1,2]");
			assertThat(told).containsExactly(
					new WriteEvent(WriteEvent.Kind.JSON_ARRAY, WriteEvent.Outcome.COMPLETE, 3, 1, 7));
			assertThat(context.getBean(FastpathMetrics.class)
				.bodies(WriteEvent.Kind.JSON_ARRAY, WriteEvent.Outcome.COMPLETE)).isEqualTo(1);
		});
	}

	@Test
	void noWriteIsToldWhenBatchedWritingIsSwitchedOff() {
		List<WriteEvent> told = new CopyOnWriteArrayList<>();
		this.contextRunner.withPropertyValues("fastpath.json.write.enabled=false")
			.withBean("loggingWriteListener", WriteListener.class, () -> told::add)
			.run((context) -> {
				MockServerHttpResponse response = new MockServerHttpResponse();
				writeFlux(jsonWriter(context.getBean(ServerCodecConfigurer.class).getWriters()), response,
						Flux.range(0, 3));
				assertThat(response.getBodyAsString().block()).isEqualTo("[0,1,2]");
				assertThat(told).isEmpty();
				assertThat(context.getBean(MeterRegistry.class).get("fastpath.writes").counters())
					.hasSize(9)
					.allSatisfy((counter) -> assertThat(counter.count()).isZero());
			});
	}

	@Test
	void serverReadersCountOnTheMeters() {
		this.contextRunner.run((context) -> {
			ResolvableType type = ResolvableType.forClassWithGenerics(Map.class, String.class, Object.class);
			HttpMessageReader<?> json = jsonReader(context, type);
			MockServerHttpRequest request = MockServerHttpRequest.post("/")
				.contentType(MediaType.APPLICATION_JSON)
				.body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap("[{\"a\":1},{\"b\":2}]".getBytes())));
			assertThat(json.read(type, type, request, new MockServerHttpResponse(), Map.of()).collectList().block())
				.hasSize(2);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("fastpath.reads")
				.tags("feature", "json", "path", "flux", "outcome", "fast", "reason", "none")
				.counter()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void noMetersWithoutMicrometer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer.core."))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(FastpathMetrics.class)
				.hasSingleBean(FastpathEndpoint.class)
				.getBean(FastpathEndpoint.class)
				.satisfies((endpoint) -> {
					FastpathDescriptor descriptor = endpoint.fastpath();
					assertThat(descriptor.reads()).isNull();
					assertThat(descriptor.writes()).isNull();
					assertThat(descriptor.batching()).isNull();
				}));
	}

	@Test
	void noMetersWithoutAMeterRegistry() {
		new ReactiveWebApplicationContextRunner().withConfiguration(fastpath)
			.run((context) -> assertThat(context).doesNotHaveBean(FastpathMetrics.class)
				.hasSingleBean(io.fastpath.buffer.WholeBodyAggregation.class));
	}

	@Test
	void noMetersWhenFastpathIsDisabled() {
		this.contextRunner.withPropertyValues("fastpath.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(FastpathMetrics.class));
	}

	@Test
	void metersBackOffWhenTheApplicationDefinesThem() {
		FastpathMetrics custom = new FastpathMetrics();
		this.contextRunner.withBean("customFastpathMetrics", FastpathMetrics.class, () -> custom).run((context) -> {
			assertThat(context).hasSingleBean(FastpathMetrics.class).getBean(FastpathMetrics.class).isSameAs(custom);
			writeFlux(jsonWriter(context.getBean(ServerCodecConfigurer.class).getWriters()),
					new MockServerHttpResponse(), Flux.range(0, 3));
			assertThat(custom.bodies(WriteEvent.Kind.JSON_ARRAY, WriteEvent.Outcome.COMPLETE))
				.as("the writers tell the application's meters")
				.isEqualTo(1);
		});
	}

	@Test
	void writersStillBatchWithoutMicrometer() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer.core.")).run((context) -> {
			MockServerHttpResponse response = new MockServerHttpResponse();
			HttpMessageWriter<?> writer = jsonWriter(context.getBean(ServerCodecConfigurer.class).getWriters());
			assertThat(writer).extracting((json) -> ((EncoderHttpMessageWriter<?>) json).getEncoder().getClass())
				.isNotEqualTo(JacksonJsonEncoder.class);
			writeFlux(writer, response, Flux.range(0, 3));
			assertThat(response.getBodyAsString().block()).isEqualTo("[0,1,2]");
		});
	}

	@Test
	void readersTellEveryListenerBeanWhenThereAreSeveral() {
		List<ReadEvent> told = new CopyOnWriteArrayList<>();
		this.contextRunner.withBean("loggingListener", ReadListener.class, () -> told::add).run((context) -> {
			ResolvableType type = ResolvableType.forClassWithGenerics(Map.class, String.class, Object.class);
			MockServerHttpRequest request = MockServerHttpRequest.post("/")
				.contentType(MediaType.APPLICATION_JSON)
				.body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap("[{\"a\":1}]".getBytes())));
			jsonReader(context, type).read(type, type, request, new MockServerHttpResponse(), Map.of())
				.blockLast();
			assertThat(told).containsExactly(ReadEvent.JSON_FLUX);
			assertThat(context.getBean(FastpathMetrics.class).count(ReadEvent.JSON_FLUX)).isEqualTo(1);
		});
	}

	@Test
	void endpointListsFeaturesReplacedReadersPropertiesAndCounts() {
		this.contextRunner.withPropertyValues("fastpath.form.max-parameters=50", "fastpath.json.optimize-creators=false")
			.run((context) -> {
				FastpathDescriptor descriptor = context.getBean(FastpathEndpoint.class).fastpath();
				assertThat(descriptor.features()).containsExactly("json", "buffer", "form", "json-write",
						"form-arguments");
				assertThat(descriptor.properties()).containsEntry("fastpath.enabled", true)
					.containsEntry("fastpath.json.enabled", true)
					.containsEntry("fastpath.json.optimize-creators", false)
					.containsEntry("fastpath.form.max-parameters", 50);
				CodecsDescriptor server = descriptor.server();
				assertThat(server.active()).isTrue();
				assertThat(server.features()).containsExactly("buffer", "json", "form", "json-write");
				assertThat(server.replacedWriters()).containsExactly(
						new ReplacedWriter("EncoderHttpMessageWriter(JacksonJsonEncoder)",
								"BatchingJsonWriter(BatchingJsonEncoder)"),
						new ReplacedWriter("ServerSentEventHttpMessageWriter(JacksonJsonEncoder)",
								"BatchingServerSentEventWriter"));
				// Each replaced reader once, in the codecs' order: the catch-all String reader,
				// which the stock configurer builds anew on every getReaders(), included once.
				assertThat(server.replacedReaders()).containsExactly(aggregated("ByteArrayDecoder"),
						aggregated("ByteBufferDecoder"), aggregated("DataBufferDecoder"),
						aggregated("NettyByteBufDecoder"), aggregated("StringDecoder"),
						new ReplacedReader("FormHttpMessageReader", "LazyFormHttpMessageReader"),
						new ReplacedReader("MultipartHttpMessageReader(DefaultPartHttpMessageReader)",
								"MultipartDataReader(PartCountingReader)"),
						new ReplacedReader("PartEventHttpMessageReader", "SlicingPartEventReader"),
						new ReplacedReader("DecoderHttpMessageReader(JacksonJsonDecoder)",
								"AggregatingHttpMessageReader(FastpathJsonDecoder)"),
						aggregated("StringDecoder"));
				CodecsDescriptor webClient = descriptor.webClient();
				assertThat(webClient.active()).isTrue();
				assertThat(webClient.features()).containsExactly("buffer", "json", "json-write");
				assertThat(webClient.replacedWriters()).containsExactly(new ReplacedWriter(
						"EncoderHttpMessageWriter(JacksonJsonEncoder)", "BatchingJsonWriter(BatchingJsonEncoder)"));
				// The form reader is replaced on clients too, but hands client responses to stock.
				assertThat(webClient.replacedReaders()).contains(
						new ReplacedReader("DecoderHttpMessageReader(JacksonJsonDecoder)",
								"AggregatingHttpMessageReader(FastpathJsonDecoder)"),
						new ReplacedReader("FormHttpMessageReader", "LazyFormHttpMessageReader"));
				assertThat(descriptor.reads()).hasSize(15)
					.contains(new ReadCount("json", "flux", "stock", "flux-of-collections", 0));
				assertThat(descriptor.rejections()).hasSize(8);
				assertThat(descriptor.writes()).hasSize(9)
					.contains(new WriteCount("json-array", "complete", 0), new WriteCount("sse", "cancel", 0));
				assertThat(descriptor.batching()).containsExactly(new WriteBatching("json-array", 0, 0),
						new WriteBatching("json-stream", 0, 0), new WriteBatching("sse", 0, 0));
			});
	}

	@Test
	void endpointCountsTheBodiesWrittenTheirValuesAndBatches() {
		this.contextRunner.run((context) -> {
			MockServerHttpResponse response = new MockServerHttpResponse();
			writeFlux(jsonWriter(context.getBean(ServerCodecConfigurer.class).getWriters()), response,
					Flux.range(0, 3));
			assertThat(response.getBodyAsString().block()).isEqualTo("[0,1,2]");
			FastpathDescriptor descriptor = context.getBean(FastpathEndpoint.class).fastpath();
			assertThat(descriptor.writes()).contains(new WriteCount("json-array", "complete", 1),
					new WriteCount("json-array", "error", 0));
			assertThat(descriptor.batching()).contains(new WriteBatching("json-array", 3, 1),
					new WriteBatching("sse", 0, 0));
		});
	}

	private static ReplacedReader aggregated(String decoder) {
		return new ReplacedReader("DecoderHttpMessageReader(" + decoder + ")",
				"AggregatingHttpMessageReader(" + decoder + ")");
	}

	@Test
	void endpointShowsWhatAFeatureSwitchedOffLeavesActive() {
		this.contextRunner.withPropertyValues("fastpath.json.enabled=false").run((context) -> {
			FastpathDescriptor descriptor = context.getBean(FastpathEndpoint.class).fastpath();
			assertThat(descriptor.features()).containsExactly("buffer", "form", "json-write", "form-arguments");
			assertThat(descriptor.properties()).containsEntry("fastpath.json.enabled", false);
			assertThat(descriptor.server().features()).containsExactly("buffer", "form", "json-write");
			assertThat(descriptor.server().replacedReaders()).contains(new ReplacedReader(
					"DecoderHttpMessageReader(JacksonJsonDecoder)", "AggregatingHttpMessageReader(JacksonJsonDecoder)"));
		});
	}

	@Test
	void endpointSaysSoWhenFastpathIsDisabled() {
		this.contextRunner.withPropertyValues("fastpath.enabled=false").run((context) -> {
			FastpathDescriptor descriptor = context.getBean(FastpathEndpoint.class).fastpath();
			assertThat(descriptor.features()).containsExactly("form-arguments");
			assertThat(descriptor.properties()).containsEntry("fastpath.enabled", false);
			assertThat(descriptor.server().active()).isFalse();
			assertThat(descriptor.webClient().active()).isFalse();
			assertThat(descriptor.reads()).isNull();
			assertThat(descriptor.writes()).isNull();
		});
	}

	@Test
	void noEndpointWhenNotExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).doesNotHaveBean(FastpathEndpoint.class)
				.hasSingleBean(FastpathMetrics.class));
	}

	@Test
	void noEndpointWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(FastpathEndpoint.class));
	}

	@Test
	void endpointBacksOffWhenTheApplicationDefinesOne() {
		this.contextRunner
			.withBean("customFastpathEndpoint", FastpathEndpoint.class,
					() -> new FastpathEndpoint(new org.springframework.beans.factory.support.DefaultListableBeanFactory(),
							new FastpathProperties()))
			.run((context) -> assertThat(context).hasSingleBean(FastpathEndpoint.class)
				.hasBean("customFastpathEndpoint"));
	}

	@Test
	void logsOneLineSayingWhatIsActiveWhereWhenReady() {
		try (CapturedLogs startupLog = CapturedLogs.of(FastpathStartupLogger.class, Level.INFO)) {
			this.contextRunner.run((context) -> {
				context.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0],
						context.getSourceApplicationContext(), Duration.ZERO));
				assertThat(startupLog.lines().stream().filter((line) -> line.contains("Fastpath active")))
					.singleElement()
					.asString()
					.startsWith("INFO ")
					.contains("Fastpath active: server codecs [buffer, json, form, json-write] (")
					.contains("readers, 2 writers replaced), WebClient.Builder [buffer, json, json-write] (")
					.endsWith("form arguments on");
			});
		}
	}

	@Test
	void logsNothingWhenFastpathIsDisabled() {
		try (CapturedLogs startupLog = CapturedLogs.of(FastpathStartupLogger.class, Level.INFO)) {
			this.contextRunner.withPropertyValues("fastpath.enabled=false").run((context) -> {
				context.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0],
						context.getSourceApplicationContext(), Duration.ZERO));
				assertThat(startupLog.lines()).noneMatch((line) -> line.contains("Fastpath active"));
			});
		}
	}

	@Test
	void anApplicationsOwnSingletonWebClientBuilderStillConnectsAfterStartupAndEndpointCalls() {
		WebClient.Builder own = Mockito.spy(WebClient.builder().clientConnector(answering("pong")));
		try (CapturedLogs startupLog = CapturedLogs.of(FastpathStartupLogger.class, Level.INFO)) {
			this.contextRunner.withBean("webClientBuilder", WebClient.Builder.class, () -> own).run((context) -> {
				publishReady(context);
				FastpathEndpoint endpoint = context.getBean(FastpathEndpoint.class);
				for (int i = 0; i < 3; i++) {
					CodecsDescriptor webClient = endpoint.fastpath().webClient();
					assertThat(webClient.active()).isFalse();
					assertThat(webClient.status()).startsWith("not applied: the WebClient.Builder bean was not customized");
					assertThat(webClient.replacedReaders()).isEmpty();
				}
				WebClient client = context.getBean(WebClient.Builder.class).build();
				assertThat(client.get().uri("http://localhost/ping").retrieve().bodyToMono(String.class).block())
					.isEqualTo("pong");
				// Described from what the customizer recorded: the application's builder was never
				// configured, cloned or built by Fastpath.
				Mockito.verify(own, Mockito.never()).clientConnector(Mockito.any());
				Mockito.verify(own, Mockito.never()).codecs(Mockito.any());
				Mockito.verify(own, Mockito.never()).exchangeStrategies(Mockito.any());
				assertThat(startupLog.lines().stream().filter((line) -> line.contains("Fastpath active"))).singleElement()
					.asString()
					.contains("WebClient.Builder not applied: the WebClient.Builder bean was not customized");
			});
		}
	}

	@Test
	void anApplicationsOwnSingletonBuilderThatAppliesBootsCustomizersIsDescribedWithoutBeingChanged() {
		this.contextRunner.withUserConfiguration(OwnBuilderApplyingCustomizers.class).run((context) -> {
			WebClient.Builder own = context.getBean(WebClient.Builder.class);
			Mockito.clearInvocations(own);
			publishReady(context);
			FastpathEndpoint endpoint = context.getBean(FastpathEndpoint.class);
			for (int i = 0; i < 3; i++) {
				CodecsDescriptor webClient = endpoint.fastpath().webClient();
				assertThat(webClient.active()).isTrue();
				assertThat(webClient.features()).containsExactly("buffer", "json", "json-write");
			}
			assertThat(own.build().get().uri("http://localhost/ping").retrieve().bodyToMono(String.class).block())
				.isEqualTo("pong");
			Mockito.verify(own, Mockito.never()).clientConnector(Mockito.any());
			Mockito.verify(own, Mockito.never()).codecs(Mockito.any());
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBuilderApplyingCustomizers {

		@Bean
		WebClient.Builder webClientBuilder(ObjectProvider<WebClientCustomizer> customizers) {
			WebClient.Builder builder = Mockito.spy(WebClient.builder().clientConnector(answering("pong")));
			customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
			return builder;
		}

	}

	private static void publishReady(AssertableReactiveWebApplicationContext context) {
		context.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0],
				context.getSourceApplicationContext(), Duration.ZERO));
	}

	private static ClientHttpConnector answering(String body) {
		return (method, uri, requestCallback) -> {
			MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
			response.getHeaders().setContentType(MediaType.TEXT_PLAIN);
			response.setBody(body);
			return Mono.just(response);
		};
	}

	private static HttpMessageWriter<?> jsonWriter(List<HttpMessageWriter<?>> writers) {
		return writers.stream()
			.filter((writer) -> writer.canWrite(ResolvableType.forClass(Integer.class), MediaType.APPLICATION_JSON))
			.findFirst()
			.orElseThrow();
	}

	@SuppressWarnings("unchecked")
	private static void writeFlux(HttpMessageWriter<?> writer, MockServerHttpResponse response, Flux<Integer> values) {
		ResolvableType type = ResolvableType.forClass(Integer.class);
		((HttpMessageWriter<Integer>) writer).write(values, type, MediaType.APPLICATION_JSON, response, Map.of())
			.block();
	}

	private static HttpMessageReader<?> jsonReader(AssertableReactiveWebApplicationContext context,
			ResolvableType type) {
		return context.getBean(ServerCodecConfigurer.class)
			.getReaders()
			.stream()
			.filter((reader) -> reader.canRead(type, MediaType.APPLICATION_JSON))
			.findFirst()
			.orElseThrow();
	}

}
