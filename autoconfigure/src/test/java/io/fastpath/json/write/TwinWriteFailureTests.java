package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.fastpath.json.BlackbirdTwins;
import io.fastpath.json.TestBlackbirdTwins;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.RecordingLog;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.ValueSerializerModifier;

import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of what the batching writers do when the twin of the application's mapper fails
 * where the mapper itself would not: the twin's module is planted to fail as Blackbird
 * does across class loaders (an {@link IllegalAccessError}), while its serializer is built
 * or when it writes a value. Nothing the twin began goes out: a single value is written
 * again before any of it did, a value of a {@code Flux} is taken back from its batch,
 * after the values before it, and the body goes on with the application's mapper, the
 * stock writer's bytes.
 */
class TwinWriteFailureTests {

	private static final int[] CAPS = { 1, 20, JsonBatchEncoding.DEFAULT_CAP };

	private final RecordingLog log = new RecordingLog();

	private final JacksonJsonEncoder encoder = new JacksonJsonEncoder(JsonMapper.builder().build());

	@ParameterizedTest(name = "twin failing {0}")
	@ValueSource(strings = { "to build", "to write" })
	void aSingleValueIsWrittenWithTheApplicationsMapperAndTheLogWarnsOnce(String failing) {
		BlackbirdTwins twins = twins(failing);
		ResolvableType lines = ResolvableType.forClassWithGenerics(List.class, Line.class);
		for (int i = 0; i < 3; i++) {
			assertSameBody(TwinWritingDifferentialTests.jsonWriter(this.encoder, JsonBatchEncoding.DEFAULT_CAP, twins),
					new EncoderHttpMessageWriter<>(this.encoder), () -> Mono.just(List.of(new Line("a"), new Line("b"))),
					lines, MediaType.APPLICATION_JSON, "Mono<List> " + i);
		}
		assertThat(this.log.warnings).singleElement().asString().contains(lines.getType().getTypeName());
	}

	@ParameterizedTest(name = "twin failing {0}")
	@ValueSource(strings = { "to build", "to write" })
	void aFluxGoesOnWithTheApplicationsMapperFromTheValueTheTwinFailsOn(String failing) {
		// Values the twin writes, then one it fails on, in every position within a batch
		List<Object> values = List.of(1, "two", 3, new Line("a"), 4, new Line("b"), 5);
		for (int cap : CAPS) {
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
				BlackbirdTwins twins = twins(failing);
				this.log.warnings.clear();
				assertSameBody(TwinWritingDifferentialTests.jsonWriter(this.encoder, cap, twins),
						new EncoderHttpMessageWriter<>(this.encoder), () -> Flux.fromIterable(values),
						ResolvableType.forClass(Object.class), mediaType, mediaType + " cap " + cap);
				assertThat(this.log.warnings).singleElement().asString().contains(Object.class.getName());
			}
			BlackbirdTwins twins = twins(failing);
			this.log.warnings.clear();
			assertSameBody(TwinWritingDifferentialTests.sseWriter(this.encoder, cap, twins),
					new ServerSentEventHttpMessageWriter(this.encoder), () -> Flux.fromIterable(values),
					ResolvableType.forClass(Object.class), MediaType.TEXT_EVENT_STREAM, "sse cap " + cap);
			assertThat(this.log.warnings).singleElement().asString().contains(Object.class.getName());
		}
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson", "text/event-stream" })
	void applicationErrorsAreNotTheTwinsAndEndTheBodyAsStockEndsIt(String mediaTypeName) {
		MediaType mediaType = MediaType.parseMediaType(mediaTypeName);
		BlackbirdTwins twins = TestBlackbirdTwins.of(BlackbirdTwins.Use.WRITING, this.log.proxy(),
				() -> new SimpleModule("throws").addSerializer(Line.class, new ValueSerializer<Line>() {
					@Override
					public void serialize(Line value, JsonGenerator generator, SerializationContext context) {
						throw new IllegalArgumentException("the application's own");
					}
				}));
		// The twin's serializer is the application's here: the stock writer fails alike
		JacksonJsonEncoder failing = new JacksonJsonEncoder(JsonMapper.builder()
			.addModule(new SimpleModule("throws").addSerializer(Line.class, new ValueSerializer<Line>() {
				@Override
				public void serialize(Line value, JsonGenerator generator, SerializationContext context) {
					throw new IllegalArgumentException("the application's own");
				}
			}))
			.build());
		HttpMessageWriter<?> stock = mediaType.equals(MediaType.TEXT_EVENT_STREAM)
				? new ServerSentEventHttpMessageWriter(failing) : new EncoderHttpMessageWriter<>(failing);
		HttpMessageWriter<?> batching = mediaType.equals(MediaType.TEXT_EVENT_STREAM)
				? TwinWritingDifferentialTests.sseWriter(this.encoder, JsonBatchEncoding.DEFAULT_CAP, twins)
				: TwinWritingDifferentialTests.jsonWriter(this.encoder, JsonBatchEncoding.DEFAULT_CAP, twins);
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		Supplier<Flux<Object>> values = () -> Flux.just(1, new Line("a"), 2);
		WrittenBody expected = WrittenBody.write(stock, values.get(), ResolvableType.forClass(Object.class), mediaType,
				LeakTrackingDataBufferFactory.heap().forStock(), Map.of());
		WrittenBody actual = WrittenBody.write(batching, values.get(), ResolvableType.forClass(Object.class), mediaType,
				factory, Map.of());
		assertThat(expected.error()).isNotNull();
		assertThat(actual.error()).isInstanceOf(expected.error().getClass()).hasMessage(expected.error().getMessage());
		assertThat(new String(actual.bytes(), StandardCharsets.UTF_8))
			.isEqualTo(new String(expected.bytes(), StandardCharsets.UTF_8));
		assertThat(this.log.warnings).isEmpty();
		factory.assertNoLeaks();
	}

