package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.IntStream;

import com.fasterxml.jackson.annotation.JsonView;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.BlackbirdTwins;
import io.fastpath.json.TestBlackbirdTwins;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.fastpath.test.NoDroppedErrorsExtension;
import io.fastpath.test.TestSeed;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.RawValue;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batching writers write the bytes the stock writers write: random lists of values
 * (none, one, many; strings that need escapes, non-ASCII text, null fields, a
 * {@code @JsonView}), as a JSON array, a {@code +json} type, NDJSON, a charset other than
 * UTF-8, and server-sent events (plain values and {@code ServerSentEvent}s with every
 * field), from sources that emit at once and from sources that emit from another thread,
 * in batches of any size (and with a {@code Content-Length} only where a body went out
 * whole in one batch). Errors of the source and of the encoding at every position end
 * both bodies after the same bytes, with the same error. Every buffer, on a counting
 * factory, heap and Netty pooled, is released once.
 */
@ExtendWith({ TestSeed.class, NoDroppedErrorsExtension.class })
class JsonBatchEncodingDifferentialTests {

	private static final MediaType VENDOR_JSON = MediaType.parseMediaType("application/vnd.fastpath.test+json");

	private static final MediaType UTF16_JSON = MediaType.parseMediaType("application/json;charset=UTF-16");

	private static final PooledByteBufAllocator ALLOCATOR = new PooledByteBufAllocator(true);

	private static final int[] CAPS = { 1, 40, 300, JsonBatchEncoding.DEFAULT_CAP };

	/** The batching writers write with twins that add Blackbird, as they do by default. */
	private static final BlackbirdTwins TWINS = TestBlackbirdTwins.of(BlackbirdTwins.Use.WRITING);

	static List<Arguments> writers() {
		List<Arguments> arguments = new ArrayList<>();
		for (boolean indent : new boolean[] { false, true }) {
			for (String factory : new String[] { "heap", "netty" }) {
				arguments.add(Arguments.of(indent, factory));
			}
		}
		return arguments;
	}

