package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.BlackbirdTwins;
import io.fastpath.json.TestBlackbirdTwins;
import io.fastpath.json.write.JsonBatchEncodingDifferentialTests.Item;
import io.fastpath.json.write.JsonBatchEncodingDifferentialTests.LongUnwritable;
import io.fastpath.json.write.JsonBatchEncodingDifferentialTests.Summary;
import io.fastpath.json.write.JsonBatchEncodingDifferentialTests.Unwritable;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.EncodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A single value ({@code encodeValue}, with which a {@code Mono} is written, on the server
 * and by {@code WebClient}) is the bytes the stock encoder's {@code encodeValue} writes:
 * random lists and values, with and without a {@code @JsonView}, indented or not, in
 * UTF-8, UTF-16 and UTF-32, with the twin of the application's mapper or without, and
 * with a mapper registered for the type. A value that cannot be written fails with the
 * stock encoder's error, and the Netty pooled buffer it was being written into is released
 * once (on the heap no buffer is allocated before the value is written whole).
 */
@ExtendWith(TestSeed.class)
class SingleValueEncodingDifferentialTests {

	private static final PooledByteBufAllocator ALLOCATOR = new PooledByteBufAllocator(true);

	private static final BlackbirdTwins TWINS = TestBlackbirdTwins.of(BlackbirdTwins.Use.WRITING);

	private static final ResolvableType ITEMS = ResolvableType.forClassWithGenerics(List.class, Item.class);

	private static final ResolvableType ITEM = ResolvableType.forClass(Item.class);

	private static final List<MediaType> MEDIA_TYPES = List.of(MediaType.APPLICATION_JSON,
			MediaType.parseMediaType("application/vnd.fastpath.test+json"),
			MediaType.parseMediaType("application/json;charset=UTF-16"),
			MediaType.parseMediaType("application/json;charset=UTF-16LE"),
			MediaType.parseMediaType("application/json;charset=UTF-32BE"));

	static List<Arguments> encoders() {
		List<Arguments> arguments = new ArrayList<>();
		for (boolean indent : new boolean[] { false, true }) {
			for (boolean twins : new boolean[] { false, true }) {
				for (String factory : new String[] { "heap", "netty" }) {
					arguments.add(Arguments.of(indent, twins, factory));
				}
			}
		}
		return arguments;
	}

	@ParameterizedTest(name = "indent {0}, twins {1}, {2} buffers")
	@MethodSource("encoders")
	void randomValuesAreWrittenAsStockWritesThem(boolean indent, boolean twins, String factoryName) {
		Random random = TestSeed.random("singleValues" + indent + twins + factoryName);
		JacksonJsonEncoder stock = JsonBatchEncodingDifferentialTests.encoder(indent);
		BatchingJsonEncoder batching = batching(stock, twins);
		for (int round = 0; round < 20; round++) {
			List<Item> items = JsonBatchEncodingDifferentialTests.randomItems(random);
			Map<String, Object> hints = random.nextBoolean() ? Map.of()
					: Map.of(JacksonCodecSupport.JSON_VIEW_HINT, Summary.class);
			for (MediaType mediaType : MEDIA_TYPES) {
				String as = round + " " + mediaType + " " + hints;
				assertSameValue(stock, batching, items, ITEMS, mediaType, hints, factoryName, as + " List");
				if (!items.isEmpty()) {
					assertSameValue(stock, batching, items.get(0), ITEM, mediaType, hints, factoryName, as);
				}
			}
		}
	}

