package io.fastpath.codec;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.json.FastpathJsonDecoder;
import io.fastpath.json.JsonArrayDecoding;
import io.fastpath.json.write.JsonBatchEncoding;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.CodecConfigurer;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import org.springframework.util.MimeType;
import org.springframework.web.reactive.function.client.ExchangeStrategies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What configures the stock Jackson codecs configures Fastpath's JSON readers and writers,
 * on the server's configurer and on a client's exchange strategies alike: a mapper
 * registered for a type, or a limit, on the {@code JacksonJsonEncoder} or
 * {@code JacksonJsonDecoder} found by walking the handed-out writers or readers (as
 * Spring Boot gives Actuator's responses their mapper), or on the stock codec instance the
 * application configured, after Fastpath's readers and writers were handed out; and the
 * configurer's limit, on a {@code FastpathJsonDecoder} the application sets as its JSON
 * decoder. Each answer is compared with stock's, configured the same way; stock's is
 * checked to show the configuration (snake case names), so that a configuration that
 * reached neither would not pass.
 */
class StockJsonCodecConfigurationTests {

	private static final JsonMapper snakeCase = JsonMapper.builder()
		.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
		.build();

	private static final List<Widget> widgets = List.of(new Widget("first", 1), new Widget("second", 2));

	private static final String snakeCaseWidget = "{\"display_name\":\"first\",\"part_count\":1}";

	private static final String snakeCaseWidgets = "[{\"display_name\":\"first\",\"part_count\":1},"
			+ "{\"display_name\":\"second\",\"part_count\":2}]";

	@ParameterizedTest
	@EnumSource
	void aMapperRegisteredOnTheJsonEncoderFoundAmongTheWritersWritesItsType(Side side) {
		Codecs stock = side.stock();
		Codecs fastpath = side.fastpath();
		assertThat(registerOnJsonEncoders(stock.writers())).isOne();
		assertThat(registerOnJsonEncoders(fastpath.writers())).isOne();
		assertThat(stock.write(Mono.just(widgets.get(0)))).isEqualTo(snakeCaseWidget);
		assertWritesAsStock(fastpath, stock);
	}

	@ParameterizedTest
	@EnumSource
	void aMapperRegisteredOnTheStockEncoderOnceFastpathIsInstalledWritesItsType(Side side) {
		JacksonJsonEncoder stockEncoder = new JacksonJsonEncoder();
		JacksonJsonEncoder encoder = new JacksonJsonEncoder();
		Codecs stock = side.stock((codecs) -> codecs.jacksonJsonEncoder(stockEncoder));
		Codecs fastpath = side.fastpath((codecs) -> codecs.jacksonJsonEncoder(encoder));
		assertThat(fastpath.writers()).noneMatch(StockJsonCodecConfigurationTests::isStockJsonWriter);
		stockEncoder.registerMappersForType(Widget.class, snakeCaseForJson());
		encoder.registerMappersForType(Widget.class, snakeCaseForJson());
		assertThat(stock.write(Flux.fromIterable(widgets))).isEqualTo(snakeCaseWidgets);
		assertWritesAsStock(fastpath, stock);
	}

	@ParameterizedTest
	@EnumSource
	void aMapperRegisteredOnTheJsonDecoderFoundAmongTheReadersReadsItsType(Side side) {
		Codecs stock = side.stock();
		Codecs fastpath = side.fastpath();
		assertThat(configureJsonDecoders(stock.readers(), (decoder) -> decoder.registerMappersForType(Widget.class,
				snakeCaseForJson())))
			.isOne();
		assertThat(configureJsonDecoders(fastpath.readers(), (decoder) -> decoder
			.registerMappersForType(Widget.class, snakeCaseForJson())))
			.isOne();
		assertThat(stock.readMono(snakeCaseWidget)).isEqualTo(widgets.get(0));
		assertReadsAsStock(fastpath, stock);
	}

	@ParameterizedTest
	@EnumSource
	void aMapperRegisteredOnTheStockDecoderOnceFastpathIsInstalledReadsItsType(Side side) {
		JacksonJsonDecoder stockDecoder = new JacksonJsonDecoder();
		JacksonJsonDecoder decoder = new JacksonJsonDecoder();
		Codecs stock = side.stock((codecs) -> codecs.jacksonJsonDecoder(stockDecoder));
		Codecs fastpath = side.fastpath((codecs) -> codecs.jacksonJsonDecoder(decoder));
		assertThat(fastpath.readers()).noneMatch(StockJsonCodecConfigurationTests::isStockJsonReader);
		stockDecoder.registerMappersForType(Widget.class, snakeCaseForJson());
		decoder.registerMappersForType(Widget.class, snakeCaseForJson());
		assertThat(stock.readFlux(snakeCaseWidgets)).isEqualTo(widgets);
		assertReadsAsStock(fastpath, stock);
	}

	@ParameterizedTest
	@EnumSource
	void aLimitSetOnTheJsonDecoderFoundAmongTheReadersLimitsItsReads(Side side) {
		Codecs stock = side.stock();
		Codecs fastpath = side.fastpath();
		int limit = snakeCaseWidget.length() - 1;
		assertThat(configureJsonDecoders(stock.readers(), (decoder) -> decoder.setMaxInMemorySize(limit))).isOne();
		assertThat(configureJsonDecoders(fastpath.readers(), (decoder) -> decoder.setMaxInMemorySize(limit)))
			.isOne();
		assertThatExceptionOfType(DataBufferLimitException.class).isThrownBy(() -> stock.readMono(snakeCaseWidget));
		assertThatExceptionOfType(DataBufferLimitException.class)
			.isThrownBy(() -> fastpath.readMono(snakeCaseWidget));
	}

	@ParameterizedTest
	@EnumSource
	void aLimitSetOnTheConfigurerReachesAFastpathDecoderTheApplicationSetsItself(Side side) {
		JacksonJsonDecoder stockDecoder = new JacksonJsonDecoder();
		FastpathJsonDecoder decoder = new FastpathJsonDecoder(JsonMapper.builder().build());
		int limit = stockDecoder.getMaxInMemorySize() / 2;
		side.stock((codecs) -> {
			codecs.jacksonJsonDecoder(stockDecoder);
			codecs.maxInMemorySize(limit);
		}).readers();
		side.stock((codecs) -> {
			codecs.jacksonJsonDecoder(decoder);
			codecs.maxInMemorySize(limit);
		}).readers();
		assertThat(stockDecoder.getMaxInMemorySize()).isEqualTo(limit);
		assertThat(decoder.getMaxInMemorySize()).isEqualTo(limit);
	}

	private static void assertWritesAsStock(Codecs fastpath, Codecs stock) {
		assertThat(fastpath.writers()).noneMatch(StockJsonCodecConfigurationTests::isStockJsonWriter);
		assertThat(fastpath.write(Mono.just(widgets.get(0)))).isEqualTo(stock.write(Mono.just(widgets.get(0))));
		assertThat(fastpath.write(Flux.fromIterable(widgets))).isEqualTo(stock.write(Flux.fromIterable(widgets)));
	}

	private static void assertReadsAsStock(Codecs fastpath, Codecs stock) {
		assertThat(fastpath.readers()).noneMatch(StockJsonCodecConfigurationTests::isStockJsonReader);
		assertThat(fastpath.readFlux(snakeCaseWidgets)).isEqualTo(stock.readFlux(snakeCaseWidgets));
		assertThat(fastpath.readMono(snakeCaseWidget)).isEqualTo(stock.readMono(snakeCaseWidget));
	}

	/** What Spring Boot does for Actuator's responses, with a mapper that names in snake case. */
	private static int registerOnJsonEncoders(List<HttpMessageWriter<?>> writers) {
		int registered = 0;
		for (HttpMessageWriter<?> writer : writers) {
			if (writer instanceof EncoderHttpMessageWriter<?> encoderWriter
					&& encoderWriter.getEncoder() instanceof JacksonJsonEncoder encoder) {
				encoder.registerMappersForType(Widget.class, snakeCaseForJson());
				registered++;
			}
		}
		return registered;
	}

	/** Configure each JSON decoder found among the readers; return how many there were. */
	private static int configureJsonDecoders(List<HttpMessageReader<?>> readers,
			Consumer<JacksonJsonDecoder> configuration) {
		int configured = 0;
		for (HttpMessageReader<?> reader : readers) {
			if (reader instanceof DecoderHttpMessageReader<?> decoderReader
					&& decoderReader.getDecoder() instanceof JacksonJsonDecoder decoder) {
				configuration.accept(decoder);
				configured++;
			}
		}
		return configured;
	}

	private static Consumer<Map<MimeType, JsonMapper>> snakeCaseForJson() {
		return (mappers) -> mappers.put(MediaType.APPLICATION_JSON, snakeCase);
	}

	private static boolean isStockJsonWriter(HttpMessageWriter<?> writer) {
		return writer.getClass() == EncoderHttpMessageWriter.class
				&& ((EncoderHttpMessageWriter<?>) writer).getEncoder().getClass() == JacksonJsonEncoder.class;
	}

	private static boolean isStockJsonReader(HttpMessageReader<?> reader) {
		return reader.getClass() == DecoderHttpMessageReader.class
				&& ((DecoderHttpMessageReader<?>) reader).getDecoder().getClass() == JacksonJsonDecoder.class;
	}

	/** Where the codecs are: the server's configurer, or a client's exchange strategies. */
	enum Side {

		SERVER {

			@Override
			Codecs codecs(boolean fastpath, Consumer<CodecConfigurer.DefaultCodecs> configuration) {
				ServerCodecConfigurer stock = ServerCodecConfigurer.create();
				ServerCodecConfigurer configurer = fastpath
						? new DecoratingServerCodecConfigurer(stock, readerDecorators(), writerDecorators()) : stock;
				configuration.accept(configurer.defaultCodecs());
				return new Codecs(configurer::getReaders, configurer::getWriters, true);
			}

		},

		CLIENT {

			@Override
			Codecs codecs(boolean fastpath, Consumer<CodecConfigurer.DefaultCodecs> configuration) {
				ExchangeStrategies stock = ExchangeStrategies.builder()
					.codecs((codecs) -> configuration.accept(codecs.defaultCodecs()))
					.build();
				ExchangeStrategies strategies = fastpath
						? new DecoratingExchangeStrategies(stock, readerDecorators(), writerDecorators()) : stock;
				return new Codecs(strategies::messageReaders, strategies::messageWriters, false);
			}

		};

		abstract Codecs codecs(boolean fastpath, Consumer<CodecConfigurer.DefaultCodecs> configuration);

		Codecs stock() {
			return codecs(false, (codecs) -> {
			});
		}

		Codecs stock(Consumer<CodecConfigurer.DefaultCodecs> configuration) {
			return codecs(false, configuration);
		}

		Codecs fastpath() {
			return codecs(true, (codecs) -> {
			});
		}

		Codecs fastpath(Consumer<CodecConfigurer.DefaultCodecs> configuration) {
			return codecs(true, configuration);
		}

		private static List<HttpMessageReaderDecorator> readerDecorators() {
			return List.of(new JsonArrayDecoding(), new WholeBodyAggregation());
		}

		private static List<HttpMessageWriterDecorator> writerDecorators() {
			return List.of(new JsonBatchEncoding());
		}

	}

	/**
	 * The readers and writers of one side, asked for anew at each use (a configurer hands
	 * them out on each call), and how that side writes and reads a JSON body.
	 */
	record Codecs(Supplier<List<HttpMessageReader<?>>> readerList,
			Supplier<List<HttpMessageWriter<?>>> writerList, boolean server) {

		List<HttpMessageReader<?>> readers() {
			return this.readerList.get();
		}

		List<HttpMessageWriter<?>> writers() {
			return this.writerList.get();
		}

		/** Write the values as a JSON body with the first writer that can, as WebFlux picks it. */
		@SuppressWarnings("unchecked")
		String write(Publisher<Widget> values) {
			ResolvableType type = ResolvableType.forClass(Widget.class);
			HttpMessageWriter<Widget> writer = (HttpMessageWriter<Widget>) writers().stream()
				.filter((candidate) -> candidate.canWrite(type, MediaType.APPLICATION_JSON))
				.findFirst()
				.orElseThrow();
			if (this.server) {
				MockServerHttpResponse response = new MockServerHttpResponse();
				writer.write(values, type, MediaType.APPLICATION_JSON, response, Map.of()).block();
				return response.getBodyAsString().block();
			}
			MockClientHttpRequest request = new MockClientHttpRequest(HttpMethod.POST, "/");
			writer.write(values, type, MediaType.APPLICATION_JSON, request, Map.of()).block();
			return request.getBodyAsString().block();
		}

		List<Object> readFlux(String body) {
			ResolvableType type = ResolvableType.forClass(Widget.class);
			return reader(type).read(type, message(body), Map.of()).collectList().block();
		}

		Object readMono(String body) {
			ResolvableType type = ResolvableType.forClass(Widget.class);
			return reader(type).readMono(type, message(body), Map.of()).block();
		}

		@SuppressWarnings("unchecked")
		private HttpMessageReader<Object> reader(ResolvableType type) {
			return (HttpMessageReader<Object>) readers().stream()
				.filter((candidate) -> candidate.canRead(type, MediaType.APPLICATION_JSON))
				.findFirst()
				.orElseThrow();
		}

		private ReactiveHttpInputMessage message(String body) {
			byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
			if (this.server) {
				return MockServerHttpRequest.post("/").contentType(MediaType.APPLICATION_JSON).body(body);
			}
			MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
			response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			response.setBody(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(bytes)));
			return response;
		}

	}

	record Widget(String displayName, int partCount) {

	}

}
