package io.fastpath.benchmarks;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.fastpath.json.JsonArrayDecoder;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;

/**
 * A whole JSON array body decoded, as {@code bodyToMono(List)}, {@code bodyToMono(long[])}
 * or {@code bodyToFlux(Pojo)} do: the stock {@code JacksonJsonDecoder} against
 * {@code JsonArrayDecoder}, with plain Jackson reading the same array from one
 * {@code byte[]} as the reference. The body arrives as heap buffers, split into
 * {@code buffers} roughly equal slices that are wrapped, not copied, for each operation.
 * <p>{@code Pojo} is a record, as Boot applications often write them. Jackson 3 creates
 * records through their constructor, which costs more per element than a bean's setters,
 * for the three methods alike: {@code -p target=fluxBean} runs {@code fluxPojo} with the
 * same fields in a {@link Bean} instead (not part of the suite, to keep it within its
 * time).
 */
@State(Scope.Thread)
@Warmup(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class JsonArrayDecodeBenchmark {

	private static final Map<String, Object> NO_HINTS = Collections.emptyMap();

	private static final long SEED = 20240611L;

	@Param({ "monoListPojo", "monoLongArray", "monoListLong", "monoDoubleArray", "monoBooleanArray", "fluxPojo",
			"fluxLong" })
	public String target;

	@Param({ "10", "1000" })
	public int elements;

	@Param({ "1", "8" })
	public int buffers;

	/** Fastpath's meters: {@code off}, or {@code on} to measure their cost ({@link BenchmarkMeters}). */
	@Param("off")
	public String meters;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final JacksonJsonDecoder stockDecoder = new JacksonJsonDecoder(this.mapper);

	private JsonArrayDecoder fastpathDecoder;

	@SuppressWarnings("NullAway.Init") // set by setUp(), through mono(...) or flux(...)
	private ResolvableType type;

	private boolean flux;

	private ObjectReader reader;

	private byte[] json;

	private byte[][] slices;

	private final ValueSink<Object> valueSink = new ValueSink<>();

	private final ValueSink<Long> countSink = new ValueSink<>();

	@Setup(Level.Trial)
	public void setUp() {
		this.fastpathDecoder = JsonArrayDecoder.from(new JacksonJsonDecoder(this.mapper),
				BenchmarkMeters.listener(this.meters));
		this.stockDecoder.setMaxInMemorySize(-1);
		this.fastpathDecoder.setMaxInMemorySize(-1);
		Random random = new Random(SEED);
		Object expected = switch (this.target) {
			case "monoListPojo" -> mono(ResolvableType.forClassWithGenerics(List.class, Pojo.class), pojos(random));
			case "monoLongArray" -> mono(ResolvableType.forClass(long[].class),
					longs(random).stream().mapToLong(Long::longValue).toArray());
			case "monoListLong" -> mono(ResolvableType.forClassWithGenerics(List.class, Long.class), longs(random));
			case "monoDoubleArray" -> mono(ResolvableType.forClass(double[].class),
					random.doubles(this.elements, -1e6, 1e6).toArray());
			case "monoBooleanArray" -> mono(ResolvableType.forClass(boolean[].class), booleans(random));
			case "fluxPojo" -> flux(Pojo.class, pojos(random));
			case "fluxLong" -> flux(Long.class, longs(random));
			case "fluxBean" -> flux(Bean.class, beans(random));
			default -> throw new IllegalArgumentException("Unknown target " + this.target);
		};
		this.json = this.mapper.writeValueAsBytes(expected);
		this.slices = new byte[this.buffers][];
		for (int i = 0; i < this.buffers; i++) {
			this.slices[i] = Arrays.copyOfRange(this.json, i * this.json.length / this.buffers,
					(i + 1) * this.json.length / this.buffers);
		}
		verify(expected);
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
	public int jackson() {
		return size(this.reader.readValue(this.json));
	}

	private int decode(Decoder<Object> decoder) {
		if (this.flux) {
			decoder.decode(body(), this.type, MediaType.APPLICATION_JSON, NO_HINTS).count().subscribe(this.countSink);
			return this.countSink.take().intValue();
		}
		decoder.decodeToMono(body(), this.type, MediaType.APPLICATION_JSON, NO_HINTS).subscribe(this.valueSink);
		return size(this.valueSink.take());
	}

	private Flux<DataBuffer> body() {
		if (this.buffers == 1) {
			return Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(this.slices[0]));
		}
		DataBuffer[] body = new DataBuffer[this.buffers];
		for (int i = 0; i < this.buffers; i++) {
			body[i] = DefaultDataBufferFactory.sharedInstance.wrap(this.slices[i]);
		}
		return Flux.fromArray(body);
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
	 * Check, once per trial, that the three methods decode the whole body to the values it
	 * was written from, and that each counts every element.
	 */
	private void verify(Object expected) {
		check("jackson", expected, this.reader.readValue(this.json), jackson());
		check("stock", expected, decoded(this.stockDecoder), stock());
		check("fastpath", expected, decoded(this.fastpathDecoder), fastpath());
	}

	private @Nullable Object decoded(Decoder<Object> decoder) {
		if (this.flux) {
			return decoder.decode(body(), this.type, MediaType.APPLICATION_JSON, NO_HINTS).collectList().block();
		}
		return decoder.decodeToMono(body(), this.type, MediaType.APPLICATION_JSON, NO_HINTS).block();
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
