package io.fastpath.form;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ContentTooLargeException;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Differential tests of {@link LazyFormHttpMessageReader} against Spring's stock
 * {@link FormHttpMessageReader}: random forms ({@link RandomForm}) in several charsets,
 * split into random chunks down to one byte, on heap and pooled Netty buffers. Valid forms
 * must give equal maps (same keys in the same order, same values, also through the lazy
 * lookups); forms with a malformed escape, where stock throws {@code URLDecoder}'s
 * {@code IllegalArgumentException}, must give a {@link MalformedFormDataException}. No
 * buffer may leak.
 * <p>The build uses a fixed seed; explore with {@code -Dfastpath.seed=random} and more
 * cases with {@code -Dfastpath.cases=<n>} (per charset and buffer factory).
 */
class LazyFormHttpMessageReaderDifferentialTests {

	/** The run's counts: at INFO, which a green build does not show (see logback-test.xml). */
	private static final Log logger = LogFactory.getLog(LazyFormHttpMessageReaderDifferentialTests.class);

	private static final long SEED = TestSeed.SEED;

	private static final int CASES = Integer.getInteger("fastpath.cases", 400);

	private static final double MALFORMED_SHARE = 0.15;

	private static final int DEFAULT_FUZZ_SECONDS = 5;

	private static final int FUZZ_SECONDS = Integer.getInteger("fastpath.fuzz.seconds", DEFAULT_FUZZ_SECONDS);

	private static final int FUZZ_MAX_FIELDS = 1000;

	private static final ResolvableType FORM_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private static final AtomicLong casesRun = new AtomicLong();

	private static final AtomicLong malformedRun = new AtomicLong();

	/** MurmurHash3's finalizer: consecutive seeds of {@link Random} give correlated first values. */
	private static long mix(long value) {
		long h = value;
		h ^= h >>> 33;
		h *= 0xff51afd7ed558ccdL;
		h ^= h >>> 33;
		h *= 0xc4ceb93e63b53e53L;
		h ^= h >>> 33;
		return h;
	}

	static Stream<Arguments> charsetsAndBuffers() {
		List<Arguments> arguments = new ArrayList<>();
		for (String charset : new String[] { "none (UTF-8)", "UTF-8", "ISO-8859-1", "UTF-16" }) {
			arguments.add(Arguments.of(charset, "heap"));
			arguments.add(Arguments.of(charset, "netty"));
		}
		return arguments.stream();
	}

	@AfterAll
	static void summary() {
		logger.info(String.format("seed %d, %d cases (%d malformed)", SEED, casesRun.get(), malformedRun.get()));
	}

	@ParameterizedTest(name = "charset {0} on {1} buffers")
	@MethodSource("charsetsAndBuffers")
	void readsFormsLikeStock(String charsetName, String buffers) {
		Charset charset = charsetName.startsWith("none") ? StandardCharsets.UTF_8 : Charset.forName(charsetName);
		MediaType contentType = charsetName.startsWith("none") ? MediaType.APPLICATION_FORM_URLENCODED
				: new MediaType(MediaType.APPLICATION_FORM_URLENCODED, charset);
		LeakTrackingDataBufferFactory factory = buffers.equals("heap") ? LeakTrackingDataBufferFactory.heap()
				: LeakTrackingDataBufferFactory.nettyPooled();
		HttpMessageReader<MultiValueMap<String, String>> stock = new FormHttpMessageReader();
		HttpMessageReader<MultiValueMap<String, String>> lazy = new LazyFormHttpMessageReader(
				new FormHttpMessageReader(), Integer.MAX_VALUE);
		long testSeed = SEED + 31L * charsetName.hashCode() + buffers.hashCode();
		for (int i = 0; i < CASES; i++) {
			Random random = new Random(mix(testSeed + i));
			boolean malformed = random.nextDouble() < MALFORMED_SHARE;
			String text = malformed ? RandomForm.malformed(random, charset) : RandomForm.valid(random, charset);
			byte[] body = text.getBytes(charset);
			List<Integer> cuts = cuts(random, body.length);
			String description = "[seed=" + SEED + " case=" + i + " charset=" + charsetName + " buffers=" + buffers
					+ " chunks=" + cuts + "] body: " + text;
			Outcome expected = read(stock, request(factory, contentType, body, cuts, random.nextBoolean()));
			Outcome actual = read(lazy, request(factory, contentType, body, cuts, random.nextBoolean()));
			casesRun.incrementAndGet();
			if (malformed) {
				malformedRun.incrementAndGet();
				assertThat(expected.error()).as(description).isInstanceOf(IllegalArgumentException.class);
				assertThat(actual.error()).as(description).isInstanceOf(MalformedFormDataException.class);
			}
			else {
				assertThat(expected.error()).as(description).isNull();
				assertThat(actual.error()).as(description).isNull();
				assertSameFields(actual.form(), expected.form(), description);
			}
		}
		factory.assertNoLeaks();
	}

