package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.fastpath.codec.ReadListener;
import io.fastpath.json.RandomJson.Damage;
import io.fastpath.json.RandomJson.Kind;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Differential tests of {@link FastpathJsonDecoder} against the stock
 * {@link JacksonJsonDecoder}, the oracle: random valid and malformed bodies, cut into
 * random chunks of heap and Netty pooled buffers, must decode to equal values, or fail
 * with the same exception type, and every buffer must be released.
 * <p>The build uses a fixed seed, so that CI is repeatable; explore with
 * {@code -Dfastpath.seed=random} (or any number) and more cases with
 * {@code -Dfastpath.cases=<n>} (cases per target and buffer factory). The seed is printed
 * and in every failure message.
 */
class FastpathJsonDecoderDifferentialTests {

	private static final long SEED = TestSeed.SEED;

	private static final int CASES = Integer.getInteger("fastpath.cases", 120);

	private static final int DEFAULT_FUZZ_SECONDS = 15;

	private static final int FUZZ_SECONDS = Integer.getInteger("fastpath.fuzz.seconds", DEFAULT_FUZZ_SECONDS);

	private static final int DEFAULT_MAX_IN_MEMORY_SIZE = new JacksonJsonDecoder().getMaxInMemorySize();

	private static final double WRONG_TYPES_SHARE = 0.12;

	private static final double VALID_SHARE = 0.5;

	private static final ResolvableType MAP_TYPE = ResolvableType.forClassWithGenerics(Map.class, String.class,
			Object.class);

	private static final AtomicLong casesRun = new AtomicLong();

	private static final AtomicLong casesSkipped = new AtomicLong();

	private static final Map<String, long[]> outcomesByKind = new ConcurrentHashMap<>();

	private static final Map<String, AtomicLong> causeDifferences = new ConcurrentHashMap<>();

	/** Cases whose outcome was not compared with stock's, or only partly, by reason. */
	private static final Map<String, AtomicLong> casesNotComparedWithStock = new ConcurrentHashMap<>();

	private static final long startNanos = System.nanoTime();

	/** The run's counts: at INFO, which a green build does not show (see logback-test.xml). */
	private static final Log logger = LogFactory.getLog(FastpathJsonDecoderDifferentialTests.class);

	static {
		logger.info("-Dfastpath.seed=" + SEED + " (" + CASES + " cases per target and buffer factory)");
	}

	static Stream<Arguments> targets() {
		List<Target> targets = List.of(
				mono("List<Pojo>", ResolvableType.forClassWithGenerics(List.class, TestPojo.class), Kind.POJO),
				mono("Collection<Pojo>", ResolvableType.forClassWithGenerics(Collection.class, TestPojo.class),
						Kind.POJO),
				mono("Set<String>", ResolvableType.forClassWithGenerics(Set.class, String.class), Kind.STRING),
				mono("Pojo[]", ResolvableType.forClass(TestPojo[].class), Kind.POJO),
				mono("long[]", ResolvableType.forClass(long[].class), Kind.LONG),
				mono("int[]", ResolvableType.forClass(int[].class), Kind.INT),
				mono("double[]", ResolvableType.forClass(double[].class), Kind.DOUBLE),
				mono("float[]", ResolvableType.forClass(float[].class), Kind.FLOAT),
				mono("boolean[]", ResolvableType.forClass(boolean[].class), Kind.BOOLEAN),
				mono("List<Long>", ResolvableType.forClassWithGenerics(List.class, Long.class), Kind.LONG),
				mono("List<Integer>", ResolvableType.forClassWithGenerics(List.class, Integer.class), Kind.INT),
				mono("List<Double>", ResolvableType.forClassWithGenerics(List.class, Double.class), Kind.DOUBLE),
				mono("List<Boolean>", ResolvableType.forClassWithGenerics(List.class, Boolean.class), Kind.BOOLEAN),
				mono("List<String>", ResolvableType.forClassWithGenerics(List.class, String.class), Kind.STRING),
				mono("List<Map<String,Object>>", ResolvableType.forClassWithGenerics(List.class, MAP_TYPE),
						Kind.MAP),
				new Target("Mono<Pojo>", ResolvableType.forClass(TestPojo.class), false, Kind.POJO, Shape.SINGLE,
						MediaType.APPLICATION_JSON),
				flux("Flux<Pojo>", ResolvableType.forClass(TestPojo.class), Kind.POJO, Shape.ARRAY),
				flux("Flux<Long>", ResolvableType.forClass(Long.class), Kind.LONG, Shape.ARRAY),
				flux("Flux<Integer>", ResolvableType.forClass(Integer.class), Kind.INT, Shape.ARRAY),
				flux("Flux<Double>", ResolvableType.forClass(Double.class), Kind.DOUBLE, Shape.ARRAY),
				flux("Flux<Boolean>", ResolvableType.forClass(Boolean.class), Kind.BOOLEAN, Shape.ARRAY),
				flux("Flux<String>", ResolvableType.forClass(String.class), Kind.STRING, Shape.ARRAY),
				flux("Flux<Map<String,Object>>", MAP_TYPE, Kind.MAP, Shape.ARRAY),
				flux("Flux<Pojo> of one object", ResolvableType.forClass(TestPojo.class), Kind.POJO, Shape.SINGLE),
				flux("Flux<Pojo> as NDJSON", ResolvableType.forClass(TestPojo.class), Kind.POJO, Shape.NDJSON),
				flux("Flux<Map<String,Object>> as NDJSON", MAP_TYPE, Kind.MAP, Shape.NDJSON),
				flux("Flux<Long> as NDJSON", ResolvableType.forClass(Long.class), Kind.LONG, Shape.NDJSON),
				flux("Flux<String> as NDJSON", ResolvableType.forClass(String.class), Kind.STRING, Shape.NDJSON));
		return targets.stream()
			.flatMap((target) -> Stream.of(Arguments.of(target, Buffers.HEAP),
					Arguments.of(target, Buffers.NETTY_POOLED)));
	}