	@ParameterizedTest(name = "twins {0}")
	@ValueSource(booleans = { false, true })
	void aTypeWithAMapperRegisteredForItIsWrittenWithThatMapper(boolean twins) {
		Random random = TestSeed.random("registeredMapper" + twins);
		JacksonJsonEncoder stock = JsonBatchEncodingDifferentialTests.encoder(false);
		JsonMapper registered = JsonMapper.builder()
			.propertyNamingStrategy(PropertyNamingStrategies.UPPER_SNAKE_CASE)
			.enable(SerializationFeature.INDENT_OUTPUT)
			.build();
		stock.registerMappersForType(Item.class, (mappers) -> mappers.put(MediaType.APPLICATION_JSON, registered));
		BatchingJsonEncoder batching = batching(stock, twins);
		for (int round = 0; round < 10; round++) {
			Item item = JsonBatchEncodingDifferentialTests.randomItems(random, 1).get(0);
			String written = assertSameValue(stock, batching, item, ITEM, MediaType.APPLICATION_JSON, Map.of(), "heap",
					"round " + round);
			assertThat(written).contains("\"NAME\" :");
		}
		// No mapper registered for the media type: stock's error, and nothing allocated
		Throwable expected = catchThrowable(() -> stock.encodeValue(new Item("a", 1, null, List.of()),
				LeakTrackingDataBufferFactory.heap(), ITEM, MediaType.APPLICATION_NDJSON, Map.of()));
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		Throwable actual = catchThrowable(() -> batching.encodeValue(new Item("a", 1, null, List.of()), factory, ITEM,
				MediaType.APPLICATION_NDJSON, Map.of()));
		assertThat(expected).isInstanceOf(IllegalStateException.class);
		assertThat(actual).isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
		assertThat(factory.requestedCapacities()).isEmpty();
	}

	@ParameterizedTest(name = "twins {0}")
	@ValueSource(booleans = { false, true })
	void aMonoIsItsValueWrittenAsStockWritesIt(boolean twins) {
		Random random = TestSeed.random("mono" + twins);
		JacksonJsonEncoder stock = JsonBatchEncodingDifferentialTests.encoder(false);
		BatchingJsonWriter batching = new BatchingJsonWriter(batching(stock, twins));
		for (int round = 0; round < 10; round++) {
			List<Item> items = JsonBatchEncodingDifferentialTests.randomItems(random);
			LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled(ALLOCATOR);
			WrittenBody expected = WrittenBody.write(new EncoderHttpMessageWriter<>(stock), Mono.just(items), ITEMS,
					MediaType.APPLICATION_JSON, LeakTrackingDataBufferFactory.heap().forStock(), Map.of());
			WrittenBody actual = WrittenBody.write(batching, Mono.just(items), ITEMS, MediaType.APPLICATION_JSON,
					factory, Map.of());
			assertThat(actual.error()).isNull();
			assertThat(new String(actual.bytes(), StandardCharsets.UTF_8))
				.isEqualTo(new String(expected.bytes(), StandardCharsets.UTF_8));
			assertThat(actual.contentLength()).isEqualTo(expected.contentLength());
			factory.assertNoLeaks();
		}
	}

	static List<Arguments> failures() {
		List<Arguments> arguments = new ArrayList<>();
		for (Object value : new Object[] { new Unwritable(), new LongUnwritable(), new Conflicting() }) {
			for (boolean twins : new boolean[] { false, true }) {
				for (String factory : new String[] { "heap", "netty" }) {
					arguments.add(Arguments.of(value, twins, factory));
				}
			}
		}
		return arguments;
	}