	/**
	 * The fuzz suite for forms: valid forms mutated (bits flipped, bytes inserted and
	 * deleted, truncated, invalid UTF-8, NUL, a value past the size limit, more fields than
	 * the field limit) until the time budget ({@code -Dfastpath.fuzz.seconds},
	 * {@value #DEFAULT_FUZZ_SECONDS} in a build) is spent. Fastpath must read what stock
	 * reads, or answer where stock answers with a 500 or silently differs: a malformed
	 * escape (stock's {@code IllegalArgumentException}, or an escape stock's
	 * {@code Integer.parseInt} lets through such as {@code %+1}), bytes invalid in the charset
	 * (stock's U+FFFD), too many fields, too large a body; and release every buffer.
	 */
	@Test
	void fuzzedFormsAreReadLikeStock() {
		LeakTrackingDataBufferFactory heap = LeakTrackingDataBufferFactory.heap();
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		HttpMessageReader<MultiValueMap<String, String>> stock = new FormHttpMessageReader();
		HttpMessageReader<MultiValueMap<String, String>> lazy = new LazyFormHttpMessageReader(
				new FormHttpMessageReader(), FUZZ_MAX_FIELDS);
		long deadline = System.nanoTime() + Duration.ofSeconds(FUZZ_SECONDS).toNanos();
		long fuzzSeed = mix(SEED ^ 0x5EED_F022L);
		int cases = 0;
		for (int i = 0; System.nanoTime() < deadline; i++) {
			Random random = new Random(mix(fuzzSeed + i));
			Charset charset = random.nextBoolean() ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1;
			byte[] body = mutate(random, RandomForm.valid(random, charset).getBytes(charset));
			LeakTrackingDataBufferFactory factory = random.nextBoolean() ? heap : netty;
			MediaType contentType = new MediaType(MediaType.APPLICATION_FORM_URLENCODED, charset);
			List<Integer> cuts = cuts(random, body.length);
			String description = "[seed=" + SEED + " fuzz case=" + i + " charset=" + charset + "] body: "
					+ new String(body, StandardCharsets.ISO_8859_1);
			Outcome expected = read(stock, request(factory, contentType, body, cuts, random.nextBoolean()));
			Outcome actual = read(lazy, request(factory, contentType, body, cuts, random.nextBoolean()));
			assertFuzzedAlike(expected, actual, body, description);
			cases++;
		}
		heap.assertNoLeaks();
		netty.assertNoLeaks();
		logger.info(String.format("fuzzed %d cases in %d s (seed %d)", cases, FUZZ_SECONDS, SEED));
	}