	@AfterAll
	static void summary() {
		StringBuilder summary = new StringBuilder(String.format("seed %d, %d cases (%d skipped), %d ms", SEED,
				casesRun.get(), casesSkipped.get(), (System.nanoTime() - startNanos) / 1_000_000));
		outcomesByKind.forEach((kind, counts) -> summary
			.append(String.format("%n  %-16s stock decoded %5d, stock failed %5d", kind, counts[0], counts[1])));
		causeDifferences.forEach((difference, count) -> summary
			.append(String.format("%n  same exception type, different cause: %s x%d", difference, count.get())));
		casesNotComparedWithStock.forEach((reason, count) -> summary
			.append(String.format("%n  not compared with stock (%s): %d", reason, count.get())));
		logger.info(summary);
	}

	@ParameterizedTest(name = "{0} on {1} buffers")
	@MethodSource("targets")
	void decodesLikeStock(Target target, Buffers buffers) {
		LeakTrackingDataBufferFactory factory = buffers.create();
		Subjects subjects = new Subjects();
		long testSeed = mix(SEED + mix(31L * target.name().hashCode() + buffers.ordinal()));
		List<Failure> failures = new ArrayList<>();
		for (int i = 0; i < CASES; i++) {
			Case testCase = createCase(target, new Random(mix(testSeed + i)), i, null);
			if (testCase == null) {
				casesSkipped.incrementAndGet();
				continue;
			}
			casesRun.incrementAndGet();
			Failure failure = check(testCase, subjects, factory, true);
			if (failure != null) {
				failures.add(failure);
			}
		}
		try {
			factory.assertNoLeaks();
		}
		catch (AssertionError ex) {
			throw new AssertionError("[seed=" + SEED + " target=" + target + " buffers=" + buffers + "] "
					+ ex.getMessage(), ex);
		}
		if (!failures.isEmpty()) {
			failures.sort(Comparator.comparingInt((failure) -> failure.testCase.body().length));
			StringBuilder message = new StringBuilder().append(failures.size())
				.append(" of ")
				.append(CASES)
				.append(" cases disagree with stock (repeat with -Dfastpath.seed=")
				.append(SEED)
				.append("). Shortest first:\n");
			for (int i = 0; i < Math.min(3, failures.size()); i++) {
				message.append(failures.get(i).describe(subjects, buffers, i == 0)).append('\n');
			}
			throw new AssertionError(message.toString());
		}
	}

