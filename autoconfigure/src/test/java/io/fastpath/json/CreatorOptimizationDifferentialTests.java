package io.fastpath.json;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonView;
import io.fastpath.codec.ReadListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.InjectableValues;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.annotation.JsonPOJOBuilder;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.core.OverridingClassLoader;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.util.MimeType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Differential tests of creator optimization: Fastpath reading with a Blackbird twin of
 * the application's mapper (and, as a control, without it) against the stock decoder on
 * the application's mapper, over the same bodies cut into the same random chunks, on heap
 * and Netty pooled buffers. Records, nested and generic records, records whose compact
 * constructor throws, {@code @JsonCreator} constructors and factories in properties and
 * delegating modes, builders, {@code @JacksonInject}, mix-ins, {@code @JsonView},
 * non-public types and a record from another class loader: the same values, or an error
 * of the same class with a cause of the same class.
 */
class CreatorOptimizationDifferentialTests {

	private static final long SEED = TestSeed.SEED;

	private static final MediaType JSON = MediaType.APPLICATION_JSON;

	@BeforeAll
	static void logSeed() {
		// at INFO, which a green build does not show; a drawn seed is printed by TestSeed
		LogFactory.getLog(CreatorOptimizationDifferentialTests.class)
			.info("seed: " + SEED + " (rerun with -Dfastpath.seed=" + SEED + ")");
	}

