package io.fastpath.benchmarks;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Pojo;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.write.JsonBatchEncoding;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Encoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

/**
 * A response body of {@code element}s encoded as a JSON array, as a WebFlux response
 * writes it, without the server: the stock {@code JacksonJsonEncoder} against Fastpath's
 * batching encoder (built by {@code JsonBatchEncoding}, as the auto-configuration builds
 * it), with stock on a mapper with Blackbird ({@code stockBlackbird}, stock tuned in one
 * step) beside them and Jackson writing the same elements as one list into one
 * {@code byte[]} (wrapped, as the {@code byte[]} response is) as the reference.
 * <p>{@code target} is how the controller returns them: a {@code flux} of elements, which
 * stock writes a buffer per element and Fastpath in batches, or a {@code list}, one value
 * ({@code Mono<List<T>>}) that each encoder writes into one buffer. {@code element} is a
 * flat {@code record} ({@link Pojo}) or a {@code bean} read through its getters
 * ({@link Account}). {@code optimizeCreators} is {@code fastpath.json.optimize-creators}:
 * on, Fastpath writes with a Blackbird twin of the mapper; it changes the {@code fastpath}
 * method only. The buffers come from Netty's pooled direct allocator, as on Reactor
 * Netty, or the heap, as on Servlet and Jetty adapters ({@code factory}); every buffer is
 * released as the server would once written. What a whole request costs beyond this is
 * the server's: {@code HttpRequestBenchmark}'s {@code flux-json-*} rows.
 * <p>The suite runs the combinations {@link #inSuite} chooses; any combination runs with
 * {@code -p}. {@code -p mediaType=ndjson} writes the {@code flux} as NDJSON (the
 * {@code jackson} reference stays the JSON array).
 */
