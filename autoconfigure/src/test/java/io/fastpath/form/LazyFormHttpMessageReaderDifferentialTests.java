package io.fastpath.form;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.MultiValueMap;

import io.fastpath.test.LeakTrackingDataBufferFactory;

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

	private static final long SEED = seed(System.getProperty("fastpath.seed", "20261130"));

	private static final int CASES = Integer.getInteger("fastpath.cases", 400);

	private static final double MALFORMED_SHARE = 0.15;

	private static final ResolvableType FORM_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private static final AtomicLong casesRun = new AtomicLong();

	private static final AtomicLong malformedRun = new AtomicLong();

	private static long seed(String property) {
		return "random".equals(property) ? new Random().nextLong() : Long.parseLong(property);
	}

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
		System.out.printf("LazyFormHttpMessageReaderDifferentialTests: seed %d, %d cases (%d malformed)%n", SEED,
				casesRun.get(), malformedRun.get());
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
			chunks.add(java.util.Arrays.copyOfRange(body, start, cut));
			start = cut;
		}
		chunks.add(java.util.Arrays.copyOfRange(body, start, body.length));
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