	private static void assertFuzzedAlike(Outcome expected, Outcome actual, byte[] body, String description) {
		if (expected.error() instanceof IllegalArgumentException) {
			if (actual.error() instanceof TooManyFormFieldsException) {
				// The field limit was reached before the malformed escape
				assertThat(countFields(body)).as(description).isGreaterThan(FUZZ_MAX_FIELDS);
				return;
			}
			assertThat(actual.error()).as(description).isInstanceOf(MalformedFormDataException.class);
			return;
		}
		if (expected.error() instanceof DataBufferLimitException) {
			assertThat(actual.error()).as(description).isInstanceOf(ContentTooLargeException.class);
			return;
		}
		assertThat(expected.error()).as(description).isNull();
		MultiValueMap<String, String> stockForm = expected.form();
		if (actual.error() instanceof TooManyFormFieldsException) {
			assertThat(stockForm.values().stream().mapToInt(List::size).sum()).as(description)
				.isGreaterThan(FUZZ_MAX_FIELDS);
			return;
		}
		if (actual.error() instanceof MalformedFormDataException) {
			assertThat(hasEscapeOtherThanTwoHexDigits(body)).as(description + " (stock accepted every escape)")
				.isTrue();
			return;
		}
		assertThat(actual.error()).as(description).isNull();
		if (stockForm == null) {
			assertThat(actual.form()).as(description).isNull();
			return;
		}
		MultiValueMap<String, String> form;
		try {
			form = FormParameters.of(actual.form()).toMultiValueMap();
		}
		catch (MalformedFormDataException ex) {
			assertThat(stockForm.toString()).as(description + " (stock decoded every byte)").contains("\uFFFD");
			return;
		}
		assertThat(form).as(description).isEqualTo(stockForm);
		assertThat(new ArrayList<>(form.keySet())).as(description).isEqualTo(new ArrayList<>(stockForm.keySet()));
	}

	private static int countFields(byte[] body) {
		int count = 0;
		for (String field : new String(body, StandardCharsets.ISO_8859_1).split("&")) {
			count += field.trim().isEmpty() ? 0 : 1;
		}
		return count;
	}

	private static boolean hasEscapeOtherThanTwoHexDigits(byte[] body) {
		for (int i = 0; i < body.length; i++) {
			if (body[i] == '%' && (i + 2 >= body.length || !isHexDigit(body[i + 1]) || !isHexDigit(body[i + 2]))) {
				return true;
			}
		}
		return false;
	}

	private static boolean isHexDigit(byte b) {
		return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
	}

	private static byte[] mutate(Random random, byte[] body) {
		byte[] result = body;
		switch (random.nextInt(7)) {
			case 0 -> {
				for (int i = 1 + random.nextInt(3); i > 0 && result.length > 0; i--) {
					result[random.nextInt(result.length)] ^= (byte) (1 << random.nextInt(8));
				}
			}
			case 1 -> {
				byte[] likely = { '%', '&', '=', '+', 0, (byte) 0xC3, (byte) 0xFF, (byte) 0x80, ' ', '2' };
				for (int i = 1 + random.nextInt(3); i > 0; i--) {
					byte b = random.nextBoolean() ? likely[random.nextInt(likely.length)] : (byte) random.nextInt(256);
					result = splice(result, random.nextInt(result.length + 1), 0, new byte[] { b });
				}
			}
			case 2 -> {
				for (int i = 1 + random.nextInt(3); i > 0 && result.length > 0; i--) {
					int at = random.nextInt(result.length);
					result = splice(result, at, Math.min(1 + random.nextInt(3), result.length - at), new byte[0]);
				}
			}
			case 3 -> result = Arrays.copyOf(result, (result.length == 0) ? 0 : random.nextInt(result.length));
			case 4 -> {
				byte[] value = new byte[random.nextBoolean() ? 100_000 : 300_000];
				Arrays.fill(value, (byte) 'v');
				result = splice(result, result.length, 0, concat("&long=".getBytes(StandardCharsets.US_ASCII), value));
			}
			case 5 -> {
				StringBuilder fields = new StringBuilder();
				int count = FUZZ_MAX_FIELDS - 5 + random.nextInt(20);
				for (int i = 0; i < count; i++) {
					fields.append("&f").append(i % 50).append('=').append(i);
				}
				result = splice(result, result.length, 0, fields.toString().getBytes(StandardCharsets.US_ASCII));
			}
			default -> {
				byte[][] invalid = { { (byte) 0xFF }, { (byte) 0xC3 }, { (byte) 0xC0, (byte) 0x80 },
						{ (byte) 0xED, (byte) 0xA0, (byte) 0x80 }, "%FF".getBytes(StandardCharsets.US_ASCII),
						"%C3%28".getBytes(StandardCharsets.US_ASCII), { 0 } };
				result = splice(result, random.nextInt(result.length + 1), 0, invalid[random.nextInt(invalid.length)]);
			}
		}
		return result;
	}