	@ParameterizedTest(name = "indent {0}, {1} buffers")
	@MethodSource("writers")
	void randomValuesAreWrittenAsStockWritesThemInEveryMediaType(boolean indent, String factoryName) {
		Random random = TestSeed.random("randomValues" + indent + factoryName);
		JacksonJsonEncoder encoder = encoder(indent);
		for (int round = 0; round < 25; round++) {
			List<Item> items = randomItems(random);
			int cap = CAPS[random.nextInt(CAPS.length)];
			Map<String, Object> hints = random.nextBoolean() ? Map.of()
					: Map.of(JacksonCodecSupport.JSON_VIEW_HINT, Summary.class);
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, VENDOR_JSON, MediaType.APPLICATION_NDJSON,
					UTF16_JSON)) {
				assertSameBody(new EncoderHttpMessageWriter<>(encoder),
						jsonWriter(encoder, cap),
						(async) -> source(items, async), ResolvableType.forClass(Item.class), mediaType, hints,
						factoryName, round + " " + mediaType + " cap " + cap);
			}
			assertSameBody(new ServerSentEventHttpMessageWriter(encoder), sseWriter(encoder, cap),
					(async) -> source(items, async), ResolvableType.forClass(Item.class), MediaType.TEXT_EVENT_STREAM,
					hints, factoryName, round + " sse cap " + cap);
			List<ServerSentEvent<Item>> events = randomEvents(random, items);
			assertSameBody(new ServerSentEventHttpMessageWriter(encoder), sseWriter(encoder, cap),
					(async) -> source(events, async),
					ResolvableType.forClassWithGenerics(ServerSentEvent.class, Item.class), MediaType.TEXT_EVENT_STREAM,
					hints, factoryName, round + " events cap " + cap);
		}
	}

	@ParameterizedTest(name = "indent {0}, {1} buffers")
	@MethodSource("writers")
	void anErrorOfTheSourceAtAnyPositionEndsBothBodiesAlike(boolean indent, String factoryName) {
		Random random = TestSeed.random("sourceError" + indent + factoryName);
		JacksonJsonEncoder encoder = encoder(indent);
		List<Item> items = randomItems(random, 12);
		IllegalStateException boom = new IllegalStateException("boom");
		for (int position = 0; position <= items.size(); position++) {
			List<Item> before = items.subList(0, position);
			Function<Boolean, Flux<Item>> source = (async) -> source(before, async).concatWith(Flux.error(boom));
			assertBothEndAlike(encoder, source, factoryName, "error at " + position);
			if (position < items.size()) {
				// A Flux over a list is fused with the batching writer: its mapping fails in a
				// poll of the writer's, where stock sees an onError.
				int failing = position;
				List<Integer> indexes = IntStream.rangeClosed(0, failing).boxed().toList();
				Function<Boolean, Flux<Item>> mapped = (async) -> source(indexes, async).map((index) -> {
					if (index == failing) {
						throw boom;
					}
					return items.get(index);
				});
				assertBothEndAlike(encoder, mapped, factoryName, "mapping error at " + position);
			}
		}
	}

	private static void assertBothEndAlike(JacksonJsonEncoder encoder, Function<Boolean, Flux<Item>> source,
			String factoryName, String description) {
		for (int cap : CAPS) {
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
				assertSameBody(new EncoderHttpMessageWriter<>(encoder), jsonWriter(encoder, cap), source,
						ResolvableType.forClass(Item.class), mediaType, Map.of(), factoryName,
						description + " " + mediaType + " cap " + cap);
			}
			assertSameBody(new ServerSentEventHttpMessageWriter(encoder), sseWriter(encoder, cap), source,
					ResolvableType.forClass(Item.class), MediaType.TEXT_EVENT_STREAM, Map.of(), factoryName,
					description + " sse cap " + cap);
		}
	}

	@ParameterizedTest(name = "indent {0}, {1} buffers")
	@MethodSource("writers")
	void aValueThatCannotBeWrittenAtAnyPositionEndsBothBodiesAlike(boolean indent, String factoryName) {
		Random random = TestSeed.random("encodingError" + indent + factoryName);
		JacksonJsonEncoder encoder = encoder(indent);
		List<Item> items = randomItems(random, 8);
		for (int position = 0; position <= items.size(); position++) {
			List<Object> values = new ArrayList<>(items);
			values.add(position, new Unwritable());
			Function<Boolean, Flux<Object>> source = (async) -> source(values, async);
			for (int cap : CAPS) {
				for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
					assertSameBody(new EncoderHttpMessageWriter<>(encoder),
							jsonWriter(encoder, cap), source,
							ResolvableType.forClass(Object.class), mediaType, Map.of(), factoryName,
							"unwritable at " + position + " " + mediaType + " cap " + cap);
				}
				// Stock leaks the wrapped field and end-of-event buffers of an event whose data
				// cannot be written (they are wrapped arrays, so nothing is lost): stock's
				// leaks are not counted here, the batching writer's are.
				assertSameBody(new ServerSentEventHttpMessageWriter(encoder), sseWriter(encoder, cap), source,
						ResolvableType.forClass(Object.class), MediaType.TEXT_EVENT_STREAM, Map.of(), factoryName,
						"unwritable at " + position + " sse cap " + cap, false);
			}
		}
	}

	@ParameterizedTest(name = "root value separator \"{0}\"")
	@ValueSource(strings = { "\n", "", "--" })
	void aMapperWithARootValueSeparatorOfItsOwnIsWrittenAsStockWritesIt(String separator) {
		// Stock drops a leading space from each value's bytes and keeps any other separator
		JacksonJsonEncoder encoder = new JacksonJsonEncoder(
				JsonMapper.builder(JsonFactory.builder().rootValueSeparator(separator).build()).build());
		Random random = TestSeed.random("rootValueSeparator" + separator);
		for (int round = 0; round < 10; round++) {
			List<Item> items = randomItems(random);
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
				assertSameBody(new EncoderHttpMessageWriter<>(encoder), jsonWriter(encoder, JsonBatchEncoding.DEFAULT_CAP),
						(async) -> source(items, async), ResolvableType.forClass(Item.class), mediaType, Map.of(),
						"netty", round + " " + mediaType);
			}
		}
	}

	@ParameterizedTest(name = "indent {0}, {1} buffers")
	@MethodSource("writers")
	void valuesWrittenRawWithALeadingSpaceAreWrittenAsStockWritesThem(boolean indent, String factoryName) {
		// Stock drops the first byte of every value when it is a space: the first value's own
		// space, and the root value separator of the others
		JacksonJsonEncoder encoder = encoder(indent);
		List<RawValue> values = List.of(new RawValue(" 1"), new RawValue("  2"), new RawValue("3"), new RawValue(" 4"));
		for (int cap : CAPS) {
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
				assertSameBody(new EncoderHttpMessageWriter<>(encoder), jsonWriter(encoder, cap),
						(async) -> source(values, async), ResolvableType.forClass(RawValue.class), mediaType, Map.of(),
						factoryName, mediaType + " cap " + cap);
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson" })
	void aBatchThatCannotGrowEndsTheBodyWithNoPartOfAValue(String mediaTypeName) {
		// Buffers that cannot grow past 10,000 bytes: the generator's second flush of its
		// 8,000-byte buffer into the batch fails, after Jackson emptied that buffer, so the
		// batch may end inside a value. Nothing of it may go out: what was sent, if anything,
		// is stock's body cut after a whole value.
		MediaType mediaType = MediaType.parseMediaType(mediaTypeName);
		List<ByteBuf> allocated = new ArrayList<>();
		NettyDataBufferFactory capped = new NettyDataBufferFactory(UnpooledByteBufAllocator.DEFAULT) {

			@Override
			public NettyDataBuffer allocateBuffer(int initialCapacity) {
				ByteBuf buffer = getByteBufAllocator().buffer(Math.min(initialCapacity, 10_000), 10_000);
				allocated.add(buffer);
				return wrap(buffer);
			}

		};
		JacksonJsonEncoder encoder = encoder(false);
		List<Item> items = randomItems(TestSeed.random("cannotGrow" + mediaTypeName), 1000);
		WrittenBody expected = WrittenBody.write(new EncoderHttpMessageWriter<>(encoder), Flux.fromIterable(items),
				ResolvableType.forClass(Item.class), mediaType, DefaultDataBufferFactory.sharedInstance, Map.of());
		assertThat(expected.bytes().length).isGreaterThan(20_000);
		for (int cap : new int[] { 4_000, JsonBatchEncoding.DEFAULT_CAP }) {
			allocated.clear();
			WrittenBody actual = WrittenBody.write(jsonWriter(encoder, cap), Flux.fromIterable(items),
					ResolvableType.forClass(Item.class), mediaType, capped, Map.of());
			String as = mediaType + " cap " + cap;
			String sent = new String(actual.bytes(), StandardCharsets.ISO_8859_1);
			String stock = new String(expected.bytes(), StandardCharsets.ISO_8859_1);
			Throwable error = actual.error();
			if (error == null) {
				// Batches of 4,000 bytes that never reach the limit (an NDJSON stream's), or...
				assertThat(cap).as(as).isNotEqualTo(JsonBatchEncoding.DEFAULT_CAP);
				assertThat(sent).as(as).isEqualTo(stock);
			}
			else {
				// ...Netty's error, as it is or in Jackson's and Spring's wrapping (stock's own)
				assertThat(NestedExceptionUtils.getMostSpecificCause(error)).as(as)
					.isInstanceOf(IndexOutOfBoundsException.class);
				assertThat(stock).as(as).startsWith(sent);
				if (!sent.isEmpty()) {
					String next = stock.substring(sent.length(), sent.length() + 1);
					assertThat(next).as(as).isEqualTo(mediaType.equals(MediaType.APPLICATION_NDJSON) ? "{" : ",");
				}
			}
			assertThat(allocated).as(as).allSatisfy((buffer) -> assertThat(buffer.refCnt()).isZero());
		}
	}

	@ParameterizedTest(name = "indent {0}, {1} buffers")
	@MethodSource("writers")
	void aValueThatFailsAfterMoreThanTheGeneratorBuffersIsTakenBackWhole(boolean indent, String factoryName) {
		// The generator's buffer is 8,000 bytes: this value's first field is written past it,
		// so a generator that buffers across values has put part of the value into the batch
		// when the second field fails, and the value is taken back from the batch as well.
		Random random = TestSeed.random("longUnwritable" + indent + factoryName);
		JacksonJsonEncoder encoder = encoder(indent);
		List<Item> items = randomItems(random, 150);
		for (int position : new int[] { 0, 1, 40, 150 }) {
			List<Object> values = new ArrayList<>(items.subList(0, position));
			values.add(new LongUnwritable());
			Function<Boolean, Flux<Object>> source = (async) -> source(values, async);
			for (int cap : CAPS) {
				for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
					assertSameBody(new EncoderHttpMessageWriter<>(encoder), jsonWriter(encoder, cap), source,
							ResolvableType.forClass(Object.class), mediaType, Map.of(), factoryName,
							"long unwritable at " + position + " " + mediaType + " cap " + cap);
				}
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson" })
	void aValueThatFailsWhereTheBatchCannotTakeWhatTheGeneratorHoldsFailsWithBothErrors(String mediaTypeName) {
		// The value's first field (5,000 bytes) stays in the generator's 8,000-byte buffer
		// until its second field fails; taking the value back flushes that buffer into a
		// batch that cannot grow past 1,000 bytes, which fails too. The body fails with the
		// value's error, the flush's added to it, and nothing of the value goes out.
		MediaType mediaType = MediaType.parseMediaType(mediaTypeName);
		List<ByteBuf> allocated = new ArrayList<>();
		NettyDataBufferFactory capped = new NettyDataBufferFactory(UnpooledByteBufAllocator.DEFAULT) {

			@Override
			public NettyDataBuffer allocateBuffer(int initialCapacity) {
				ByteBuf buffer = getByteBufAllocator().buffer(Math.min(initialCapacity, 1_000), 1_000);
				allocated.add(buffer);
				return wrap(buffer);
			}

		};
		WrittenBody actual = WrittenBody.write(jsonWriter(encoder(false), JsonBatchEncoding.DEFAULT_CAP),
				Flux.just(new HalfLongUnwritable()), ResolvableType.forClass(Object.class), mediaType, capped, Map.of());
		assertThat(actual.bytes()).as("sent").isEmpty();
		assertThat(actual.error()).isNotNull();
		assertThat(NestedExceptionUtils.getMostSpecificCause(actual.error())).hasMessage("cannot be written");
		assertThat(actual.error().getSuppressed()).as("the flush's error")
			.singleElement()
			.isInstanceOf(IndexOutOfBoundsException.class);
		assertThat(allocated).allSatisfy((buffer) -> assertThat(buffer.refCnt()).isZero());
	}

	private static BatchingJsonWriter jsonWriter(JacksonJsonEncoder encoder, int cap) {
		return new BatchingJsonWriter(new BatchingJsonEncoder(encoder, cap, TWINS, WriteListener.NONE));
	}

	private static BatchingServerSentEventWriter sseWriter(JacksonJsonEncoder encoder, int cap) {
		return new BatchingServerSentEventWriter(new ServerSentEventHttpMessageWriter(encoder), encoder, cap,
				TWINS, WriteListener.NONE);
	}

	private static <T> void assertSameBody(HttpMessageWriter<?> stock, HttpMessageWriter<?> batching,
			Function<Boolean, Flux<T>> source, ResolvableType elementType, MediaType mediaType,
			Map<String, Object> hints, String factoryName, String description) {
		assertSameBody(stock, batching, source, elementType, mediaType, hints, factoryName, description, true);
	}

	private static <T> void assertSameBody(HttpMessageWriter<?> stock, HttpMessageWriter<?> batching,
			Function<Boolean, Flux<T>> source, ResolvableType elementType, MediaType mediaType,
			Map<String, Object> hints, String factoryName, String description, boolean countStockLeaks) {
		for (boolean async : new boolean[] { false, true }) {
			LeakTrackingDataBufferFactory stockFactory = factory(factoryName);
			LeakTrackingDataBufferFactory factory = factory(factoryName);
			WrittenBody expected = WrittenBody.write(stock, source.apply(async), elementType, mediaType,
					stockFactory.forStock(), hints);
			WrittenBody actual = WrittenBody.write(batching, source.apply(async), elementType, mediaType, factory,
					hints);
			String as = description + (async ? " async" : "") + " on " + factory;
			assertThat(new String(actual.bytes(), StandardCharsets.ISO_8859_1)).as(as)
				.isEqualTo(new String(expected.bytes(), StandardCharsets.ISO_8859_1));
			assertThat(actual.buffers()).as(as).isLessThanOrEqualTo(Math.max(1, expected.buffers()));
			// Stock gives a Flux no length; the batching writer gives one to a body that went out
			// whole in one buffer, and it is that body's length.
			assertThat(expected.contentLength()).as(as).isEqualTo(-1);
			if (actual.contentLength() != -1) {
				assertThat(actual.contentLength()).as(as).isEqualTo(actual.bytes().length);
				assertThat(actual.buffers()).as(as).isOne();
				assertThat(actual.error()).as(as).isNull();
			}
			if (expected.error() == null) {
				assertThat(actual.error()).as(as).isNull();
			}
			else {
				assertThat(actual.error()).as(as)
					.isInstanceOf(expected.error().getClass())
					.hasMessage(expected.error().getMessage());
			}
			factory.assertNoLeaks();
			if (countStockLeaks) {
				stockFactory.assertNoLeaks();
			}
		}
	}

	private static LeakTrackingDataBufferFactory factory(String name) {
		return name.equals("heap") ? LeakTrackingDataBufferFactory.heap()
				: LeakTrackingDataBufferFactory.nettyPooled(ALLOCATOR);
	}

	private static <T> Flux<T> source(List<T> values, boolean async) {
		Flux<T> flux = Flux.fromIterable(values);
		return async ? flux.delayElements(Duration.ZERO, Schedulers.parallel()) : flux;
	}

	static JacksonJsonEncoder encoder(boolean indent) {
		JsonMapper.Builder builder = JsonMapper.builder();
		if (indent) {
			builder.enable(SerializationFeature.INDENT_OUTPUT);
		}
		return new JacksonJsonEncoder(builder.build());
	}

	static List<Item> randomItems(Random random) {
		int count = switch (random.nextInt(4)) {
			case 0 -> 0;
			case 1 -> 1;
			default -> random.nextInt(200);
		};
		return randomItems(random, count);
	}

	static List<Item> randomItems(Random random, int count) {
		List<Item> items = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			items.add(new Item(randomText(random), random.nextInt(), random.nextBoolean() ? null : randomText(random),
					random.nextBoolean() ? List.of() : List.of(randomText(random), randomText(random))));
		}
		return items;
	}

	private static List<ServerSentEvent<Item>> randomEvents(Random random, List<Item> items) {
		List<ServerSentEvent<Item>> events = new ArrayList<>(items.size());
		for (Item item : items) {
			ServerSentEvent.Builder<Item> event = ServerSentEvent.builder();
			if (random.nextInt(4) != 0) {
				event.data(item);
			}
			if (random.nextBoolean()) {
				event.id(Integer.toString(random.nextInt(1000)));
			}
			if (random.nextBoolean()) {
				event.event("update");
			}
			if (random.nextInt(4) == 0) {
				event.retry(Duration.ofMillis(random.nextInt(5000)));
			}
			if (random.nextInt(4) == 0) {
				event.comment(randomText(random));
			}
			events.add(event.build());
		}
		return events;
	}

	private static final String[] PIECES = { "a", "Zürich", "日本", "😀", "\"", "\\", "\n", "\r\n", "\t", "\u0001", " ",
			"</script>", "data:", "," };

	static String randomText(Random random) {
		StringBuilder text = new StringBuilder();
		int pieces = random.nextInt(6);
		for (int i = 0; i < pieces; i++) {
			text.append(PIECES[random.nextInt(PIECES.length)]);
		}
		return text.toString();
	}

	interface Summary {
	}

	record Item(@JsonView(Summary.class) String name, @JsonView(Summary.class) int number,
			@Nullable String note, List<String> tags) {
	}

	/** A value whose serialization fails half-way, after some of its bytes are written. */
	static final class Unwritable {

		public String getFirst() {
			return "written";
		}

		public String getSecond() {
			throw new IllegalStateException("cannot be written");
		}

	}

	/** A value that fails after fewer bytes than a generator buffers, but many. */
	static final class HalfLongUnwritable {

		public String getFirst() {
			return "x".repeat(5_000);
		}

		public String getSecond() {
			throw new IllegalStateException("cannot be written");
		}

	}

	/** A value that fails after more bytes than a generator buffers are written. */
	static final class LongUnwritable {

		public String getFirst() {
			return "x".repeat(20_000);
		}

		public String getSecond() {
			throw new IllegalStateException("cannot be written");
		}

	}

}
