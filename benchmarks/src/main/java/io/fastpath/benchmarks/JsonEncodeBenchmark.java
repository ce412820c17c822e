package io.fastpath.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Pojo;
import io.fastpath.json.write.JsonBatchEncoding;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Encoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

/**
 * A {@code Flux} of records encoded as a JSON array, as a WebFlux response writes it,
 * without the server: the stock {@code JacksonJsonEncoder} (a buffer per value) against
 * Fastpath's batching encoder (built by {@code JsonBatchEncoding}, as the
 * auto-configuration builds it), with Jackson writing the same records as one list into
 * one {@code byte[]} (wrapped, as the {@code byte[]} response is) as the reference. The
 * buffers come from Netty's pooled direct allocator, as on Reactor Netty, or the heap
 * ({@code factory}); every buffer is released as the server would once written. What a
 * whole request costs beyond this is the server's: {@code HttpRequestBenchmark}'s
 * {@code flux-json-*} rows.
 */
@State(Scope.Thread)
@Warmup(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class JsonEncodeBenchmark {

	private static final ResolvableType POJO = ResolvableType.forClass(Pojo.class);

	@Param({ "10", "1000" })
	public int elements;

	@Param({ BufferFactories.NETTY_DIRECT, BufferFactories.HEAP })
	public String factory;

	private final JsonMapper mapper = JsonMapper.builder().build();

	private List<Pojo> records = List.of();

	private DataBufferFactory buffers = BufferFactories.named(BufferFactories.HEAP);

	private Encoder<Object> stock = new JacksonJsonEncoder(this.mapper);

	private Encoder<Object> fastpath = this.stock;

	@Setup
	@SuppressWarnings("unchecked")
	public void setUp() {
		this.records = records(this.elements);
		this.buffers = BufferFactories.named(this.factory);
		JacksonJsonEncoder encoder = new JacksonJsonEncoder(this.mapper);
		this.stock = encoder;
		HttpMessageWriter<?> batching = new JsonBatchEncoding()
			.decorate(List.of(new EncoderHttpMessageWriter<>(encoder)))
			.get(0);
		this.fastpath = (Encoder<Object>) ((EncoderHttpMessageWriter<?>) batching).getEncoder();
	}

	@Benchmark
	public long stock() {
		return written(this.stock);
	}

	@Benchmark
	public long fastpath() {
		return written(this.fastpath);
	}

	/** The reference: one list into one {@code byte[]}, wrapped as the response is. */
	@Benchmark
	public long jackson() {
		DataBuffer body = this.buffers.wrap(this.mapper.writeValueAsBytes(this.records));
		int length = body.readableByteCount();
		DataBufferUtils.release(body);
		return length;
	}

	private long written(Encoder<Object> encoder) {
		Long bytes = encoder
			.encode(Flux.fromIterable(this.records), this.buffers, POJO, MediaType.APPLICATION_JSON, Map.of())
			.reduce(0L, (total, buffer) -> {
				long sum = total + buffer.readableByteCount();
				DataBufferUtils.release(buffer);
				return sum;
			})
			.block();
		return (bytes != null) ? bytes : 0;
	}

	private static List<Pojo> records(int count) {
		Random random = new Random(20261202L);
		List<Pojo> records = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			List<String> tags = new ArrayList<>();
			for (int j = random.nextInt(4); j > 0; j--) {
				tags.add("tag" + random.nextInt(50));
			}
			records.add(new Pojo("user-" + i + "-" + Long.toString(random.nextLong() >>> 1, 36), random.nextInt(100),
					random.nextDouble() * 100, random.nextBoolean(), tags));
		}
		return records;
	}

}