	static Stream<Arguments> shapes() {
		Random random = new Random(SEED);
		List<String> lines = new ArrayList<>(List.of("{\"sku\":\"a\",\"quantity\":2,\"price\":9.99}",
				"{\"sku\":\"a\",\"price\":1}", "{\"sku\":\"a\",\"quantity\":null,\"price\":1}",
				"{\"sku\":\"a\",\"quantity\":\"x\",\"price\":1}", "{\"sku\":\"a\",\"extra\":[1,{}],\"quantity\":1}",
				"{\"price\":1e400,\"sku\":null}", "{\"sku\":\"a\",\"quantity\":", "{}", "null", "[1]", "\"text\""));
		for (int i = 0; i < 8; i++) {
			lines.add(randomLine(random));
		}
		List<String> orders = new ArrayList<>(List.of("{\"id\":\"o1\",\"lines\":[],\"note\":null}",
				"{\"id\":\"o2\",\"lines\":null}", "{\"id\":\"o3\",\"lines\":[{\"sku\":\"b\",\"quantity\":\"z\"}]}",
				"{\"id\":\"o4\",\"lines\":{\"sku\":\"b\"}}", "{\"id\":\"o5\",\"lines\":[{\"sku\":\"b\"},"));
		for (int i = 0; i < 6; i++) {
			orders.add(randomOrder(random));
		}
		JsonMapper defaults = JsonMapper.builder().build();
		return Stream.of(
				shape("record", defaults, Line.class, lines),
				shape("nested record", defaults, Order.class, orders),
				shape("generic record", defaults, ResolvableType.forClassWithGenerics(Page.class, Line.class),
						List.of("{\"items\":[" + randomLine(random) + "," + randomLine(random) + "],\"total\":2}",
								"{\"items\":[{\"sku\":1}],\"total\":\"many\"}", "{\"total\":0}")),
				shape("record whose compact constructor throws", defaults, Positive.class,
						List.of("{\"value\":1}", "{\"value\":-1}", "{\"value\":0}", "{}")),
				shape("@JsonCreator constructor", defaults, CreatorConstructor.class,
						List.of("{\"name\":\"n\",\"size\":3}", "{\"size\":3}", "{\"name\":\"n\",\"size\":-3}",
								"{\"name\":[],\"size\":3}")),
				shape("@JsonCreator factory", defaults, CreatorFactory.class,
						List.of("{\"name\":\"n\",\"size\":3}", "{\"name\":\"n\",\"size\":-3}", "{\"size\":\"3\"}")),
				shape("delegating @JsonCreator constructor", defaults, DelegatingConstructor.class,
						List.of("\"text\"", "\"\"", "12", "{\"value\":1}", "[\"a\"]", "\"boom\"")),
				shape("delegating @JsonCreator factory", defaults, DelegatingFactory.class,
						List.of("{\"a\":1,\"b\":2}", "{}", "{\"a\":\"x\"}", "[]", "{\"boom\":1}")),
				shape("builder", defaults, Built.class,
						List.of("{\"name\":\"n\",\"size\":1}", "{\"size\":1}", "{\"name\":\"n\",\"size\":-1}",
								"{\"name\":\"n\",\"other\":1}")),
				shape("@JacksonInject", JsonMapper.builder()
					.injectableValues(new InjectableValues.Std().addValue("tenant", "acme"))
					.build(), Injected.class, List.of("{\"name\":\"n\"}", "{\"name\":\"n\",\"tenant\":\"other\"}")),
				shape("mix-in", JsonMapper.builder().addMixIn(Plain.class, PlainMixIn.class).build(), Plain.class,
						List.of("{\"alpha\":\"a\",\"beta\":1}", "{\"a\":\"a\",\"b\":1}", "{\"beta\":\"x\"}")),
				shape("@JsonView", defaults, Viewed.class,
						List.of("{\"name\":\"n\",\"secret\":\"s\"}", "{\"secret\":\"s\"}"))
					.withView(PublicView.class),
				shape("setters and an all-arguments constructor", defaults, SettersAndAllArguments.class,
						List.of("{\"name\":\"n\",\"size\":2}", "{\"size\":2}", "{\"name\":\"n\",\"size\":\"x\"}")),
				shape("non-public record", defaults, Hidden.class,
						List.of("{\"name\":\"n\",\"count\":1}", "{\"count\":\"x\"}", "{\"name\":\"n\"")),
				shape("record from another class loader", defaults, IsolatingClassLoader.copyOf(IsolatedLine.class),
						lines))
			.map(Arguments::of);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("shapes")
	void readsTheSameAsStockWithTheOptimizationOnAndOff(Shape shape) {
		Random random = new Random(SEED ^ shape.name().hashCode());
		JacksonJsonDecoder stock = new JacksonJsonDecoder(shape.mapper());
		FastpathJsonDecoder optimized = FastpathJsonDecoder.from(new JacksonJsonDecoder(shape.mapper()),
				new BlackbirdTwins(BlackbirdTwins.Use.READING), ReadListener.NONE);
		FastpathJsonDecoder plain = FastpathJsonDecoder.from(new JacksonJsonDecoder(shape.mapper()));
		List<String> failures = new ArrayList<>();
		for (LeakTrackingDataBufferFactory factory : List.of(LeakTrackingDataBufferFactory.heap(),
				LeakTrackingDataBufferFactory.nettyPooled())) {
			for (String element : shape.bodies()) {
				compare(shape, "Mono<T> " + element, element, shape.type(), false, stock, optimized, plain, factory,
						random, failures);
			}
			String array = "[" + String.join(",", shape.bodies()) + "]";
			List<String> valid = new ArrayList<>();
			for (String element : shape.bodies()) {
				valid.add(element);
				String prefix = "[" + String.join(",", valid) + "]";
				compare(shape, "Flux<T> " + prefix, prefix, shape.type(), true, stock, optimized, plain, factory,
						random, failures);
			}
			compare(shape, "Mono<List<T>> " + array, array, ResolvableType.forClassWithGenerics(List.class,
					shape.type()), false, stock, optimized, plain, factory, random, failures);
			factory.assertNoLeaks();
		}
		assertThat(failures).as("seed " + SEED).isEmpty();
	}

	@Test
	void comparisonSeesAValueChangedBeforeAnError() {
		// A planted defect: Blackbird's side loses the first value of a stream that then
		// fails with the same exception class as stock and as Fastpath without Blackbird.
		Shape shape = shape("record", JsonMapper.builder().build(), Line.class, List.of());
		String body = "[{\"sku\":\"a\",\"quantity\":1,\"price\":1},{\"sku\":\"b\",\"quantity\":2,\"price\":2},"
				+ "{\"sku\":\"c\",\"quantity\":\"x\",\"price\":3}]";
		FastpathJsonDecoder optimized = FastpathJsonDecoder.from(new JacksonJsonDecoder(shape.mapper()),
				new BlackbirdTwins(BlackbirdTwins.Use.READING), ReadListener.NONE);
		Decoder<Object> losingFirstValue = new LosingFirstValue(optimized);
		List<String> failures = new ArrayList<>();
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		// Cut after the second value: both emit it before the third fails.
		int cut = body.indexOf("{\"sku\":\"c\"");
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		List<byte[]> chunks = List.of(java.util.Arrays.copyOfRange(bytes, 0, cut),
				java.util.Arrays.copyOfRange(bytes, cut, bytes.length));
		compare(shape, "planted", chunks, new HashMap<>(), shape.type(), true, new JacksonJsonDecoder(shape.mapper()),
				losingFirstValue, FastpathJsonDecoder.from(new JacksonJsonDecoder(shape.mapper())), factory, failures);
		assertThat(failures).anySatisfy((failure) -> assertThat(failure).contains("with Blackbird, against stock")
			.contains("values before the error"))
			.anySatisfy((failure) -> assertThat(failure).contains("with Blackbird, against without")
				.contains("values before the error"));
		factory.assertNoLeaks();
	}

	/** A decoder that drops the first value of every stream: a defect to plant. */
	private static final class LosingFirstValue implements Decoder<Object> {

		private final FastpathJsonDecoder delegate;

		LosingFirstValue(FastpathJsonDecoder delegate) {
			this.delegate = delegate;
		}

		@Override
		public boolean canDecode(ResolvableType elementType, @Nullable MimeType mimeType) {
			return this.delegate.canDecode(elementType, mimeType);
		}

		@Override
		public Flux<Object> decode(Publisher<DataBuffer> input, ResolvableType elementType,
				@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
			return this.delegate.decode(input, elementType, mimeType, hints).skip(1);
		}

		@Override
		public Mono<Object> decodeToMono(Publisher<DataBuffer> input, ResolvableType elementType,
				@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
			return this.delegate.decodeToMono(input, elementType, mimeType, hints);
		}

		@Override
		public List<MimeType> getDecodableMimeTypes() {
			return this.delegate.getDecodableMimeTypes();
		}

	}

	@Test
	void recordsAreBuiltThroughBlackbirdWhileTheApplicationsMapperIsLeftAlone() {
		JsonMapper mapper = JsonMapper.builder().build();
		FastpathJsonDecoder optimized = FastpathJsonDecoder.from(new JacksonJsonDecoder(mapper), new BlackbirdTwins(BlackbirdTwins.Use.READING), ReadListener.NONE);
		byte[] body = "{\"name\":\"n\"}".getBytes(StandardCharsets.UTF_8);
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		Probe probe = (Probe) optimized.decode(factory.wrap(body), ResolvableType.forClass(Probe.class), JSON, null);
		assertThat(probe).isNotNull();
		assertThat(probe.throughBlackbird()).isTrue();
		assertThat(mapper.readValue(body, Probe.class).throughBlackbird()).isFalse();
		assertThat(mapper.registeredModules()).noneMatch(BlackbirdModule.class::isInstance);
	}

	@Test
	void recordFromAnotherClassLoaderIsADifferentClassOfTheSameName() throws Exception {
		Class<?> copy = IsolatingClassLoader.copyOf(IsolatedLine.class);
		assertThat(copy).isNotEqualTo(IsolatedLine.class).hasSameHashCodeAs(copy);
		assertThat(copy.getName()).isEqualTo(IsolatedLine.class.getName());
		assertThat(copy.getClassLoader()).isInstanceOf(IsolatingClassLoader.class);
		JsonMapper mapper = JsonMapper.builder().build();
		FastpathJsonDecoder optimized = FastpathJsonDecoder.from(new JacksonJsonDecoder(mapper), new BlackbirdTwins(BlackbirdTwins.Use.READING),
				ReadListener.NONE);
		Object line = optimized.decode(LeakTrackingDataBufferFactory.heap()
			.wrap("{\"sku\":\"a\",\"quantity\":2,\"price\":9.99}".getBytes(StandardCharsets.UTF_8)),
				ResolvableType.forClass(copy), JSON, null);
		assertThat(line).isInstanceOf(copy);
		assertThat(copy.getMethod("price").invoke(line)).isEqualTo(new BigDecimal("9.99"));
	}

	private static void compare(Shape shape, String description, String body, ResolvableType type, boolean flux,
			Decoder<?> stock, Decoder<?> optimized, Decoder<?> plain, LeakTrackingDataBufferFactory factory,
			Random random, List<String> failures) {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		List<byte[]> chunks = split(bytes, random);
		Map<String, Object> hints = new HashMap<>();
		if (shape.view() != null) {
			hints.put(JacksonCodecSupport.JSON_VIEW_HINT, shape.view());
		}
		if (flux && random.nextBoolean()) {
			// A request body of known length: a whole body in one chunk is read in place.
			hints.put(FastpathJsonDecoder.CONTENT_LENGTH_HINT, (long) bytes.length);
		}
		compare(shape, description, chunks, hints, type, flux, stock, optimized, plain, factory, failures);
	}

	private static void compare(Shape shape, String description, List<byte[]> chunks, Map<String, Object> hints,
			ResolvableType type, boolean flux, Decoder<?> stock, Decoder<?> optimized, Decoder<?> plain,
			LeakTrackingDataBufferFactory factory, List<String> failures) {
		DecoderOutcome expected = decode(stock, type, flux, chunks, factory.forStock(), hints);
		DecoderOutcome withoutBlackbird = decode(plain, type, flux, chunks, factory, hints);
		DecoderOutcome withBlackbird = decode(optimized, type, flux, chunks, factory, hints);
		// Against stock: the same values, or the same exception class after the same values
		// where both emitted one (a failure may show a chunk earlier in one). Against Fastpath
		// without Blackbird, which reads the same chunks the same way: the same values before
		// an error, all of them, and the same cause, so Blackbird changes no error's kind
		// (where Fastpath's cause differs from stock's, an earlier syntax error in a chunk that
		// stock tokenizes first, it differs with and without Blackbird alike).
		String difference = againstStock(expected, withoutBlackbird);
		if (difference != null) {
			failures.add(describe(shape, description, "without Blackbird, against stock", chunks, factory, difference,
					expected, withoutBlackbird));
		}
		difference = againstStock(expected, withBlackbird);
		if (difference != null) {
			failures.add(describe(shape, description, "with Blackbird, against stock", chunks, factory, difference,
					expected, withBlackbird));
		}
		difference = withoutBlackbird.differenceFrom(withBlackbird);
		if (difference == null) {
			difference = withoutBlackbird.valuesBeforeErrorDifferenceFrom(withBlackbird, true);
		}
		if (difference == null) {
			difference = withoutBlackbird.causeDifferenceFrom(withBlackbird);
		}
		if (difference != null) {
			failures.add(describe(shape, description, "with Blackbird, against without", chunks, factory, difference,
					withoutBlackbird, withBlackbird));
		}
	}

	private static @Nullable String againstStock(DecoderOutcome stock, DecoderOutcome fastpath) {
		String difference = stock.differenceFrom(fastpath);
		return (difference != null) ? difference : stock.valuesBeforeErrorDifferenceFrom(fastpath, false);
	}

	private static String describe(Shape shape, String description, String comparison, List<byte[]> chunks,
			LeakTrackingDataBufferFactory factory, String difference, DecoderOutcome expected,
			DecoderOutcome actual) {
		return shape.name() + " / " + description + " (" + comparison + ", " + factory + ", chunks "
				+ chunks.stream().map((chunk) -> chunk.length).toList() + "): " + difference + "\n  expected: "
				+ expected + "\n  actual:   " + actual;
	}

	private static DecoderOutcome decode(Decoder<?> decoder, ResolvableType type, boolean flux, List<byte[]> chunks,
			LeakTrackingDataBufferFactory factory, @Nullable Map<String, Object> hints) {
		Supplier<Flux<DataBuffer>> input = () -> Flux.defer(() -> Flux.fromIterable(chunks).map(factory::bufferOf));
		Supplier<Publisher<?>> call = flux ? () -> decoder.decode(input.get(), type, JSON, hints)
				: () -> decoder.decodeToMono(input.get(), type, JSON, hints);
		return DecoderOutcome.of(call);
	}

	/** The body in one chunk, or cut at up to three random places. */
	private static List<byte[]> split(byte[] body, Random random) {
		int cuts = (body.length < 2) ? 0 : random.nextInt(4);
		List<Integer> positions = random.ints(cuts, 1, body.length).sorted().distinct().boxed().toList();
		List<byte[]> chunks = new ArrayList<>();
		int start = 0;
		for (int position : positions) {
			chunks.add(java.util.Arrays.copyOfRange(body, start, position));
			start = position;
		}
		chunks.add(java.util.Arrays.copyOfRange(body, start, body.length));
		return chunks;
	}

	private static String randomLine(Random random) {
		return "{\"sku\":\"s" + random.nextInt(1000) + "\",\"quantity\":" + random.nextInt(100) + ",\"price\":"
				+ BigDecimal.valueOf(random.nextInt(1_000_000), random.nextInt(4)) + "}";
	}

	private static String randomOrder(Random random) {
		List<String> lines = new ArrayList<>();
		for (int i = random.nextInt(4); i > 0; i--) {
			lines.add(randomLine(random));
		}
		return "{\"id\":\"o" + random.nextInt(1000) + "\",\"lines\":[" + String.join(",", lines) + "],\"note\":"
				+ (random.nextBoolean() ? "null" : "\"n" + random.nextInt(9) + "\"") + "}";
	}

	private static Shape shape(String name, JsonMapper mapper, Class<?> type, List<String> bodies) {
		return shape(name, mapper, ResolvableType.forClass(type), bodies);
	}

	private static Shape shape(String name, JsonMapper mapper, ResolvableType type, List<String> bodies) {
		return new Shape(name, mapper, type, bodies, null);
	}

	record Shape(String name, JsonMapper mapper, ResolvableType type, List<String> bodies, @Nullable Class<?> view) {

		Shape withView(Class<?> view) {
			return new Shape(this.name, this.mapper, this.type, this.bodies, view);
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	record Line(String sku, int quantity, BigDecimal price) {
	}

	/** Defines its own copy of one class from the class file, and delegates the rest. */
	static final class IsolatingClassLoader extends OverridingClassLoader {

		private final String name;

		private IsolatingClassLoader(Class<?> original) {
			super(original.getClassLoader());
			this.name = original.getName();
		}

		static Class<?> copyOf(Class<?> original) {
			try {
				return new IsolatingClassLoader(original).loadClass(original.getName());
			}
			catch (ClassNotFoundException ex) {
				throw new IllegalStateException(ex);
			}
		}

		@Override
		protected boolean isEligibleForOverriding(String className) {
			return className.equals(this.name);
		}

	}

	record Order(String id, List<Line> lines, @Nullable String note) {
	}

	record Page<T>(List<T> items, int total) {
	}

	record Positive(int value) {

		Positive {
			if (value < 0) {
				throw new IllegalArgumentException("negative: " + value);
			}
		}

	}

	static final class CreatorConstructor {

		final String name;

		final int size;

		@JsonCreator
		CreatorConstructor(@JsonProperty("name") String name, @JsonProperty("size") int size) {
			if (size < 0) {
				throw new IllegalArgumentException("size");
			}
			this.name = name;
			this.size = size;
		}

	}

	static final class CreatorFactory {

		final String name;

		final int size;

		private CreatorFactory(String name, int size) {
			this.name = name;
			this.size = size;
		}

		@JsonCreator
		static CreatorFactory of(@JsonProperty("name") String name, @JsonProperty("size") int size) {
			if (size < 0) {
				throw new IllegalStateException("size");
			}
			return new CreatorFactory(name, size);
		}

	}

	static final class DelegatingConstructor {

		final String value;

		@JsonCreator(mode = JsonCreator.Mode.DELEGATING)
		DelegatingConstructor(String value) {
			if (value.equals("boom")) {
				throw new IllegalArgumentException("boom");
			}
			this.value = value;
		}

	}

	static final class DelegatingFactory {

		final Map<String, Integer> values;

		private DelegatingFactory(Map<String, Integer> values) {
			this.values = values;
		}

		@JsonCreator(mode = JsonCreator.Mode.DELEGATING)
		static DelegatingFactory from(Map<String, Integer> values) {
			if (values.containsKey("boom")) {
				throw new IllegalArgumentException("boom");
			}
			return new DelegatingFactory(values);
		}

	}

	@JsonDeserialize(builder = Built.Builder.class)
	static final class Built {

		final String name;

		final int size;

		Built(String name, int size) {
			this.name = name;
			this.size = size;
		}

		@JsonPOJOBuilder(withPrefix = "")
		static final class Builder {

			private @Nullable String name;

			private int size;

			Builder name(String name) {
				this.name = name;
				return this;
			}

			Builder size(int size) {
				if (size < 0) {
					throw new IllegalArgumentException("size");
				}
				this.size = size;
				return this;
			}

			Built build() {
				return new Built(this.name, this.size);
			}

		}

	}

	record Injected(String name, @JacksonInject("tenant") String tenant) {
	}

	static final class Plain {

		final String a;

		final int b;

		Plain(String a, int b) {
			this.a = a;
			this.b = b;
		}

	}

	abstract static class PlainMixIn {

		@JsonCreator
		PlainMixIn(@JsonProperty("alpha") String a, @JsonProperty("beta") int b) {
		}

	}

	interface PublicView {

	}

	interface InternalView {

	}

	record Viewed(@JsonView(PublicView.class) String name, @JsonView(InternalView.class) @Nullable String secret) {
	}

	/** What Lombok's {@code @Data @NoArgsConstructor @AllArgsConstructor} makes. */
	static final class SettersAndAllArguments {

		private @Nullable String name;

		private int size;

		SettersAndAllArguments() {
		}

		SettersAndAllArguments(String name, int size) {
			this.name = name;
			this.size = size;
		}

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		public int getSize() {
			return this.size;
		}

		public void setSize(int size) {
			this.size = size;
		}

	}

	private record Hidden(String name, int count) {
	}

	/** Remembers whether Blackbird's generated code called its constructor. */
	record Probe(String name, boolean throughBlackbird) {

		Probe {
			throughBlackbird = StackWalker.getInstance()
				.walk((frames) -> frames.anyMatch((frame) -> frame.getClassName().startsWith("tools.jackson.module.blackbird")));
		}

		@JsonCreator
		Probe(@JsonProperty("name") String name) {
			this(name, false);
		}

	}

}