	/**
	 * The fuzz suite: cases of every target and buffer factory, each body mutated (bits
	 * flipped, bytes inserted and deleted, truncated, nested past Jackson's depth limit,
	 * numbers and strings around its length limits, invalid UTF-8), until the time budget
	 * ({@code -Dfastpath.fuzz.seconds}, {@value #DEFAULT_FUZZ_SECONDS} in a build) is spent.
	 * Fastpath must fail as stock fails, never hang, never emit what stock would not, and
	 * release every buffer. Repeat one case with {@code -Dfastpath.fuzz.case=<n>}.
	 */
	@Test
	void fuzzedBodiesAreDecodedLikeStock() {
		List<Arguments> all = targets().toList();
		Map<Buffers, LeakTrackingDataBufferFactory> factories = new EnumMap<>(Buffers.class);
		Subjects subjects = new Subjects();
		long fuzzSeed = mix(SEED ^ 0x5EED_F022L);
		Integer only = Integer.getInteger("fastpath.fuzz.case");
		long deadline = System.nanoTime() + Duration.ofSeconds(FUZZ_SECONDS).toNanos();
		List<String> failures = new ArrayList<>();
		int cases = 0;
		for (int i = (only != null ? only : 0); (only != null) ? i == only : System.nanoTime() < deadline; i++) {
			Random random = new Random(mix(fuzzSeed + i));
			Arguments arguments = all.get(random.nextInt(all.size()));
			Target target = (Target) arguments.get()[0];
			Buffers buffers = (Buffers) arguments.get()[1];
			Damage damage = (random.nextInt(10) < 7) ? Damage.FUZZ.get(random.nextInt(Damage.FUZZ.size()))
					: Damage.values()[random.nextInt(Damage.values().length)];
			Case testCase = createCase(target, random, i, damage);
			if (testCase == null) {
				continue;
			}
			cases++;
			LeakTrackingDataBufferFactory factory = factories.computeIfAbsent(buffers, Buffers::create);
			Failure failure = check(testCase, subjects, factory, false);
			if (failure != null) {
				failures.add("fuzz case " + i + " (-Dfastpath.fuzz.case=" + i + "): "
						+ failure.describe(subjects, buffers, failures.isEmpty()));
				if (failures.size() == 3) {
					break;
				}
			}
		}
		factories.forEach((buffers, factory) -> factory.assertNoLeaks());
		logger.info(String.format("fuzzed %d cases in %d s (seed %d)", cases, FUZZ_SECONDS, SEED));
		assertThat(failures).as("fuzz cases that disagree with stock (seed " + SEED + ")").isEmpty();
	}

	/**
	 * Stock's {@code Flux} tokenizer takes an array inside a top-level array apart, so the
	 * random cases leave such bodies out; there Jackson reading the whole body is the
	 * oracle: each inner array is one {@code List} element, wherever the body is cut.
	 */
	@ParameterizedTest(name = "{0} buffers")
	@MethodSource("buffers")
	void fluxOfObjectOverArraysOfArraysEmitsEachInnerArrayAsJacksonReadsTheWholeBody(Buffers buffers) {
		LeakTrackingDataBufferFactory factory = buffers.create();
		Subjects subjects = new Subjects();
		Target target = flux("Flux<Object> of arrays", ResolvableType.forClass(Object.class), Kind.UNTYPED,
				Shape.ARRAY);
		long testSeed = mix(SEED + mix(31L * target.name().hashCode() + buffers.ordinal()));
		int withInnerArrays = 0;
		for (int i = 0; i < CASES; i++) {
			Random random = new Random(mix(testSeed + i));
			RandomJson json = new RandomJson(random).forFlux();
			Kind[] kinds = { Kind.LONG, Kind.STRING, Kind.DOUBLE, Kind.MAP, Kind.UNTYPED };
			List<String> arrays = new ArrayList<>();
			for (int n = random.nextInt(6); n > 0; n--) {
				arrays.add(json.array(kinds[random.nextInt(kinds.length)]));
			}
			byte[] body = ("[" + String.join(",", arrays) + "]").getBytes(StandardCharsets.UTF_8);
			Case testCase = new Case(target, i, body, json.chunks(body), false, Mode.FLUX, MapperVariant.DEFAULTS,
					-1, null, "VALID");
			JacksonReading jackson = readByJackson(testCase);
			assertThat(jackson.error()).as(testCase.describe(buffers)).isNull();
			DecoderOutcome actual = run(subjects.fastpath(MapperVariant.DEFAULTS), testCase, testCase.chunks(),
					factory);
			assertThat(actual).as("buffers released, " + testCase.describe(buffers)).isNotNull();
			assertThat(actual.error()).as(testCase.describe(buffers)).isNull();
			assertThat(DecoderOutcome.difference(jackson.values(), actual.values(), "values"))
				.as(testCase.describe(buffers) + " " + RandomJson.printable(body))
				.isNull();
			if (RandomJson.hasArrayInTopLevelArray(body)) {
				withInnerArrays++;
			}
		}
		factory.assertNoLeaks();
		assertThat(withInnerArrays).as("cases with an array in the top-level array").isGreaterThan(CASES / 2);
	}

	static Stream<Buffers> buffers() {
		return Stream.of(Buffers.values());
	}

