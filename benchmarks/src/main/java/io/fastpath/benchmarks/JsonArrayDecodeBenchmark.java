package io.fastpath.benchmarks;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.fastpath.codec.ReadListener;
import io.fastpath.json.FastpathJsonDecoder;
import io.fastpath.json.JsonArrayDecoding;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;

/**
 * A whole JSON array body decoded, as {@code bodyToMono(List)}, {@code bodyToMono(long[])}
 * or {@code bodyToFlux(T)} do: the stock {@code JacksonJsonDecoder} against
 * {@code FastpathJsonDecoder} (built by {@code JsonArrayDecoding}, as the auto-configuration
 * builds it), with plain Jackson reading the same array from one {@code byte[]} on the
 * application's mapper as the reference. The body arrives in {@code buffers} roughly equal
 * slices, on heap or, as Reactor Netty hands them, in Netty pooled direct buffers
 * ({@code factory}, see {@link BodyBuffers}). Each decoder is given the hints it takes from
 * a request of the body's {@code Content-Length}, as on a server.
 * <p>{@code monoList} and {@code flux} read {@code element}s: a flat {@code record}
 * ({@link Pojo}), the same fields as a {@code bean} ({@link Bean}), or an {@code order}
 * record holding a list of line records with {@code BigDecimal} prices (as the sample's
 * {@code Order}). {@code optimizeCreators} is {@code fastpath.json.optimize-creators}: on,
 * Fastpath reads with a Blackbird twin of the mapper; it changes the {@code fastpath}
 * method only.
 * <p>The suite runs the combinations {@link #inSuite} chooses (the full cross product
 * would take over an hour); any combination runs with {@code -p}.
 */
