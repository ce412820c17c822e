package io.fastpath.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fastpath.buffer.AggregatingReaders;
import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.codec.DecoratingServerCodecConfigurer;
import io.fastpath.form.FormArgumentsWebFluxConfigurer;
import io.fastpath.form.FormParam;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.form.LazyFormReaders;
import io.fastpath.multipart.MultipartReadersInPlace;
import io.fastpath.json.FastpathJsonDecoder;
import io.fastpath.json.write.BatchingWriters;
import io.fastpath.json.JsonArrayDecoding;
import io.fastpath.json.write.JsonBatchEncoding;
import io.fastpath.test.CapturedLogs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.codec.CodecCustomizer;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.web.context.reactive.AnnotationConfigReactiveWebApplicationContext;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.ReactiveMultipartAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.StringDecoder;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;

import static io.fastpath.buffer.AggregatingReaders.aggregatedDecoders;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for Fastpath's auto-configuration.
 */
class FastpathAutoConfigurationTests {

	private static final AutoConfigurations fastpath = AutoConfigurations.of(FastpathAutoConfiguration.class,
			FastpathWebFluxAutoConfiguration.class, FastpathWebClientAutoConfiguration.class,
			FastpathFormArgumentsAutoConfiguration.class, FastpathJacksonAutoConfiguration.class);

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(fastpath);