	/**
	 * The comparison can see values emitted before an error: an extra value before the
	 * same kind of error as stock's, which the outcomes alone call equal, is a failure.
	 */
	@Test
	void valuesEmittedBeforeAnErrorAreCompared() {
		Target target = flux("Flux<Long>", ResolvableType.forClass(Long.class), Kind.LONG, Shape.ARRAY);
		byte[] body = "[1,2,x]".getBytes(StandardCharsets.UTF_8);
		Case testCase = new Case(target, 0, body, List.of(body), false, Mode.FLUX, MapperVariant.DEFAULTS, -1, null,
				"BAD_LITERAL");
		DecoderOutcome stock = DecoderOutcome.of(() -> Flux.just(1L, 2L).concatWith(Flux.error(new DecodingException("x"))));
		DecoderOutcome extra = DecoderOutcome
			.of(() -> Flux.just(1L, 2L, 3L).concatWith(Flux.error(new DecodingException("x"))));
		DecoderOutcome wrong = DecoderOutcome.of(() -> Flux.just(1L, 3L).concatWith(Flux.error(new DecodingException("x"))));
		DecoderOutcome fewer = DecoderOutcome.of(() -> Flux.just(1L).concatWith(Flux.error(new DecodingException("x"))));
		assertThat(stock.differenceFrom(extra)).as("the outcomes alone").isNull();
		Function<List<byte[]>, @Nullable DecoderOutcome> stockOfOtherChunks = (chunks) -> stock;
		assertThat(emittedDifference(testCase, stock, extra, stockOfOtherChunks)).contains("neither stock's");
		assertThat(emittedDifference(testCase, stock, wrong, stockOfOtherChunks)).contains("neither stock's");
		assertThat(emittedDifference(testCase, stock, fewer, stockOfOtherChunks)).as("a prefix").isNull();
		assertThat(emittedDifference(testCase, stock, stock, stockOfOtherChunks)).isNull();
		Function<List<byte[]>, @Nullable DecoderOutcome> stockCutAfterTwoValues = (chunks) -> (chunks.size() == 2
				&& chunks.get(0).length == "[1,2,".length()) ? extra : stock;
		assertThat(emittedDifference(testCase, stock, extra, stockCutAfterTwoValues))
			.as("emitted by stock for one cut of the body").isNull();
	}

	private @Nullable Case createCase(Target target, Random random, int index, @Nullable Damage forced) {
		RandomJson json = new RandomJson(random);
		if (target.flux()) {
			json.forFlux();
		}
		double roll = random.nextDouble();
		Damage damage = forced;
		if (forced != null) {
			roll = 1;
		}
		else if (roll < WRONG_TYPES_SHARE) {
			json = json.withWrongTypes(0.02 + random.nextDouble() * 0.3);
		}
		else if (roll >= WRONG_TYPES_SHARE + VALID_SHARE) {
			damage = Damage.values()[random.nextInt(Damage.values().length)];
		}
		String text = switch (target.shape()) {
			case ARRAY -> json.array(target.element());
			case NDJSON -> json.ndjson(target.element());
			case SINGLE -> json.single(target.element());
		};
		byte[] body = text.getBytes(StandardCharsets.UTF_8);
		if (damage != null) {
			body = json.damage(body, damage);
		}
		if (target.flux() && RandomJson.hasArrayInTopLevelArray(body)) {
			return null;
		}
		Mode mode = (target.flux() ? Mode.FLUX : (random.nextInt(5) == 0 ? Mode.DECODE_BUFFER : Mode.MONO));
		int maxInMemorySize = DEFAULT_MAX_IN_MEMORY_SIZE;
		if (mode == Mode.MONO && random.nextInt(10) == 0) {
			// Just under, at and just over the body: the whole body counts.
			maxInMemorySize = Math.max(0, body.length + random.nextInt(3) - 1);
		}
		else if (mode == Mode.FLUX && random.nextInt(10) == 0) {
			// Stock counts the bytes of consecutive chunks that complete no element.
			maxInMemorySize = random.nextInt(body.length + 1);
		}
		MapperVariant mapper = MapperVariant.values()[random.nextInt(10) < 7 ? 0 : 1 + random.nextInt(2)];
		@Nullable Map<String, Object> hints = switch (random.nextInt(3)) {
			case 0 -> null;
			case 1 -> Collections.emptyMap();
			// A request body of known length (as the server hints say), now and then one
			// longer than announced (decoded on the way).
			default -> Map.of(FastpathJsonDecoder.CONTENT_LENGTH_HINT,
					(long) ((random.nextInt(8) == 0) ? random.nextInt(body.length + 1) : body.length));
		};
		List<byte[]> chunks = json.chunks(body);
		// One buffer may come as a Mono, as from an aggregating reader: stock takes it as it is.
		boolean monoInput = (mode == Mode.MONO && chunks.size() == 1 && random.nextBoolean());
		return new Case(target, index, body, chunks, monoInput, mode, mapper, maxInMemorySize, hints,
				(damage != null ? damage.name() : (roll < WRONG_TYPES_SHARE ? "WRONG_TYPES" : "VALID")));
	}

	private static boolean isStockBug(@Nullable Throwable error) {
		return error instanceof RuntimeException && !(error instanceof CodecException)
				&& !(error instanceof DataBufferLimitException);
	}

