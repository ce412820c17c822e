package io.fastpath.benchmarks;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Line;
import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Order;
import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Pojo;
import io.fastpath.json.JsonArrayDecoding;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;

/**
 * The one-time cost of a type's first read: each fork decodes a list of ten elements of
 * the type once, in a JVM where Jackson and Fastpath have already read another type (so
 * what is measured is the type's deserializers being built, and with creator
 * optimization Blackbird generating its accessors, not class loading). Stock reads with
 * a plain mapper, Fastpath with its twin that adds Blackbird
 * ({@code fastpath.json.optimize-creators}, the default). Not part of the suite's table
 * (its figures are a time per first read, not a throughput); run it with
 * {@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main FirstRead}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(15)
public class FirstReadBenchmark {

	/** The type read for the first time: a flat record, or an order record with lines. */
	@Param({ "record", "order" })
	public String element;

	private final DefaultDataBufferFactory buffers = DefaultDataBufferFactory.sharedInstance;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private final Decoder<?> stock = new JacksonJsonDecoder(this.mapper);

	private Decoder<?> fastpath;

	private ResolvableType type;

	private byte[] json;

	@Setup
	public void setUp() {
		JsonArrayDecoding decoding = new JsonArrayDecoding(true, BenchmarkMeters.listener("off"));
		if (!decoding.optimizesCreators()) {
			throw new IllegalStateException("Creators are not optimized: is Blackbird on the class path?");
		}
		HttpMessageReader<?> reader = decoding.decorate(List.of(new DecoderHttpMessageReader<>(this.stock))).get(0);
		this.fastpath = ((DecoderHttpMessageReader<?>) reader).getDecoder();
		// Another type first, through both decoders: Jackson's and Fastpath's own classes loaded.
		ResolvableType warmType = ResolvableType.forClassWithGenerics(List.class, Warm.class);
		byte[] warm = this.mapper.writeValueAsBytes(List.of(new Warm("a", 1), new Warm("b", 2)));
		decode(this.stock, warmType, warm);
		decode(this.fastpath, warmType, warm);
		List<Object> elements = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			elements.add(this.element.equals("order")
					? new Order("order-" + i, "customer-" + i,
							List.of(new Line("tea", 1 + i % 3, BigDecimal.valueOf(250 + i, 2))))
					: new Pojo("user-" + i, i, i * 1.5, i % 2 == 0, List.of("tag" + i)));
		}
		Class<?> elementClass = this.element.equals("order") ? Order.class : Pojo.class;
		this.type = ResolvableType.forClassWithGenerics(List.class, elementClass);
		this.json = this.mapper.writeValueAsBytes(elements);
	}

	@Benchmark
	public Object stock() {
		return decode(this.stock, this.type, this.json);
	}

	@Benchmark
	public Object fastpath() {
		return decode(this.fastpath, this.type, this.json);
	}

	private Object decode(Decoder<?> decoder, ResolvableType type, byte[] body) {
		DataBuffer buffer = this.buffers.wrap(body);
		return Objects.requireNonNull(
				decoder.decodeToMono(Mono.just(buffer), type, MediaType.APPLICATION_JSON, null).block());
	}

	/** A type read before the measured one. */
	public record Warm(String name, int count) {
	}

}