	private static byte[] splice(byte[] body, int at, int remove, byte[] insert) {
		byte[] result = new byte[body.length - remove + insert.length];
		System.arraycopy(body, 0, result, 0, at);
		System.arraycopy(insert, 0, result, at, insert.length);
		System.arraycopy(body, at + remove, result, at + insert.length, body.length - at - remove);
		return result;
	}

	private static byte[] concat(byte[] first, byte[] second) {
		byte[] result = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, result, first.length, second.length);
		return result;
	}

	private static void assertSameFields(@Nullable MultiValueMap<String, String> actual,
			@Nullable MultiValueMap<String, String> expected, String description) {

		if (expected == null) {
			assertThat(actual).as(description).isNull();
			return;
		}
		assertThat(actual).as(description).isNotNull();
		// Lookups first: they must work before (and without) the map being built
		for (String name : expected.keySet()) {
			assertThat(actual.getFirst(name)).as(description + " getFirst(" + name + ")")
				.isEqualTo(expected.getFirst(name));
			assertThat(actual.get(name)).as(description + " get(" + name + ")").isEqualTo(expected.get(name));
			assertThat(actual.containsKey(name)).as(description).isTrue();
		}
		assertThat(actual.isEmpty()).as(description).isEqualTo(expected.isEmpty());
		assertThat(actual).as(description).isEqualTo(expected);
		assertThat(expected).as(description).isEqualTo(actual);
		assertThat(actual.hashCode()).as(description).isEqualTo(expected.hashCode());
		assertThat(new ArrayList<>(actual.keySet())).as(description).isEqualTo(new ArrayList<>(expected.keySet()));
		FormParameters parameters = FormParameters.of(actual);
		assertThat(parameters.names()).as(description).containsExactlyElementsOf(expected.keySet());
		assertThat(parameters.size()).as(description)
			.isEqualTo(expected.values().stream().mapToInt(List::size).sum());
	}

	private static List<Integer> cuts(Random random, int length) {
		List<Integer> cuts = new ArrayList<>();
		int mode = random.nextInt(4);
		if (mode == 0 || length == 0) {
			return cuts;
		}
		if (mode == 1 && length <= 600) {
			for (int i = 1; i < length; i++) {
				cuts.add(i);
			}
			return cuts;
		}
		int count = 1 + random.nextInt(Math.min(length, 12));
		for (int i = 0; i < count; i++) {
			cuts.add(random.nextInt(length));
		}
		Collections.sort(cuts);
		return cuts;
	}

	private static MockServerHttpRequest request(LeakTrackingDataBufferFactory factory, MediaType contentType,
			byte[] body, List<Integer> cuts, boolean withContentLength) {

		List<byte[]> chunks = new ArrayList<>();
		int start = 0;
		for (int cut : cuts) {
			chunks.add(Arrays.copyOfRange(body, start, cut));
			start = cut;
		}
		chunks.add(Arrays.copyOfRange(body, start, body.length));
		Flux<DataBuffer> buffers = Flux.fromIterable(chunks).map(factory::bufferOf);
		MockServerHttpRequest.BodyBuilder builder = MockServerHttpRequest.post("/").contentType(contentType);
		if (withContentLength) {
			builder.contentLength(body.length);
		}
		return builder.body(buffers);
	}

	private static Outcome read(HttpMessageReader<MultiValueMap<String, String>> reader,
			MockServerHttpRequest request) {
		try {
			Optional<MultiValueMap<String, String>> form = reader.readMono(FORM_TYPE, request, Map.of())
				.blockOptional();
			return new Outcome(form.orElse(null), null);
		}
		catch (RuntimeException ex) {
			return new Outcome(null, ex);
		}
	}

	private record Outcome(@Nullable MultiValueMap<String, String> form, @Nullable Throwable error) {
	}

}