	private static boolean isLimitOrDecoding(@Nullable Throwable error) {
		return error instanceof DataBufferLimitException || error instanceof DecodingException;
	}

	/** Whether stock decodes the body in one buffer as it did in chunks. */
	private boolean isStockConsistent(DecoderOutcome chunked, Case testCase, Subjects subjects,
			LeakTrackingDataBufferFactory factory) {
		DecoderOutcome whole = run(subjects.stock(testCase.mapper()), testCase, List.of(testCase.body()),
				factory.forStock());
		return whole != null && chunked.differenceFrom(whole) == null;
	}

	private @Nullable Failure check(Case testCase, Subjects subjects, LeakTrackingDataBufferFactory factory,
			boolean count) {
		DecoderOutcome expected = run(subjects.stock(testCase.mapper()), testCase, testCase.chunks(),
				factory.forStock());
		if (expected == null) {
			return new Failure(testCase, null, null, "stock did not release every input buffer");
		}
		DecoderOutcome actual = run(subjects.fastpath(testCase.mapper()), testCase, testCase.chunks(), factory);
		if (actual == null) {
			return new Failure(testCase, expected, null, "Fastpath did not release every input buffer");
		}
		if (count) {
			long[] counts = outcomesByKind.computeIfAbsent(testCase.kind(), (key) -> new long[2]);
			synchronized (counts) {
				counts[expected.failed() ? 1 : 0]++;
			}
		}
		String emitted = emittedDifference(testCase, expected, actual,
				(chunks) -> run(subjects.stock(testCase.mapper()), testCase, chunks, factory.forStock()));
		if (emitted != null) {
			return new Failure(testCase, expected, actual, emitted);
		}
		if (testCase.mode() == Mode.FLUX && !(expected.error() instanceof DataBufferLimitException)
				&& !isStockConsistent(expected, testCase, subjects, factory)) {
			// Stock's tokenizer answers differently for the same bytes cut differently (a
			// trailing comma in an object cut after the comma, a byte order mark cut in two,
			// "1[2]" cut after the "1"): no oracle but Jackson on the whole body, whose
			// values Fastpath's must start (checked above).
			return notCompared("stock inconsistent across chunkings", count);
		}
		if (expected.failed() && actual.failed() && isStockBug(expected.error())
				&& actual.error() instanceof CodecException) {
			// Stock lets a raw exception out (a NumberFormatException for "1e+" at the end of
			// a stream): it would answer 500 where Fastpath answers 400.
			return notCompared("stock failed with a raw exception, Fastpath with a codec exception", count);
		}
		if (testCase.mode() == Mode.FLUX && isStockBug(expected.error()) && !actual.failed()) {
			// Stock's token buffer converts numbers eagerly and lets the failure out raw (a
			// BigDecimal over Jackson's limits read into a String): Jackson reading the whole
			// body, the oracle then, converts only what the target needs.
			JacksonReading jackson = readByJackson(testCase);
			if (jackson.error() == null && DecoderOutcome.difference(jackson.values(), actual.values(), "values",
					true) == null) {
				return notCompared("stock failed with a raw exception, Fastpath read as Jackson", count);
			}
		}
		if (testCase.mode() == Mode.FLUX && !"VALID".equals(testCase.kind()) && isLimitOrDecoding(expected.error())
				&& isLimitOrDecoding(actual.error())) {
			// Malformed and over the limit at once: which error shows first depends on how far
			// each tokenizer looked into the element in progress. Both are client errors.
			return notCompared("malformed and over the limit: either error", count);
		}
		if (testCase.mode() == Mode.FLUX && !"VALID".equals(testCase.kind()) && !expected.failed()
				&& actual.error() instanceof DecodingException) {
			// Stock's tokenizer lets some malformed input through ("1." at the end of a
			// stream reads as 1); Fastpath's parser rejects it, as Jackson does whole bodies:
			// only if Jackson does.
			if (readByJackson(testCase).error() == null) {
				return new Failure(testCase, expected, actual,
						"Fastpath failed where stock and Jackson reading the whole body succeed");
			}
			return notCompared("stock let malformed input through, Fastpath and Jackson rejected it", count);
		}
		String difference = expected.differenceFrom(actual, testCase.mode() == Mode.FLUX);
		if (difference != null) {
			return new Failure(testCase, expected, actual, difference);
		}
		String causeDifference = expected.causeDifferenceFrom(actual);
		if (count && causeDifference != null) {
			causeDifferences.computeIfAbsent(causeDifference, (key) -> new AtomicLong()).incrementAndGet();
		}
		return null;
	}

	private static @Nullable Failure notCompared(String reason, boolean count) {
		if (count) {
			casesNotComparedWithStock.computeIfAbsent(reason, (key) -> new AtomicLong()).incrementAndGet();
		}
		return null;
	}