@State(Scope.Thread)
// Seconds, not the readers' half-seconds: the writers' forks climb for longer before their
// speed settles, and half-second warm-ups left the first measurements in the climb.
@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class JsonEncodeBenchmark {

	@Param({ "flux", "list" })
	public String target;

	@Param({ "record", "bean" })
	public String element;

	@Param({ "10", "1000" })
	public int elements;

	@Param({ BufferFactories.NETTY_DIRECT, BufferFactories.HEAP })
	public String factory;

	@Param({ "true", "false" })
	public boolean optimizeCreators;

	/** {@code json}; {@code -p mediaType=ndjson} writes the {@code flux} as NDJSON. */
	@Param({ "json" })
	public String mediaType = "json";

	private final JsonMapper mapper = JsonMapper.builder().build();

	private List<?> values = List.of();

	private ResolvableType type = ResolvableType.forClass(Pojo.class);

	private boolean flux;

	private MediaType writtenAs = MediaType.APPLICATION_JSON;

	private DataBufferFactory buffers = BufferFactories.named(BufferFactories.HEAP);

	private Encoder<Object> stock = new JacksonJsonEncoder(this.mapper);

	private Encoder<Object> stockBlackbird = this.stock;

	private Encoder<Object> fastpath = this.stock;

	/**
	 * The combinations the suite runs: the flat records as a {@code Flux} on both factories
	 * with twins on, as before these parameters; beside them, 1000 of them as one
	 * {@code List} on both factories, 1000 beans either way on Netty with twins on and off,
	 * and 1000 beans as one {@code List} on the heap with twins on.
	 * @param parameters one combination of the parameters
	 * @return whether the suite runs it
	 */
	static boolean inSuite(Map<String, String> parameters) {
		boolean flux = "flux".equals(parameters.get("target"));
		boolean record = "record".equals(parameters.get("element"));
		boolean thousand = "1000".equals(parameters.get("elements"));
		boolean direct = BufferFactories.NETTY_DIRECT.equals(parameters.get("factory"));
		boolean optimized = Boolean.parseBoolean(parameters.get("optimizeCreators"));
		if (record && flux) {
			return optimized;
		}
		if (!thousand) {
			return false;
		}
		if (record || !direct) {
			return optimized && (direct || !flux);
		}
		return true;
	}

	@Setup
	@SuppressWarnings("unchecked")
	public void setUp() {
		Class<?> elementClass = switch (this.element) {
			case "record" -> Pojo.class;
			case "bean" -> Account.class;
			default -> throw new IllegalArgumentException("Unknown element " + this.element);
		};
		this.values = this.element.equals("record") ? records(this.elements) : accounts(this.elements);
		this.flux = switch (this.target) {
			case "flux" -> true;
			case "list" -> false;
			default -> throw new IllegalArgumentException("Unknown target " + this.target);
		};
		this.writtenAs = switch (this.mediaType) {
			case "json" -> MediaType.APPLICATION_JSON;
			case "ndjson" -> MediaType.APPLICATION_NDJSON;
			default -> throw new IllegalArgumentException("Unknown media type " + this.mediaType);
		};
		if (!this.flux && this.mediaType.equals("ndjson")) {
			throw new IllegalArgumentException("NDJSON is a stream of values: target=flux");
		}
		this.type = this.flux ? ResolvableType.forClass(elementClass)
				: ResolvableType.forClassWithGenerics(List.class, elementClass);
		this.buffers = BufferFactories.named(this.factory);
		JacksonJsonEncoder encoder = new JacksonJsonEncoder(this.mapper);
		this.stock = encoder;
		this.stockBlackbird = new JacksonJsonEncoder(JsonMapper.builder().addModule(new BlackbirdModule()).build());
		JsonBatchEncoding encoding = new JsonBatchEncoding(JsonBatchEncoding.DEFAULT_CAP, this.optimizeCreators,
				WriteListener.NONE);
		if (encoding.optimizesAccessors() != this.optimizeCreators) {
			// A row labelled optimized must be: Blackbird on the class path, a Java it accepts.
			throw new IllegalStateException("optimizeCreators=" + this.optimizeCreators + " asked, but accessors are "
					+ (encoding.optimizesAccessors() ? "" : "not ") + "optimized");
		}
		HttpMessageWriter<?> batching = encoding.decorate(List.of(new EncoderHttpMessageWriter<>(encoder))).get(0);
		this.fastpath = (Encoder<Object>) ((EncoderHttpMessageWriter<?>) batching).getEncoder();
		verify();
	}

	@Benchmark
	public long stock() {
		return written(this.stock);
	}

	@Benchmark
	public long fastpath() {
		return written(this.fastpath);
	}

	@Benchmark
	public long stockBlackbird() {
		return written(this.stockBlackbird);
	}

	/** The reference: one list into one {@code byte[]}, wrapped as the response is. */
	@Benchmark
	public long jackson() {
		DataBuffer body = this.buffers.wrap(this.mapper.writeValueAsBytes(this.values));
		int length = body.readableByteCount();
		DataBufferUtils.release(body);
		return length;
	}

	private long written(Encoder<Object> encoder) {
		Long bytes = body(encoder, this.buffers).reduce(0L, (total, buffer) -> {
			long sum = total + buffer.readableByteCount();
			DataBufferUtils.release(buffer);
			return sum;
		}).block();
		return (bytes != null) ? bytes : 0;
	}

	/** The body as WebFlux asks the encoder for it: a {@code Flux}, or the list as a {@code Mono}. */
	private Flux<DataBuffer> body(Encoder<Object> encoder, DataBufferFactory bufferFactory) {
		Publisher<?> input = this.flux ? Flux.fromIterable(this.values) : Mono.just(this.values);
		return encoder.encode(input, bufferFactory, this.type, this.writtenAs, Map.of());
	}

	/**
	 * Check, once per trial, that the three encoders write the bytes plain Jackson writes
	 * for the list: a row compares equal work.
	 */
	private void verify() {
		byte[] expected = this.writtenAs.equals(MediaType.APPLICATION_NDJSON) ? lines(this.values)
				: this.mapper.writeValueAsBytes(this.values);
		check("stock", expected, this.stock);
		check("stockBlackbird", expected, this.stockBlackbird);
		check("fastpath", expected, this.fastpath);
	}

	/** The values as NDJSON, each written by Jackson alone and ended by a newline. */
	private byte[] lines(List<?> values) {
		ByteArrayOutputStream lines = new ByteArrayOutputStream();
		for (Object value : values) {
			lines.writeBytes(this.mapper.writeValueAsBytes(value));
			lines.write('\n');
		}
		return lines.toByteArray();
	}

	private void check(String method, byte[] expected, Encoder<Object> encoder) {
		DataBuffer joined = DataBufferUtils.join(body(encoder, DefaultDataBufferFactory.sharedInstance)).block();
		byte[] actual = new byte[(joined != null) ? joined.readableByteCount() : 0];
		if (joined != null) {
			joined.read(actual);
		}
		if (!Arrays.equals(expected, actual)) {
			throw new IllegalStateException(method + " wrote " + this.elements + " " + this.element + "s as a "
					+ this.target + " otherwise than Jackson");
		}
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

	private static List<Account> accounts(int count) {
		Random random = new Random(20261203L);
		Account.Status[] statuses = Account.Status.values();
		List<Account> accounts = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			Account account = new Account();
			account.id = random.nextLong() >>> 1;
			account.name = "user-" + i + "-" + Long.toString(random.nextLong() >>> 1, 36);
			account.email = "user" + i + "@example.com";
			account.country = (i % 3 == 0) ? "GB" : "DE";
			account.age = random.nextInt(100);
			account.createdAt = 1_700_000_000_000L + random.nextInt(1_000_000_000);
			account.balance = random.nextDouble() * 10_000;
			account.rating = random.nextFloat() * 5;
			account.active = random.nextBoolean();
			account.verified = random.nextBoolean();
			account.logins = (i % 4 == 0) ? null : random.nextInt(1000);
			account.status = statuses[random.nextInt(statuses.length)];
			for (int j = random.nextInt(4); j > 0; j--) {
				account.tags.add("tag" + random.nextInt(50));
			}
			accounts.add(account);
		}
		return accounts;
	}

	/**
	 * A bean as services return them, written through its thirteen getters of mixed types
	 * (strings, primitives, a boxed number that may be null, an enum, a list): the accessors
	 * Blackbird replaces with generated lambdas.
	 */
	public static class Account {

		/** What state an account is in. */
		public enum Status {

			ACTIVE, SUSPENDED, CLOSED

		}

		private long id;

		private String name = "";

		private String email = "";

		private String country = "";

		private int age;

		private long createdAt;

		private double balance;

		private float rating;

		private boolean active;

		private boolean verified;

		private @Nullable Integer logins;

		private Status status = Status.ACTIVE;

		private final List<String> tags = new ArrayList<>();

		public long getId() {
			return this.id;
		}

		public String getName() {
			return this.name;
		}

		public String getEmail() {
			return this.email;
		}

		public String getCountry() {
			return this.country;
		}

		public int getAge() {
			return this.age;
		}

		public long getCreatedAt() {
			return this.createdAt;
		}

		public double getBalance() {
			return this.balance;
		}

		public float getRating() {
			return this.rating;
		}

		public boolean isActive() {
			return this.active;
		}

		public boolean isVerified() {
			return this.verified;
		}

		public @Nullable Integer getLogins() {
			return this.logins;
		}

		public Status getStatus() {
			return this.status;
		}

		public List<String> getTags() {
			return this.tags;
		}

	}

}