@State(Scope.Thread)
@Warmup(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class JsonArrayDecodeBenchmark {

	private static final long SEED = 20240611L;

	private static final String[] SKUS = { "tea", "cake", "scone", "jam" };

	@Param({ "monoList", "flux", "monoLongArray", "monoListLong", "monoDoubleArray", "monoBooleanArray",
			"fluxLong" })
	public String target;

	/** The element type of {@code monoList} and {@code flux}. */
	@Param({ "record", "bean", "order" })
	public String element;

	@Param({ "10", "1000" })
	public int elements;

	@Param({ "1", "8" })
	public int buffers;

	@Param({ BufferFactories.HEAP, BufferFactories.NETTY_DIRECT })
	public String factory;

	@Param({ "true", "false" })
	public boolean optimizeCreators;

	/** Fastpath's meters: {@code off}, or {@code on} to measure their cost ({@link BenchmarkMeters}). */
	@Param("off")
	public String meters;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final JacksonJsonDecoder stockDecoder = new JacksonJsonDecoder(this.mapper);

	/** Stock tuned in one step: its decoder on a mapper with Blackbird. */
	private final JacksonJsonDecoder stockBlackbirdDecoder = new JacksonJsonDecoder(
			JsonMapper.builder().addModule(new BlackbirdModule()).build());

	private FastpathJsonDecoder fastpathDecoder;

	@SuppressWarnings("NullAway.Init") // set by setUp(), through mono(...) or flux(...)
	private ResolvableType type;

	private boolean flux;

	private ObjectReader reader;

	private byte[] json;

	private BodyBuffers body;

	/** Each decoder's server hints for a request of the body's length. */
	private Map<String, Object> stockHints = Map.of();

	private Map<String, Object> fastpathHints = Map.of();

	private final ValueSink<Object> valueSink = new ValueSink<>();

	private final ValueSink<Long> countSink = new ValueSink<>();

	/**
	 * The combinations the suite runs: every JSON row on Netty direct buffers, the
	 * headline, with heap rows beside the main ones (the flat record whole and streamed,
	 * a primitive array); creator optimization off only for the nested order record, where
	 * it changes most (in one buffer and as a whole list), 1000 elements but for the row of small
	 * values in many chunks, and one primitive array fewer ({@code monoBooleanArray} reads
	 * as {@code monoLongArray} does). Fewer heap rows than before keep the suite, whole
	 * requests over HTTP included, within its time.
	 * @param parameters one combination of the parameters
	 * @return whether the suite runs it
	 */
	static boolean inSuite(Map<String, String> parameters) {
		String target = String.valueOf(parameters.get("target"));
		String element = String.valueOf(parameters.get("element"));
		int elements = Integer.parseInt(parameters.get("elements"));
		int buffers = Integer.parseInt(parameters.get("buffers"));
		boolean direct = BufferFactories.NETTY_DIRECT.equals(parameters.get("factory"));
		boolean optimized = Boolean.parseBoolean(parameters.get("optimizeCreators"));
		boolean objects = target.equals("monoList") || target.equals("flux");
		if (!objects) {
			// Element type and creators do not apply to scalars: one value of each.
			if (!element.equals("record") || !optimized) {
				return false;
			}
			if (target.equals("fluxLong") && elements == 10) {
				return buffers == 8 && direct;
			}
			if (elements != 1000 || buffers != 1 || target.equals("monoBooleanArray")) {
				return false;
			}
			return direct || target.equals("monoLongArray");
		}
		if (elements != 1000) {
			return false;
		}
		boolean record = !element.equals("bean");
		if (!optimized) {
			return direct && element.equals("order") && (target.equals("monoList") ? buffers == 8 : buffers == 1);
		}
		if (direct) {
			return target.equals("flux") || buffers == 8;
		}
		return buffers == 1 && element.equals("record");
	}

	@Setup(Level.Trial)
	public void setUp() {
		this.stockDecoder.setMaxInMemorySize(-1);
		this.fastpathDecoder = fastpathDecoder(this.stockDecoder.getMapper(), this.optimizeCreators,
				BenchmarkMeters.listener(this.meters));
		this.fastpathDecoder.setMaxInMemorySize(-1);
		Random random = new Random(SEED);
		Object expected = switch (this.target) {
			case "monoList" -> mono(ResolvableType.forClassWithGenerics(List.class, elementClass()), elements(random));
			case "monoLongArray" -> mono(ResolvableType.forClass(long[].class),
					longs(random).stream().mapToLong(Long::longValue).toArray());
			case "monoListLong" -> mono(ResolvableType.forClassWithGenerics(List.class, Long.class), longs(random));
			case "monoDoubleArray" -> mono(ResolvableType.forClass(double[].class),
					random.doubles(this.elements, -1e6, 1e6).toArray());
			case "monoBooleanArray" -> mono(ResolvableType.forClass(boolean[].class), booleans(random));
			case "flux" -> flux(elementClass(), elements(random));
			case "fluxLong" -> flux(Long.class, longs(random));
			default -> throw new IllegalArgumentException("Unknown target " + this.target);
		};
		this.json = this.mapper.writeValueAsBytes(expected);
		this.body = BodyBuffers.of(this.factory, this.json, this.buffers);
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(MediaType.APPLICATION_JSON);
		headers.setContentLength(this.json.length);
		BenchmarkServerRequest request = new BenchmarkServerRequest(URI.create("/"), headers);
		BenchmarkServerResponse response = new BenchmarkServerResponse();
		this.stockHints = this.stockDecoder.getDecodeHints(this.type, this.type, request, response);
		this.fastpathHints = this.fastpathDecoder.getDecodeHints(this.type, this.type, request, response);
		verify(expected);
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.body.release();
	}

	/** Fastpath's decoder as the auto-configuration builds it around a stock one. */
	private static FastpathJsonDecoder fastpathDecoder(JsonMapper mapper, boolean optimizeCreators,
			ReadListener listener) {
		JsonArrayDecoding decoding = new JsonArrayDecoding(optimizeCreators, listener);
		if (decoding.optimizesCreators() != optimizeCreators) {
			// A row labelled optimized must be: Blackbird on the class path, a Java it accepts.
			throw new IllegalStateException("optimizeCreators=" + optimizeCreators + " asked, but creators are "
					+ (decoding.optimizesCreators() ? "" : "not ") + "optimized");
		}
		List<HttpMessageReader<?>> readers = decoding
			.decorate(List.of(new DecoderHttpMessageReader<>(new JacksonJsonDecoder(mapper))));
		return (FastpathJsonDecoder) ((DecoderHttpMessageReader<?>) readers.get(0)).getDecoder();
	}

	private Class<?> elementClass() {
		return switch (this.element) {
			case "record" -> Pojo.class;
			case "bean" -> Bean.class;
			case "order" -> Order.class;
			default -> throw new IllegalArgumentException("Unknown element " + this.element);
		};
	}

	private List<?> elements(Random random) {
		return switch (this.element) {
			case "record" -> pojos(random);
			case "bean" -> beans(random);
			default -> orders(random);
		};
	}

	@Benchmark
	public int stock() {
		return decode(this.stockDecoder);
	}

	@Benchmark
	public int fastpath() {
		return decode(this.fastpathDecoder);
	}

	@Benchmark
	public int stockBlackbird() {
		return decode(this.stockBlackbirdDecoder);
	}

	@Benchmark
	public int jackson() {
		return size(this.reader.readValue(this.json));
	}

	private int decode(Decoder<Object> decoder) {
		Map<String, Object> hints = hints(decoder);
		if (this.flux) {
			decoder.decode(body(), this.type, MediaType.APPLICATION_JSON, hints).count().subscribe(this.countSink);
			return this.countSink.take().intValue();
		}
		decoder.decodeToMono(body(), this.type, MediaType.APPLICATION_JSON, hints).subscribe(this.valueSink);
		return size(this.valueSink.take());
	}

	private Map<String, Object> hints(Decoder<Object> decoder) {
		return (decoder == this.fastpathDecoder) ? this.fastpathHints : this.stockHints;
	}

	private Flux<DataBuffer> body() {
		return this.body.flux();
	}

	private static int size(Object value) {
		return (value instanceof Collection<?> collection) ? collection.size() : Array.getLength(value);
	}

	/**
	 * Decode the whole body with a {@code Mono} of the given type, which plain Jackson
	 * reads too.
	 */
	private Object mono(ResolvableType type, Object values) {
		this.type = type;
		this.reader = readerFor(type);
		return values;
	}

	/**
	 * Decode each element of the array with a {@code Flux}; plain Jackson reads the whole
	 * array as a {@code List} of them.
	 */
	private Object flux(Class<?> element, List<?> values) {
		this.type = ResolvableType.forClass(element);
		this.reader = readerFor(ResolvableType.forClassWithGenerics(List.class, element));
		this.flux = true;
		return values;
	}

	private ObjectReader readerFor(ResolvableType type) {
		return this.mapper.readerFor(this.mapper.constructType(type.getType()));
	}

	/**
	 * Check, once per trial, that the four methods decode the whole body to the values it
	 * was written from, and that each counts every element.
	 */
	private void verify(Object expected) {
		check("jackson", expected, this.reader.readValue(this.json), jackson());
		check("stock", expected, decoded(this.stockDecoder), stock());
		check("fastpath", expected, decoded(this.fastpathDecoder), fastpath());
		check("stockBlackbird", expected, decoded(this.stockBlackbirdDecoder), stockBlackbird());
	}

	private @Nullable Object decoded(Decoder<Object> decoder) {
		if (this.flux) {
			return decoder.decode(body(), this.type, MediaType.APPLICATION_JSON, hints(decoder)).collectList().block();
		}
		return decoder.decodeToMono(body(), this.type, MediaType.APPLICATION_JSON, hints(decoder)).block();
	}

	private void check(String method, Object expected, @Nullable Object decoded, int count) {
		if (!Objects.deepEquals(expected, decoded) || count != this.elements) {
			throw new IllegalStateException(method + " decoded " + this.target + " with " + this.elements
					+ " elements in " + this.buffers + " buffers wrongly: counted " + count + ", got "
					+ ((decoded != null) ? decoded.getClass().getName() : "null"));
		}
	}

	private List<Pojo> pojos(Random random) {
		return list((i) -> new Pojo("user-" + i + "-" + Long.toString(random.nextLong() >>> 1, 36),
				random.nextInt(100), random.nextDouble() * 100, random.nextBoolean(),
				tags(random, random.nextInt(4))));
	}

	private List<Bean> beans(Random random) {
		return list((i) -> {
			Bean bean = new Bean();
			bean.setName("user-" + i + "-" + Long.toString(random.nextLong() >>> 1, 36));
			bean.setAge(random.nextInt(100));
			bean.setScore(random.nextDouble() * 100);
			bean.setActive(random.nextBoolean());
			bean.setTags(tags(random, random.nextInt(4)));
			return bean;
		});
	}

	private List<Order> orders(Random random) {
		return list((i) -> {
			List<Line> lines = new ArrayList<>();
			for (int j = random.nextInt(4); j >= 0; j--) {
				lines.add(new Line(SKUS[random.nextInt(SKUS.length)], 1 + random.nextInt(5),
						BigDecimal.valueOf(50 + random.nextInt(2000), 2)));
			}
			return new Order("order-" + i, "customer-" + random.nextInt(500), lines);
		});
	}

	private static List<String> tags(Random random, int count) {
		List<String> tags = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			tags.add("tag" + random.nextInt(50));
		}
		return tags;
	}

	private List<Long> longs(Random random) {
		// A mix of small and large values, as ids and counters are
		return list((i) -> (i % 2 == 0) ? (long) random.nextInt(10_000) : random.nextLong());
	}

	private boolean[] booleans(Random random) {
		boolean[] values = new boolean[this.elements];
		for (int i = 0; i < values.length; i++) {
			values[i] = random.nextBoolean();
		}
		return values;
	}

	private <T> List<T> list(IntFunction<T> element) {
		List<T> values = new ArrayList<>(this.elements);
		for (int i = 0; i < this.elements; i++) {
			values.add(element.apply(i));
		}
		return values;
	}

	/**
	 * A small object as JSON APIs exchange them.
	 *
	 * @param name the name
	 * @param age the age
	 * @param score the score
	 * @param active whether active
	 * @param tags the tags
	 */
	public record Pojo(String name, int age, double score, boolean active, List<String> tags) {
	}

	/**
	 * An order, as the sample's.
	 *
	 * @param id the id
	 * @param customer who ordered
	 * @param lines what was ordered
	 */
	public record Order(String id, String customer, List<Line> lines) {
	}

	/**
	 * A line of an order.
	 *
	 * @param sku the item
	 * @param quantity how many
	 * @param unitPrice the price of one
	 */
	public record Line(String sku, int quantity, BigDecimal unitPrice) {
	}

	/**
	 * The fields of {@link Pojo} in a mutable bean, set through setters.
	 */
	public static class Bean {

		private String name = "";

		private int age;

		private double score;

		private boolean active;

		private List<String> tags = List.of();

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		public int getAge() {
			return this.age;
		}

		public void setAge(int age) {
			this.age = age;
		}

		public double getScore() {
			return this.score;
		}

		public void setScore(double score) {
			this.score = score;
		}

		public boolean isActive() {
			return this.active;
		}

		public void setActive(boolean active) {
			this.active = active;
		}

		public List<String> getTags() {
			return this.tags;
		}

		public void setTags(List<String> tags) {
			this.tags = tags;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return other instanceof Bean bean && this.name.equals(bean.name) && this.age == bean.age
					&& this.score == bean.score && this.active == bean.active && this.tags.equals(bean.tags);
		}

		@Override
		public int hashCode() {
			return this.name.hashCode();
		}

	}

}