	/**
	 * What is wrong with the values Fastpath emitted before it failed, or {@code null}:
	 * they must be a prefix of stock's for these chunks, or of what Jackson reads from the
	 * whole body; where stock's tokenizer answers for the chunks rather than the bytes
	 * (a number cut by a chunk before a quote), a prefix of stock's for the body in one
	 * buffer or a byte at a time: never a value that stock would not emit for these bytes.
	 */
	private static @Nullable String emittedDifference(Case testCase, DecoderOutcome expected,
			DecoderOutcome actual, Function<List<byte[]>, @Nullable DecoderOutcome> stock) {
		if (!actual.failed() || actual.values().isEmpty()) {
			return null;
		}
		List<Object> emitted = actual.values();
		if (isPrefix(emitted, expected.values())) {
			// Stock's, or fewer: a chunk that fails is read by one parser, whose values go
			// with it (stock loses those of a chunk before the one that fails, at times).
			return null;
		}
		JacksonReading jackson = readByJackson(testCase);
		List<Object> read = jackson.values();
		if (isPrefix(emitted, read)) {
			return null;
		}
		for (List<byte[]> chunks : List.of(List.of(testCase.body()), Failure.split(testCase.body(), true))) {
			DecoderOutcome other = stock.apply(chunks);
			if (other != null && isPrefix(emitted, other.values())) {
				return null;
			}
		}
		// Stock drops the values of a chunk that fails, and its tokenizer splits touching
		// values differently at a chunk boundary ("14\"x" is two values in one chunk, an
		// error across two): Fastpath, which emits as it reads, may emit what stock emits
		// only for some cut of the body. Every cut in two is tried.
		byte[] body = testCase.body();
		for (int cut = 1; cut < body.length; cut++) {
			DecoderOutcome other = stock
				.apply(List.of(Arrays.copyOfRange(body, 0, cut), Arrays.copyOfRange(body, cut, body.length)));
			if (other != null && isPrefix(emitted, other.values())) {
				return null;
			}
		}
		return "emitted " + emitted.size() + " value(s) before failing that are neither stock's (for any chunks: "
				+ expected.values().size() + ") nor a prefix of Jackson's on the whole body (" + read.size()
				+ (jackson.error() != null ? " before failing" : "") + "): "
				+ DecoderOutcome.abbreviate(emitted.toString(), 300);
	}

	private static boolean isPrefix(List<Object> prefix, List<Object> values) {
		return prefix.size() <= values.size() && DecoderOutcome.difference(new ArrayList<>(prefix),
				new ArrayList<>(values.subList(0, prefix.size())), "values", true) == null;
	}