	private void assertSameBody(HttpMessageWriter<?> batching, HttpMessageWriter<?> stock,
			Supplier<Publisher<?>> source, ResolvableType type, MediaType mediaType, String as) {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		WrittenBody expected = WrittenBody.write(stock, source.get(), type, mediaType,
				LeakTrackingDataBufferFactory.heap().forStock(), Map.of());
		WrittenBody actual = WrittenBody.write(batching, source.get(), type, mediaType, factory, Map.of());
		assertThat(expected.error()).as(as).isNull();
		assertThat(actual.error()).as(as).isNull();
		assertThat(new String(actual.bytes(), StandardCharsets.UTF_8)).as(as)
			.isEqualTo(new String(expected.bytes(), StandardCharsets.UTF_8))
			.contains("\"sku\":\"a\"");
		factory.assertNoLeaks();
	}

	private BlackbirdTwins twins(String failing) {
		Supplier<JacksonModule> module = failing.equals("to build") ? TwinWriteFailureTests::failingToBuild
				: TwinWriteFailureTests::failingToWrite;
		return TestBlackbirdTwins.of(BlackbirdTwins.Use.WRITING, this.log.proxy(), module);
	}

	/** A module that fails as Blackbird does when it cannot reach a type's members. */
	private static JacksonModule failingToBuild() {
		return new SimpleModule("fails-to-build").setSerializerModifier(new ValueSerializerModifier() {
			@Override
			public ValueSerializer<?> modifySerializer(SerializationConfig config,
					BeanDescription.Supplier description, ValueSerializer<?> serializer) {
				if (description.getBeanClass() == Line.class) {
					throw new IllegalAccessError("planted: cannot access " + Line.class.getName());
				}
				return serializer;
			}
		});
	}

	/** A module whose serializer fails as a generated accessor that cannot link does. */
	private static JacksonModule failingToWrite() {
		return new SimpleModule("fails-to-write").addSerializer(Line.class, new ValueSerializer<Line>() {
			@Override
			public void serialize(Line value, JsonGenerator generator, SerializationContext context) {
				generator.writeStartObject();
				generator.writeStringProperty("half", "written");
				throw new IllegalAccessError("planted: cannot access " + Line.class.getName());
			}
		});
	}

	record Line(String sku) {
	}

}