	@ParameterizedTest(name = "{0}, twins {1}, {2} buffers")
	@MethodSource("failures")
	void aValueThatCannotBeWrittenFailsAsStockFailsAndLeavesNoBuffer(Object value, boolean twins,
			String factoryName) {
		JacksonJsonEncoder stock = JsonBatchEncodingDifferentialTests.encoder(false);
		BatchingJsonEncoder batching = batching(stock, twins);
		ResolvableType type = ResolvableType.forClass(value.getClass());
		for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON,
				MediaType.parseMediaType("application/json;charset=UTF-16LE"))) {
			Throwable expected = catchThrowable(() -> stock.encodeValue(value, LeakTrackingDataBufferFactory.heap(),
					type, mediaType, Map.of()));
			LeakTrackingDataBufferFactory factory = factory(factoryName);
			Throwable actual = catchThrowable(() -> batching.encodeValue(value, factory, type, mediaType, Map.of()));
			assertThat(expected).isInstanceOfAny(EncodingException.class, CodecException.class);
			assertThat(actual).as(mediaType.toString())
				.isInstanceOf(expected.getClass())
				.hasMessage(expected.getMessage());
			if (factoryName.equals("netty")) {
				assertThat(factory.requestedCapacities()).as("written into a buffer").isNotEmpty();
			}
			else {
				assertThat(factory.requestedCapacities()).as("a heap buffer allocated").isEmpty();
			}
			factory.assertNoLeaks();
		}
	}

	@Test
	void aValueIsWrittenIntoADirectBufferOfTheFactoryWithNoCopyOfItsOwn() {
		// Stock allocates the buffer once it has the whole value, at its exact size
		JacksonJsonEncoder stock = JsonBatchEncodingDifferentialTests.encoder(false);
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled(ALLOCATOR);
		List<Item> items = JsonBatchEncodingDifferentialTests.randomItems(new Random(1), 200);
		String written = written(batching(stock, false).encodeValue(items, factory, ITEMS, MediaType.APPLICATION_JSON,
				Map.of()));
		assertThat(factory.requestedCapacities()).singleElement().isNotEqualTo(written.length());
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "twins {0}")
	@ValueSource(booleans = { false, true })
	void onTheHeapAValueIsAWrappedArrayOfItsExactSize(boolean twins) {
		// A heap buffer grown as the value is written would be larger than the value
		JacksonJsonEncoder stock = JsonBatchEncodingDifferentialTests.encoder(false);
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		List<Item> items = JsonBatchEncodingDifferentialTests.randomItems(new Random(1), 200);
		DataBuffer buffer = batching(stock, twins).encodeValue(items, factory, ITEMS, MediaType.APPLICATION_JSON,
				Map.of());
		int capacity = buffer.capacity();
		String written = written(buffer);
		assertThat(factory.requestedCapacities()).as("heap buffers allocated").isEmpty();
		assertThat(capacity).isEqualTo(written.length());
		factory.assertNoLeaks();
	}

	private static String assertSameValue(JacksonJsonEncoder stock, BatchingJsonEncoder batching, Object value,
			ResolvableType type, MediaType mediaType, Map<String, Object> hints, String factoryName, String as) {
		LeakTrackingDataBufferFactory factory = factory(factoryName);
		String expected = written(stock.encodeValue(value, LeakTrackingDataBufferFactory.heap(), type, mediaType, hints));
		String actual = written(batching.encodeValue(value, factory, type, mediaType, hints));
		assertThat(actual).as(as).isEqualTo(expected);
		factory.assertNoLeaks();
		return actual;
	}

	/** The buffer's bytes, one character each, released. */
	private static String written(DataBuffer buffer) {
		byte[] bytes = new byte[buffer.readableByteCount()];
		buffer.read(bytes);
		DataBufferUtils.release(buffer);
		return new String(bytes, StandardCharsets.ISO_8859_1);
	}

	private static BatchingJsonEncoder batching(JacksonJsonEncoder stock, boolean twins) {
		return new BatchingJsonEncoder(stock, JsonBatchEncoding.DEFAULT_CAP, twins ? TWINS : null,
				WriteListener.NONE);
	}

	private static LeakTrackingDataBufferFactory factory(String name) {
		return name.equals("heap") ? LeakTrackingDataBufferFactory.heap()
				: LeakTrackingDataBufferFactory.nettyPooled(ALLOCATOR);
	}

	/** A bean with two properties of one name: a type definition error. */
	static final class Conflicting {

		@JsonProperty("name")
		public String getFirst() {
			return "first";
		}

		@JsonProperty("name")
		public String getSecond() {
			return "second";
		}

		@Override
		public String toString() {
			return "Conflicting";
		}

	}

}