	private final ReactiveWebApplicationContextRunner webFluxRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
				WebFluxAutoConfiguration.class, WebClientAutoConfiguration.class));

	@Test
	void everyFeatureIsRegisteredByDefault() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(WholeBodyAggregation.class)
			.hasSingleBean(JsonArrayDecoding.class)
			.hasSingleBean(JsonBatchEncoding.class)
			.hasSingleBean(LazyFormDecoding.class)
			.hasSingleBean(FormArgumentsWebFluxConfigurer.class)
			.hasSingleBean(ServerCodecConfigurerDecoratingPostProcessor.class)
			.hasSingleBean(FastpathWebClientCustomizer.class)
			.hasSingleBean(FastpathProperties.class));
	}

	@Test
	void everythingBacksOffWhenFastpathIsDisabled() {
		this.contextRunner.withPropertyValues("fastpath.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(WholeBodyAggregation.class)
				.doesNotHaveBean(JsonArrayDecoding.class)
				.doesNotHaveBean(JsonBatchEncoding.class)
				.doesNotHaveBean(LazyFormDecoding.class)
				.doesNotHaveBean(ServerCodecConfigurerDecoratingPostProcessor.class)
				.doesNotHaveBean(FastpathWebClientCustomizer.class));
	}

	@Test
	void formArgumentsStayWhenFastpathIsDisabledSoControllersKeepWorking() {
		this.contextRunner.withPropertyValues("fastpath.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(FormArgumentsWebFluxConfigurer.class));
	}

	@Test
	void formParamOnAPlainFilePartThatWebFluxWouldBindOtherwiseFailsTheStart() {
		try (CapturedLogs contextLog = CapturedLogs.of(AnnotationConfigReactiveWebApplicationContext.class)) {
			this.webFluxRunner.withUserConfiguration(RenamedFilePartController.class)
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.isInstanceOf(IllegalStateException.class)
					.hasMessageContaining("parameter 'upload' of RenamedFilePartController#upload"));
			assertThat(contextLog.lines()).singleElement()
				.asString()
				.startsWith("WARN Exception encountered during context initialization")
				.contains("parameter 'upload' of RenamedFilePartController#upload");
		}
	}

	@Test
	void formParamOnAPlainFilePartNamedAsItsParameterStarts() {
		this.webFluxRunner.withUserConfiguration(FilePartController.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void formArgumentsBackOffWhenTheApplicationDefinesThem() {
		this.contextRunner
			.withBean("customFormArguments", FormArgumentsWebFluxConfigurer.class,
					() -> new FormArgumentsWebFluxConfigurer(null))
			.run((context) -> assertThat(context).hasSingleBean(FormArgumentsWebFluxConfigurer.class)
				.hasBean("customFormArguments"));
	}

	@Test
	void formArgumentsAreNotRegisteredOutsideReactiveWebApplications() {
		new ApplicationContextRunner().withConfiguration(fastpath)
			.run((context) -> assertThat(context).doesNotHaveBean(FormArgumentsWebFluxConfigurer.class));
	}

	@Test
	void lazyFormDecodingBacksOffWhenFormFeatureIsSwitchedOff() {
		this.contextRunner.withPropertyValues("fastpath.form.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LazyFormDecoding.class)
				.hasSingleBean(FormArgumentsWebFluxConfigurer.class));
	}

	@Test
	void lazyFormDecodingBacksOffWhenTheApplicationDefinesOne() {
		this.contextRunner.withBean("customFormDecoding", LazyFormDecoding.class, () -> new LazyFormDecoding(5))
			.run((context) -> assertThat(context).hasSingleBean(LazyFormDecoding.class)
				.hasBean("customFormDecoding"));
	}

	@Test
	void serverFormReaderAllowsTheLibrarysDefaultNumberOfFieldsUnlessConfigured() {
		this.webFluxRunner.run((context) -> assertThat(
				LazyFormReaders.limits(context.getBean(ServerCodecConfigurer.class).getReaders()))
			.singleElement()
			.satisfies((limits) -> assertThat(limits.maxFields()).isEqualTo(LazyFormDecoding.DEFAULT_MAX_FIELDS)));
	}

	@Test
	void serverFormReaderIsLazyWithTheConfiguredLimits() {
		this.webFluxRunner
			.withPropertyValues("fastpath.form.max-parameters=5", "spring.http.codecs.max-in-memory-size=1KB")
			.run((context) -> {
				ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
				assertThat(configurer.getReaders())
					.noneMatch((reader) -> reader.getClass() == FormHttpMessageReader.class);
				assertThat(LazyFormReaders.limits(configurer.getReaders())).singleElement().satisfies((limits) -> {
					assertThat(limits.maxFields()).isEqualTo(5);
					assertThat(limits.stockReader().getMaxInMemorySize()).isEqualTo(1024);
				});
			});
	}

	@Test
	void serverMultipartPartsAreReadByFastpathWithBootsMultipartSettings(@TempDir Path files) {
		this.webFluxRunner.withConfiguration(AutoConfigurations.of(ReactiveMultipartAutoConfiguration.class))
			.withPropertyValues("spring.webflux.multipart.max-in-memory-size=1KB",
					"spring.webflux.multipart.max-disk-usage-per-part=2MB", "spring.webflux.multipart.max-parts=9",
					"spring.webflux.multipart.max-headers-size=3KB",
					"spring.webflux.multipart.headers-charset=ISO-8859-1",
					"spring.webflux.multipart.file-storage-directory=" + files)
			.run((context) -> {
				ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
				assertThat(MultipartReadersInPlace.partReaderSettings(configurer.getReaders()))
					.isEqualTo(new MultipartReadersInPlace.PartReaderSettings(1024, 2 * 1024 * 1024, 9, 3 * 1024,
							StandardCharsets.ISO_8859_1, files));
				assertThat(configurer.getReaders())
					.noneMatch((reader) -> reader.getClass() == PartEventHttpMessageReader.class);
				// Boot gives the event reader the disk limit as its part limit
				assertThat(MultipartReadersInPlace.partEventReaderSettings(configurer.getReaders()))
					.isEqualTo(new MultipartReadersInPlace.PartEventReaderSettings(1024, 3 * 1024, 9, 2 * 1024 * 1024,
							StandardCharsets.ISO_8859_1));
			});
	}

	@Test
	void serverMultipartPartsAreReadByStockWhenMultipartIsSwitchedOff() {
		this.webFluxRunner.withPropertyValues("fastpath.form.multipart.enabled=false").run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			assertThat(MultipartReadersInPlace.partReaderSettings(configurer.getReaders())).isNull();
			assertThat(MultipartReadersInPlace.partEventReaderSettings(configurer.getReaders())).isNull();
			assertThat(configurer.getReaders()).anyMatch(LazyFormReaders::isLazyForm)
				.anyMatch((reader) -> reader.getClass() == PartEventHttpMessageReader.class);
		});
	}

	@Test
	void serverFormReaderIsStockWhenFormFeatureIsSwitchedOff() {
		this.webFluxRunner.withPropertyValues("fastpath.form.enabled=false").run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			assertThat(configurer.getReaders()).noneMatch(LazyFormReaders::isLazyForm)
				.anyMatch((reader) -> reader.getClass() == FormHttpMessageReader.class);
		});
	}

	@Test
	void wholeBodyAggregationBacksOffWhenBufferFeatureIsSwitchedOff() {
		this.contextRunner.withPropertyValues("fastpath.buffer.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(WholeBodyAggregation.class));
	}

	@Test
	void wholeBodyAggregationBacksOffWhenTheApplicationDefinesOne() {
		this.contextRunner.withUserConfiguration(CustomAggregationConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(WholeBodyAggregation.class)
				.hasBean("customAggregation"));
	}

	@Test
	void wiringBacksOffWhenTheApplicationDefinesItsOwn() {
		this.contextRunner.withUserConfiguration(CustomWiringConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(ServerCodecConfigurerDecoratingPostProcessor.class)
				.hasBean("customPostProcessor")
				.hasSingleBean(FastpathWebClientCustomizer.class)
				.hasBean("customWebClientCustomizer"));
	}

	@Test
	void nothingIsRegisteredWithoutWebFlux() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive"))
			.run((context) -> assertThat(context).doesNotHaveBean(WholeBodyAggregation.class)
				.doesNotHaveBean(FormArgumentsWebFluxConfigurer.class)
				.doesNotHaveBean(ServerCodecConfigurerDecoratingPostProcessor.class)
				.doesNotHaveBean(FastpathWebClientCustomizer.class));
	}

	@Test
	void serverCodecsAreNotTouchedOutsideReactiveWebApplications() {
		new ApplicationContextRunner().withConfiguration(fastpath)
			.run((context) -> assertThat(context).hasSingleBean(WholeBodyAggregation.class)
				.doesNotHaveBean(ServerCodecConfigurerDecoratingPostProcessor.class));
	}

	@Test
	void serverCodecConfigurerHandsOutFastpathReadersAroundBootsJacksonDecoder() {
		this.webFluxRunner.run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			assertThat(configurer).isInstanceOf(DecoratingServerCodecConfigurer.class);
			assertThat(aggregatedDecoders(configurer.getReaders()))
				.hasAtLeastOneElementOfType(StringDecoder.class)
				.filteredOn(FastpathJsonDecoder.class::isInstance)
				.singleElement()
				.satisfies((decoder) -> assertThat(((FastpathJsonDecoder) decoder).getMapper())
					.isSameAs(context.getBean(JsonMapper.class)));
		});
	}

	@Test
	void serverCodecConfigurerHandsOutTheSameReadersToEveryRequest() {
		this.webFluxRunner.run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			assertThat(configurer.getReaders()).containsExactlyElementsOf(configurer.getReaders());
		});
	}

	@Test
	void jacksonDecoderConfiguredByTheApplicationIsKept() {
		this.webFluxRunner.withUserConfiguration(CustomJacksonDecoderConfiguration.class).run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			assertThat(aggregatedDecoders(configurer.getReaders())).filteredOn(FastpathJsonDecoder.class::isInstance)
				.singleElement()
				.satisfies((decoder) -> assertThat(((FastpathJsonDecoder) decoder).getStockDecoder())
					.isSameAs(CustomJacksonDecoderConfiguration.decoder));
		});
	}

	@Test
	void jsonFeatureBacksOffWhenSwitchedOffAndBufferFeatureKeepsWorking() {
		this.webFluxRunner.withPropertyValues("fastpath.json.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(JsonArrayDecoding.class).hasSingleBean(WholeBodyAggregation.class);
			assertThat(aggregatedDecoders(context.getBean(ServerCodecConfigurer.class).getReaders()))
				.hasAtLeastOneElementOfType(JacksonJsonDecoder.class)
				.noneMatch(FastpathJsonDecoder.class::isInstance);
		});
	}

	@Test
	void jsonFeatureBacksOffWhenJackson2IsPreferred() {
		this.webFluxRunner.withPropertyValues("spring.http.codecs.preferred-json-mapper=jackson2")
			.run((context) -> assertThat(context).doesNotHaveBean(JsonArrayDecoding.class)
				.hasSingleBean(WholeBodyAggregation.class));
	}

	@Test
	void jsonFeatureBacksOffWhenTheApplicationDefinesItsOwn() {
		this.contextRunner.withBean("customJsonArrayDecoding", JsonArrayDecoding.class, JsonArrayDecoding::new)
			.run((context) -> assertThat(context).hasSingleBean(JsonArrayDecoding.class)
				.hasBean("customJsonArrayDecoding"));
	}

	@Test
	void jsonFeatureBacksOffWithoutJackson() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.run((context) -> assertThat(context).doesNotHaveBean(JsonArrayDecoding.class)
				.hasSingleBean(WholeBodyAggregation.class));
	}

	@Test
	void serverCodecConfigurerHandsOutBatchingWritersAroundBootsJacksonEncoder() {
		this.webFluxRunner.run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			List<HttpMessageWriter<?>> writers = configurer.getWriters();
			JacksonJsonEncoder encoder = BatchingWriters.batchedJsonEncoder(writers);
			assertThat(encoder).isNotNull();
			assertThat(encoder.getMapper()).isSameAs(context.getBean(JsonMapper.class));
			assertThat(BatchingWriters.batchedEventWriter(writers)).isNotNull()
				.satisfies((stock) -> assertThat(stock.getEncoder()).isSameAs(encoder));
			assertThat(writers).noneMatch(FastpathAutoConfigurationTests::isStockJsonWriter);
			assertThat(configurer.getWriters()).containsExactlyElementsOf(writers);
		});
	}

	@Test
	void jsonWriteBacksOffWhenSwitchedOffAndTheServerWritesWithStock() {
		this.webFluxRunner.withPropertyValues("fastpath.json.write.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(JsonBatchEncoding.class).hasSingleBean(JsonArrayDecoding.class);
			List<HttpMessageWriter<?>> writers = context.getBean(ServerCodecConfigurer.class).getWriters();
			assertThat(BatchingWriters.batchedJsonEncoder(writers)).isNull();
			assertThat(BatchingWriters.batchedEventWriter(writers)).isNull();
			assertThat(writers).anyMatch(FastpathAutoConfigurationTests::isStockJsonWriter);
		});
	}

	@Test
	void jsonWriteBatchesUpToTheConfiguredBatchSize() {
		this.webFluxRunner.run((context) -> assertThat(context.getBean(JsonBatchEncoding.class).getCap())
			.isEqualTo(JsonBatchEncoding.DEFAULT_CAP));
		this.webFluxRunner.withPropertyValues("fastpath.json.write.batch-size=8KB")
			.run((context) -> assertThat(context.getBean(JsonBatchEncoding.class).getCap()).isEqualTo(8192));
	}

	@Test
	void jsonWriteRefusesABatchSizeOfNothingOrMoreThanSixteenMegabytes() {
		for (String size : List.of("0B", "17MB")) {
			try (CapturedLogs contextLog = CapturedLogs.of(AnnotationConfigReactiveWebApplicationContext.class)) {
				this.webFluxRunner.withPropertyValues("fastpath.json.write.batch-size=" + size)
					.run((context) -> assertThat(context).hasFailed()
						.getFailure()
						.rootCause()
						.hasMessageStartingWith("fastpath.json.write.batch-size must be between 1B and 16MB"));
				assertThat(contextLog.lines()).singleElement()
					.asString()
					.startsWith("WARN Exception encountered during context initialization");
			}
		}
	}

	@Test
	void jsonWriteStaysWhenJsonReadingIsSwitchedOff() {
		this.webFluxRunner.withPropertyValues("fastpath.json.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(JsonArrayDecoding.class)
				.hasSingleBean(JsonBatchEncoding.class));
	}

	@Test
	void jsonWriteBacksOffWhenJackson2IsPreferred() {
		this.webFluxRunner.withPropertyValues("spring.http.codecs.preferred-json-mapper=jackson2")
			.run((context) -> assertThat(context).doesNotHaveBean(JsonBatchEncoding.class));
	}

	@Test
	void jsonWriteBacksOffWhenTheApplicationDefinesItsOwn() {
		this.contextRunner.withBean("customJsonBatchEncoding", JsonBatchEncoding.class, JsonBatchEncoding::new)
			.run((context) -> assertThat(context).hasSingleBean(JsonBatchEncoding.class)
				.hasBean("customJsonBatchEncoding"));
	}

	@Test
	void jsonWriteBacksOffWithoutJackson() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.run((context) -> assertThat(context).doesNotHaveBean(JsonBatchEncoding.class));
	}

	@Test
	void webClientBuilderWritesAFluxRequestBodyInOneBuffer() {
		this.webFluxRunner.run((context) -> assertThat(requestBodyBuffers(context)).isOne());
	}

	@Test
	void webClientBuilderWritesAFluxRequestBodyAsStockWhenJsonWriteIsSwitchedOff() {
		this.webFluxRunner.withPropertyValues("fastpath.json.write.enabled=false")
			.run((context) -> assertThat(requestBodyBuffers(context)).isEqualTo(101));
	}

	/** How many buffers a WebClient of the context's builder sends 100 numbers in, as a JSON array. */
	private static int requestBodyBuffers(ApplicationContext context) {
		List<Integer> buffers = new CopyOnWriteArrayList<>();
		ClientHttpConnector connector = (method, uri, requestCallback) -> {
			MockClientHttpRequest request = new MockClientHttpRequest(method, uri);
			return requestCallback.apply(request)
				.then(Mono.defer(() -> request.getBody()
					.doOnNext((buffer) -> buffers.add(buffer.readableByteCount()))
					.then()))
				.then(Mono.just(new MockClientHttpResponse(HttpStatus.OK)));
		};
		WebClient client = context.getBean(WebClient.Builder.class).clientConnector(connector).build();
		client.post()
			.uri("http://localhost/")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Flux.range(0, 100), Integer.class)
			.retrieve()
			.toBodilessEntity()
			.block();
		return buffers.size();
	}

	/** Stock's JSON writer; Fastpath's batching encoder is a {@code JacksonJsonEncoder} too. */
	private static boolean isStockJsonWriter(HttpMessageWriter<?> writer) {
		return writer instanceof EncoderHttpMessageWriter<?> encoderWriter
				&& encoderWriter.getEncoder().getClass() == JacksonJsonEncoder.class;
	}

	@Test
	void maxInMemorySizeOfBootIsHonoured() {
		this.webFluxRunner.withPropertyValues("spring.http.codecs.max-in-memory-size=1KB").run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			assertThat(aggregatedDecoders(configurer.getReaders())).filteredOn(StringDecoder.class::isInstance)
				.isNotEmpty()
				.allSatisfy((decoder) -> assertThat(((StringDecoder) decoder).getMaxInMemorySize()).isEqualTo(1024));
		});
	}

	@Test
	void serverCodecsAreStockWhenFastpathIsDisabled() {
		this.webFluxRunner.withPropertyValues("fastpath.enabled=false").run((context) -> {
			ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
			assertThat(configurer).isNotInstanceOf(DecoratingServerCodecConfigurer.class);
			assertThat(configurer.getReaders()).noneMatch(AggregatingReaders::isAggregating);
		});
	}

	@Test
	void webClientBuilderReadsWholeBodiesThroughTheAggregator() {
		this.webFluxRunner.withPropertyValues("spring.http.codecs.max-in-memory-size=1KB").run((context) -> {
			// The aggregator fails a response whose Content-Length is above the limit on its
			// first byte (a response without a body, such as a 304, would read as empty);
			// the stock join reads the few bytes sent.
			WebClient client = context.getBean(WebClient.Builder.class).clientConnector(oversizedResponse()).build();
			Mono<String> body = client.get().uri("http://localhost/").retrieve().bodyToMono(String.class);
			assertThat(failureOf(body)).isInstanceOf(DataBufferLimitException.class);
		});
	}

	@Test
	void creatorsAreOptimizedByDefault() {
		this.contextRunner.run((context) -> assertThat(context.getBean(JsonArrayDecoding.class).optimizesCreators())
			.isTrue());
	}

	@Test
	void creatorOptimizationIsSwitchedOffByItsProperty() {
		this.contextRunner.withPropertyValues("fastpath.json.optimize-creators=false")
			.run((context) -> assertThat(context.getBean(JsonArrayDecoding.class).optimizesCreators()).isFalse());
	}

	@Test
	void serverAndWebClientReadRecordsThroughBlackbirdWhileTheApplicationsMapperIsLeftAlone() {
		this.webFluxRunner.run((context) -> {
			JsonMapper mapper = context.getBean(JsonMapper.class);
			assertThat(mapper.registeredModules()).noneMatch(BlackbirdModule.class::isInstance);
			assertThat(readThroughWebClient(context)).isEqualTo(new Probe("n", true));
			assertThat(readThroughServerReaders(context)).isEqualTo(new Probe("n", true));
			assertThat(mapper.readValue("{\"name\":\"n\"}", Probe.class)).isEqualTo(new Probe("n", false));
		});
	}

	@Test
	void serverAndWebClientReadRecordsWithTheApplicationsMapperWhenCreatorOptimizationIsOff() {
		// Without find-and-add-modules the application's mapper has no Blackbird to lend.
		this.webFluxRunner
			.withPropertyValues("fastpath.json.optimize-creators=false", "spring.jackson.find-and-add-modules=false")
			.run((context) -> {
				assertThat(readThroughWebClient(context)).isEqualTo(new Probe("n", false));
				assertThat(readThroughServerReaders(context)).isEqualTo(new Probe("n", false));
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "fastpath.enabled=false", "fastpath.json.enabled=false",
			"fastpath.json.optimize-creators=false", "spring.http.codecs.preferred-json-mapper=jackson2" })
	void applicationsMapperGetsBootsModulesBackWhenFastpathReadsWithNoTwin(String property) {
		this.webFluxRunner.withPropertyValues(property).run((context) -> {
			assertThat(context).doesNotHaveBean(BlackbirdFoundOnClassPathCustomizer.class);
			assertThat(context.getBean(JsonMapper.class).registeredModules()).anyMatch(BlackbirdModule.class::isInstance);
		});
	}

	@Test
	void applicationsMapperKeepsBlackbirdDeclaredAsABeanAndTheCustomizerBacksOff() {
		this.webFluxRunner.withBean(BlackbirdModule.class, BlackbirdModule::new).run((context) -> {
			assertThat(context).doesNotHaveBean(BlackbirdFoundOnClassPathCustomizer.class);
			assertThat(context.getBean(JsonMapper.class).registeredModules()).anyMatch(BlackbirdModule.class::isInstance);
			assertThat(readThroughServerReaders(context)).isEqualTo(new Probe("n", true));
		});
	}

	@Test
	void applicationsMapperGetsBlackbirdFoundOnTheClassPathWithoutFastpathsJacksonAutoConfiguration() {
		// What the customizer prevents: Boot's find-and-add-modules registers it.
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
			.run((context) -> assertThat(context.getBean(JsonMapper.class).registeredModules())
				.anyMatch(BlackbirdModule.class::isInstance));
	}

	private static Probe readThroughWebClient(ApplicationContext context) {
		WebClient client = context.getBean(WebClient.Builder.class).clientConnector(jsonResponse("{\"name\":\"n\"}")).build();
		return client.get().uri("http://localhost/").retrieve().bodyToMono(Probe.class).block();
	}

	@SuppressWarnings("unchecked")
	private static Probe readThroughServerReaders(ApplicationContext context) {
		ServerCodecConfigurer configurer = context.getBean(ServerCodecConfigurer.class);
		ResolvableType type = ResolvableType.forClass(Probe.class);
		HttpMessageReader<Probe> reader = (HttpMessageReader<Probe>) configurer.getReaders()
			.stream()
			.filter((candidate) -> candidate.canRead(type, MediaType.APPLICATION_JSON))
			.findFirst()
			.orElseThrow();
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"name\":\"n\"}");
		return reader.readMono(type, request, Map.of()).block();
	}

	private static ClientHttpConnector jsonResponse(String json) {
		return (method, uri, requestCallback) -> {
			MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
			response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			response.setBody(json);
			return Mono.just(response);
		};
	}

	/** Remembers whether Blackbird's generated code called its constructor. */
	record Probe(String name, boolean throughBlackbird) {

		@JsonCreator
		Probe(@JsonProperty("name") String name) {
			this(name, StackWalker.getInstance()
				.walk((frames) -> frames.anyMatch((frame) -> frame.getClassName().startsWith("tools.jackson.module.blackbird"))));
		}

	}

	@Test
	void webClientBuilderIsStockWhenFastpathIsDisabled() {
		this.webFluxRunner.withPropertyValues("spring.http.codecs.max-in-memory-size=1KB", "fastpath.enabled=false")
			.run((context) -> {
				WebClient client = context.getBean(WebClient.Builder.class)
					.clientConnector(oversizedResponse())
					.build();
				Mono<String> body = client.get().uri("http://localhost/").retrieve().bodyToMono(String.class);
				assertThat(body.block()).isEqualTo("small");
			});
	}

	private static Throwable failureOf(Mono<String> body) {
		Throwable failure = body.then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block();
		assertThat(failure).isNotNull();
		return NestedExceptionUtils.getMostSpecificCause(failure);
	}

	private static ClientHttpConnector oversizedResponse() {
		return (method, uri, requestCallback) -> {
			MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
			response.getHeaders().setContentType(MediaType.TEXT_PLAIN);
			response.getHeaders().setContentLength(2048);
			response.setBody(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap("small".getBytes(StandardCharsets.UTF_8))));
			return Mono.just(response);
		};
	}

	@RestController
	static class RenamedFilePartController {

		@PostMapping("/upload")
		String upload(@FormParam("file") FilePart upload) {
			return upload.filename();
		}

	}

	@RestController
	static class FilePartController {

		@PostMapping("/upload")
		String upload(@FormParam FilePart upload) {
			return upload.filename();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomAggregationConfiguration {

		@Bean
		WholeBodyAggregation customAggregation() {
			return new WholeBodyAggregation();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomWiringConfiguration {

		@Bean
		static ServerCodecConfigurerDecoratingPostProcessor customPostProcessor(
				org.springframework.beans.factory.ObjectProvider<io.fastpath.codec.HttpMessageReaderDecorator> decorators) {
			return new ServerCodecConfigurerDecoratingPostProcessor(decorators);
		}

		@Bean
		FastpathWebClientCustomizer customWebClientCustomizer(
				org.springframework.beans.factory.ObjectProvider<io.fastpath.codec.HttpMessageReaderDecorator> decorators) {
			return new FastpathWebClientCustomizer(decorators);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomJacksonDecoderConfiguration {

		static final JacksonJsonDecoder decoder = new JacksonJsonDecoder(JsonMapper.builder().build());

		@Bean
		CodecCustomizer customJacksonDecoder() {
			return (configurer) -> configurer.defaultCodecs().jacksonJsonDecoder(decoder);
		}

	}

}