	/**
	 * The values of top-level arrays and other top-level values, each read as a root
	 * value by plain Jackson from the whole body ({@code null} elements left out, as a
	 * {@code Flux} leaves them out), up to the error it fails with, if any.
	 */
	private static JacksonReading readByJackson(Case testCase) {
		JsonMapper mapper = testCase.mapper().create();
		List<Object> values = new ArrayList<>();
		ObjectReader reader = mapper.readerFor(mapper.constructType(testCase.target().type().getType()))
			.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		try (JsonParser parser = reader.createParser(testCase.body())) {
			JsonToken token = parser.nextToken();
			while (token != null) {
				if (token == JsonToken.START_ARRAY) {
					while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
						if (token == null) {
							return new JacksonReading(values, new IllegalStateException("Unexpected end of input"));
						}
						add(values, reader.readValue(parser));
					}
				}
				else {
					add(values, reader.readValue(parser));
				}
				token = parser.nextToken();
			}
		}
		catch (RuntimeException ex) {
			return new JacksonReading(values, ex);
		}
		return new JacksonReading(values, null);
	}

	private static void add(List<Object> values, @Nullable Object value) {
		if (value != null) {
			values.add(value);
		}
	}

	/** What Jackson read from a whole body: the values, and the error that ended them. */
	private record JacksonReading(List<Object> values, @Nullable RuntimeException error) {
	}

	/** Decode the chunks; {@code null} if any input buffer is left unreleased. */
	private @Nullable DecoderOutcome run(Subject decoder, Case testCase, List<byte[]> chunks,
			LeakTrackingDataBufferFactory factory) {
		List<DataBuffer> handedOut = new ArrayList<>();
		Function<byte[], DataBuffer> handOut = (chunk) -> {
			DataBuffer buffer = factory.bufferOf(chunk);
			handedOut.add(buffer);
			return buffer;
		};
		Publisher<DataBuffer> input = (testCase.monoInput() ? Mono.fromSupplier(() -> handOut.apply(chunks.get(0)))
				: Flux.fromIterable(chunks).map(handOut));
		decoder.maxInMemorySize().accept(testCase.maxInMemorySize());
		ResolvableType type = testCase.target().type();
		MediaType mediaType = testCase.target().mediaType();
		@Nullable Map<String, Object> hints = testCase.hints();
		DecoderOutcome outcome = switch (testCase.mode()) {
			case MONO -> DecoderOutcome.of(() -> decoder.decoder().decodeToMono(input, type, mediaType, hints));
			case FLUX -> DecoderOutcome.of(() -> decoder.decoder().decode(input, type, mediaType, hints));
			case DECODE_BUFFER -> DecoderOutcome.ofBlocking(() -> {
				byte[] whole = concat(chunks);
				DataBuffer buffer = factory.bufferOf(whole);
				handedOut.add(buffer);
				return decoder.decoder().decode(buffer, type, mediaType, hints);
			});
		};
		boolean released = handedOut.stream()
			.noneMatch((buffer) -> buffer instanceof PooledDataBuffer pooled && pooled.isAllocated());
		return (released ? outcome : null);
	}

	private static byte[] concat(List<byte[]> chunks) {
		int length = chunks.stream().mapToInt((chunk) -> chunk.length).sum();
		byte[] whole = new byte[length];
		int at = 0;
		for (byte[] chunk : chunks) {
			System.arraycopy(chunk, 0, whole, at, chunk.length);
			at += chunk.length;
		}
		return whole;
	}

	/** MurmurHash3's finalizer: nearby seeds give unrelated cases. */
	private static long mix(long value) {
		return TestSeed.mix(value);
	}

	private static Target mono(String name, ResolvableType type, Kind element) {
		return new Target("Mono<" + name + ">", type, false, element, Shape.ARRAY, MediaType.APPLICATION_JSON);
	}

	private static Target flux(String name, ResolvableType type, Kind element, Shape shape) {
		return new Target(name, type, true, element, shape,
				(shape == Shape.NDJSON ? MediaType.APPLICATION_NDJSON : MediaType.APPLICATION_JSON));
	}

	enum Shape {

		/** A top-level JSON array. */
		ARRAY,

		/** Values separated by newlines. */
		NDJSON,

		/** One value. */
		SINGLE

	}

	enum Mode {

		MONO, FLUX, DECODE_BUFFER

	}

	enum Buffers {

		HEAP, NETTY_POOLED;

		LeakTrackingDataBufferFactory create() {
			return (this == HEAP ? LeakTrackingDataBufferFactory.heap() : LeakTrackingDataBufferFactory.nettyPooled());
		}

	}

	/** The mappers both decoders are built on, Jackson's defaults first. */
	enum MapperVariant {

		DEFAULTS {
			@Override
			JsonMapper create() {
				return JsonMapper.builder().build();
			}
		},

		FAIL_ON_UNKNOWN_PROPERTIES {
			@Override
			JsonMapper create() {
				return JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
			}
		},

		BIG_NUMBERS {
			@Override
			JsonMapper create() {
				return JsonMapper.builder()
					.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
					.enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
					.build();
			}
		};

		abstract JsonMapper create();

	}

	record Target(String name, ResolvableType type, boolean flux, Kind element, Shape shape, MediaType mediaType) {

		@Override
		public String toString() {
			return this.name;
		}

	}

	record Case(Target target, int index, byte[] body, List<byte[]> chunks, boolean monoInput, Mode mode,
			MapperVariant mapper, int maxInMemorySize, @Nullable Map<String, Object> hints, String kind) {

		String describe(Buffers buffers) {
			return "[seed=" + SEED + " target=" + this.target + " buffers=" + buffers + " case=#" + this.index
					+ " kind=" + this.kind + " mode=" + this.mode + (this.monoInput ? " (Mono input)" : "")
					+ " mapper=" + this.mapper + " maxInMemorySize=" + this.maxInMemorySize + " hints=" + this.hints
					+ "]";
		}

		List<Integer> chunkSizes() {
			return this.chunks.stream().map((chunk) -> chunk.length).toList();
		}

		Case withBody(byte[] body, List<byte[]> chunks) {
			return new Case(this.target, this.index, body, chunks, this.monoInput && chunks.size() == 1, this.mode,
					this.mapper, this.maxInMemorySize, this.hints, this.kind);
		}

	}

	/**
	 * A stock and a Fastpath decoder for each mapper variant, made when first needed.
	 */
	private static final class Subjects {

		private final Map<MapperVariant, Subject> stock = new ConcurrentHashMap<>();

		private final Map<MapperVariant, Subject> fastpath = new ConcurrentHashMap<>();

		Subject stock(MapperVariant variant) {
			return this.stock.computeIfAbsent(variant, (key) -> {
				JacksonJsonDecoder decoder = new JacksonJsonDecoder(key.create());
				return new Subject(decoder, decoder::setMaxInMemorySize);
			});
		}

		Subject fastpath(MapperVariant variant) {
			return this.fastpath.computeIfAbsent(variant, (key) -> {
				// Creator optimization on, as by default; off, Fastpath reads with the mapper as it is.
				FastpathJsonDecoder decoder = FastpathJsonDecoder.from(new JacksonJsonDecoder(key.create()),
						new BlackbirdTwins(BlackbirdTwins.Use.READING), ReadListener.NONE);
				return new Subject(decoder, decoder::setMaxInMemorySize);
			});
		}

	}

	/** One decoder under comparison, and how to set its limit. */
	private record Subject(Decoder<Object> decoder, IntConsumer maxInMemorySize) {
	}

	private final class Failure {

		private final Case testCase;

		private final @Nullable DecoderOutcome expected;

		private final @Nullable DecoderOutcome actual;

		private final String difference;

		Failure(Case testCase, @Nullable DecoderOutcome expected, @Nullable DecoderOutcome actual,
				String difference) {
			this.testCase = testCase;
			this.expected = expected;
			this.actual = actual;
			this.difference = difference;
		}

		String describe(Subjects subjects, Buffers buffers, boolean shrink) {
			StringBuilder text = new StringBuilder(this.testCase.describe(buffers)).append('\n');
			text.append("  input (").append(this.testCase.body().length).append(" bytes in chunks of ")
				.append(DecoderOutcome.abbreviate(this.testCase.chunkSizes().toString(), 300)).append("): ")
				.append(DecoderOutcome.abbreviate(RandomJson.printable(this.testCase.body()), 2000)).append('\n');
			text.append("  stock:    ").append(this.expected).append('\n');
			text.append("  fastpath: ").append(this.actual).append('\n');
			text.append("  difference: ").append(this.difference).append('\n');
			if (shrink && this.expected != null && this.actual != null) {
				text.append(shrink(subjects, buffers));
			}
			return text.toString();
		}

		/** Look for a smaller input that still disagrees, fed whole or byte by byte. */
		private String shrink(Subjects subjects, Buffers buffers) {
			LeakTrackingDataBufferFactory factory = buffers.create();
			for (boolean byteByByte : new boolean[] { false, true }) {
				Predicate<byte[]> disagrees = (body) -> {
					if (this.testCase.target().flux() && RandomJson.hasArrayInTopLevelArray(body)) {
						return false;
					}
					Case smaller = this.testCase.withBody(body, split(body, byteByByte));
					return check(smaller, subjects, factory, false) != null;
				};
				if (disagrees.test(this.testCase.body())) {
					byte[] smallest = Shrinker.shrink(this.testCase.body(), disagrees);
					Case smaller = this.testCase.withBody(smallest, split(smallest, byteByByte));
					Failure failure = check(smaller, subjects, factory, false);
					return "  shrunk, fed " + (byteByByte ? "byte by byte" : "whole") + ": "
							+ RandomJson.printable(smallest) + "\n    stock:    "
							+ (failure != null ? failure.expected : "?") + "\n    fastpath: "
							+ (failure != null ? failure.actual : "?") + "\n    difference: "
							+ (failure != null ? failure.difference : "?") + "\n";
				}
			}
			return "  (disagrees only with these chunks)\n";
		}

		static List<byte[]> split(byte[] body, boolean byteByByte) {
			if (!byteByByte) {
				return List.of(body);
			}
			List<byte[]> chunks = new ArrayList<>();
			for (byte b : body) {
				chunks.add(new byte[] { b });
			}
			return chunks;
		}

	}

	/** Delta debugging on bytes, for a while: drop ever smaller spans while the input still fails. */
	private static final class Shrinker {

		private static final long BUDGET_NANOS = 300_000_000L;

		/** What is left of the time all shrinking together may take, so a bad build stays quick. */
		private static final AtomicLong remainingNanos = new AtomicLong(4_000_000_000L);

		static byte[] shrink(byte[] body, Predicate<byte[]> fails) {
			byte[] current = body;
			long start = System.nanoTime();
			long deadline = start + Math.min(BUDGET_NANOS, Math.max(0, remainingNanos.get()));
			for (int span = Math.max(1, current.length / 2); span >= 1 && System.nanoTime() < deadline; span /= 2) {
				boolean progress = true;
				while (progress && System.nanoTime() < deadline) {
					progress = false;
					for (int from = 0; from + span <= current.length && System.nanoTime() < deadline; from++) {
						byte[] candidate = new byte[current.length - span];
						System.arraycopy(current, 0, candidate, 0, from);
						System.arraycopy(current, from + span, candidate, from, current.length - from - span);
						if (fails.test(candidate)) {
							current = candidate;
							progress = true;
							break;
						}
					}
				}
			}
			remainingNanos.addAndGet(start - System.nanoTime());
			return current;
		}

	}

}
