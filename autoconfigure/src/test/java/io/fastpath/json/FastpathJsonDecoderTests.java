package io.fastpath.json;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JsonView;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import tools.jackson.core.JsonParser;
import tools.jackson.core.io.IOContext;
import tools.jackson.core.io.InputDecorator;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.core.util.BufferRecycler;
import tools.jackson.core.util.RecyclerPool;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.DeserializationProblemHandler;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.http.codec.HttpMessageDecoder;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import org.springframework.util.MimeType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hand-written edge cases for {@link FastpathJsonDecoder}. Each decodes the same input with
 * the stock {@link JacksonJsonDecoder}, asserts that Fastpath agrees with it (equal
 * values, or an exception of the same type), and then asserts the expected outcome, so
 * that a case where both go wrong fails too. Every buffer must be released.
 * <p>A few tests check Fastpath alone, where stock goes plainly wrong: its result depends
 * on where the buffers end, or it rounds a float twice.
 */
class FastpathJsonDecoderTests {

	private static final MediaType JSON = MediaType.APPLICATION_JSON;

	private static final ResolvableType MAP = ResolvableType.forClassWithGenerics(Map.class, String.class,
			Object.class);

	private static final ResolvableType POJO = ResolvableType.forClass(TestPojo.class);

	private static final ResolvableType POJO_LIST = ResolvableType.forClassWithGenerics(List.class, TestPojo.class);

	/** One pooled factory for the class: a new pool per test would hold a chunk each. */
	private static final LeakTrackingDataBufferFactory NETTY = LeakTrackingDataBufferFactory.nettyPooled();

	private final LeakTrackingDataBufferFactory heap = LeakTrackingDataBufferFactory.heap();

	private final List<DataBuffer> handedOut = new ArrayList<>();

	@AfterEach
	void everyBufferIsReleased() {
		assertThat(this.handedOut).as("input buffers")
			.noneMatch((buffer) -> buffer instanceof PooledDataBuffer pooled && pooled.isAllocated());
		this.heap.assertNoLeaks();
	}

	@AfterAll
	static void everyPooledBufferIsReleased() {
		// Also those the decoders made: the pool's are too many to go through after each test
		NETTY.assertNoLeaks();
	}

	@Test
	void jacksonDefaultsAreTheOnesTheseTestsExpect() {
		JsonMapper mapper = JsonMapper.builder().build();
		assertThat(mapper.isEnabled(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)).isTrue();
		assertThat(mapper.isEnabled(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)).isTrue();
		assertThat(mapper.isEnabled(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)).isFalse();
		assertThat(mapper.isEnabled(DeserializationFeature.ACCEPT_FLOAT_AS_INT)).isTrue();
		assertThat(mapper.isEnabled(MapperFeature.DEFAULT_VIEW_INCLUSION)).isFalse();
	}

	/** Every type of the brief, as a whole value (Mono) or as elements (Flux). */
	static Stream<Target> targets() {
		return Stream.of(
				Target.mono("List<Pojo>", POJO_LIST, "{\"name\":\"a\",\"id\":1}", "1"),
				Target.mono("Collection<Pojo>", ResolvableType.forClassWithGenerics(Collection.class, TestPojo.class),
						"{\"name\":\"a\",\"id\":1}", "1"),
				Target.mono("Set<String>", ResolvableType.forClassWithGenerics(Set.class, String.class), "\"a\"", "{}"),
				Target.mono("Pojo[]", ResolvableType.forClass(TestPojo[].class), "{\"name\":\"a\"}", "1"),
				Target.mono("long[]", ResolvableType.forClass(long[].class), "1", "\"abc\""),
				Target.mono("int[]", ResolvableType.forClass(int[].class), "1", "\"abc\""),
				Target.mono("double[]", ResolvableType.forClass(double[].class), "1.5", "\"abc\""),
				Target.mono("float[]", ResolvableType.forClass(float[].class), "1.5", "\"abc\""),
				Target.mono("boolean[]", ResolvableType.forClass(boolean[].class), "true", "\"abc\""),
				Target.mono("List<Long>", list(Long.class), "1", "\"abc\""),
				Target.mono("List<Integer>", list(Integer.class), "1", "\"abc\""),
				Target.mono("List<Double>", list(Double.class), "1.5", "\"abc\""),
				Target.mono("List<Boolean>", list(Boolean.class), "true", "\"abc\""),
				Target.mono("List<String>", list(String.class), "\"a\"", "{}"),
				Target.mono("List<Map<String,Object>>", ResolvableType.forClassWithGenerics(List.class, MAP),
						"{\"a\":1}", "1"),
				Target.flux("Pojo", POJO, "{\"name\":\"a\",\"id\":1}", "1"),
				Target.flux("Long", ResolvableType.forClass(Long.class), "1", "\"abc\""),
				Target.flux("Integer", ResolvableType.forClass(Integer.class), "1", "\"abc\""),
				Target.flux("Double", ResolvableType.forClass(Double.class), "1.5", "\"abc\""),
				Target.flux("Boolean", ResolvableType.forClass(Boolean.class), "true", "\"abc\""),
				Target.flux("String", ResolvableType.forClass(String.class), "\"a\"", "{}"),
				Target.flux("Map<String,Object>", MAP, "{\"a\":1}", "1"));
	}

	/** Every target on heap and on Netty pooled buffers. */
	static Stream<Arguments> targetsAndBuffers() {
		return targets().flatMap((target) -> Stream.of(Arguments.of(target, "heap"), Arguments.of(target, "netty")));
	}

	// Empty, blank and null bodies

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void emptyArrayDecodesToEmptyValueLikeStock(Target target, String buffers) {
		DecoderOutcome outcome = decoding(target).on(buffers).body("[]").likeStock();
		assertThat(outcome.error()).isNull();
		if (target.flux()) {
			assertThat(outcome.values()).isEmpty();
		}
		else {
			assertThat(outcome.values()).singleElement().satisfies((value) -> assertThat(sizeOf(value)).isZero());
		}
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void emptyBodyDecodesToNothingLikeStock(Target target, String buffers) {
		DecoderOutcome outcome = decoding(target).on(buffers).chunks().likeStock();
		assertThat(outcome.error()).isNull();
		assertThat(outcome.values()).isEmpty();
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void bodyOfEmptyBuffersBehavesLikeStock(Target target, String buffers) {
		DecoderOutcome outcome = decoding(target).on(buffers).body("", "").likeStock();
		if (target.flux()) {
			assertThat(outcome.error()).isNull();
			assertThat(outcome.values()).isEmpty();
		}
		else {
			// Joined, they make a buffer that Jackson finds no content in
			assertThat(outcome.error()).isInstanceOf(DecodingException.class);
		}
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void whitespaceOnlyBodyBehavesLikeStock(Target target, String buffers) {
		DecoderOutcome outcome = decoding(target).on(buffers).body(" \n\t", "\r\n  ").likeStock();
		if (target.flux()) {
			assertThat(outcome.error()).isNull();
			assertThat(outcome.values()).isEmpty();
		}
		else {
			// Jackson finds no content to map
			assertThat(outcome.error()).isInstanceOf(DecodingException.class);
		}
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void nullBodyDecodesToNothingLikeStock(Target target, String buffers) {
		DecoderOutcome outcome = decoding(target).on(buffers).body(" null ").likeStock();
		assertThat(outcome.error()).isNull();
		assertThat(outcome.values()).isEmpty();
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void nullElementsBehaveLikeStock(Target target, String buffers) {
		String e = target.element();
		DecoderOutcome outcome = decoding(target).on(buffers).body("[" + e + ",null, " + e + " , null]").likeStock();
		if (target.flux()) {
			// Stock skips null elements
			assertThat(outcome.error()).isNull();
			assertThat(outcome.values()).hasSize(2);
		}
		else if (target.type().isArray() && target.type().getComponentType().toClass().isPrimitive()) {
			// FAIL_ON_NULL_FOR_PRIMITIVES is on by default in Jackson 3
			assertThat(outcome.error()).isInstanceOf(DecodingException.class);
		}
		else {
			assertThat(outcome.error()).isNull();
			assertThat(outcome.values()).singleElement()
				.satisfies((value) -> assertThat(sizeOf(value)).isEqualTo(value instanceof Set ? 2 : 4));
		}
	}

	@Test
	void longArrayWithNullFailsLikeStock() {
		DecoderOutcome outcome = decoding(Target.mono("long[]", ResolvableType.forClass(long[].class), "1", "\"x\""))
			.body("[1,null]")
			.likeStock();
		assertThat(outcome.error()).isInstanceOf(DecodingException.class)
			.hasMessageContaining("FAIL_ON_NULL_FOR_PRIMITIVES");
	}

	@Test
	void pojoWithNullForPrimitivePropertyFailsLikeStock() {
		assertThat(decoding(listOfPojo()).body("[{\"id\":null}]").likeStock().error())
			.isInstanceOf(DecodingException.class);
		assertThat(decoding(fluxOfPojo()).body("[{\"name\":\"a\"},{\"id\":null}]").likeStock().error())
			.isInstanceOf(DecodingException.class);
	}

	// Malformed bodies, each class on every target

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void truncatedBodyFailsLikeStock(Target target, String buffers) {
		assertEachFailsLikeStock(target, buffers, "[", "[E", "[E,", "[E,E", "[E , ", "[\"abc", "[\"a\\", "[\"\\u00",
				"[tru", "[-", "[{\"a\":", "[{\"a\"", "[{", "[[");
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void trailingGarbageFailsLikeStock(Target target, String buffers) {
		assertEachFailsLikeStock(target, buffers, "[E]x", "[E] x", "[E],", "[E]]", "[E]}", "[E] :", "[E]\u0000",
				"[E]\"", "[E] /");
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void extraCommasFailLikeStock(Target target, String buffers) {
		// A trailing comma in an object: see trailingCommaInObjectFailsWhereverTheBodyIsCut
		assertEachFailsLikeStock(target, buffers, "[E,,E]", "[E,]", "[,E]", "[,]", "[E , ]", "[ ,E]", "[E,E,]",
				"[E E]", ",[E]", "[{,\"a\":1}]", "[{\"a\":1,,\"b\":2}]", "[{\"a\" 1}]", "[E,E,] E", "[E,E, ] [E]",
				"[E,E,][E]");
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void badNumbersFailLikeStock(Target target, String buffers) {
		assertEachFailsLikeStock(target, buffers, "[01]", "[1.]", "[-]", "[1e]", "[+1]", "[.5]", "[1e+]", "[--1]",
				"[0x10]", "[1.e5]", "[-01]", "[00]", "[1.5.5]", "[E,1ee2]", "[-a]", "[NaN]", "[Infinity]",
				"[-Infinity]");
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void badLiteralsFailLikeStock(Target target, String buffers) {
		assertEachFailsLikeStock(target, buffers, "[tru]", "[nul]", "[True]", "[NULL]", "[falsey]", "[nulll]",
				"[undefined]", "[E,t rue]");
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void unbalancedBracketsFailLikeStock(Target target, String buffers) {
		assertEachFailsLikeStock(target, buffers, "[E}", "{E]", "[[E]", "[E]]", "[{]", "[{\"a\":1]", "[{\"a\":[1}]",
				"]", "}", "[E,{]", "[E,[]");
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void invalidUtf8InStringsFailsLikeStock(Target target, String buffers) {
		for (byte[] bad : List.of(bytes(0xFF), bytes(0x80), bytes(0xC3), bytes(0xE2, 0x82), bytes(0xF0, 0x9F, 0x98),
				bytes(0xF8, 0x88, 0x80, 0x80, 0x80), bytes(0xC3, 0x28))) {
			String element = (target.element().startsWith("{")) ? "{\"name\":\"a#b\"}" : "\"a#b\"";
			byte[] body = utf8("[" + element + "]");
			int at = indexOf(body, (byte) '#');
			byte[] broken = concat(Arrays.copyOf(body, at), bad, Arrays.copyOfRange(body, at + 1, body.length));
			DecoderOutcome outcome = decoding(target).on(buffers).bytes(broken).likeStock();
			assertThat(outcome.error()).as(DecoderOutcome.abbreviate(Arrays.toString(broken), 200))
				.isInstanceOf(DecodingException.class);
		}
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void badStringsFailLikeStock(Target target, String buffers) {
		assertEachFailsLikeStock(target, buffers, "[\"a\nb\"]", "[\"a\u0001b\"]", "[\"a\\xb\"]", "[\"\\u12G4\"]",
				"[\"\\U0041\"]", "['a']", "[\"a\tb\"]", "[{\"a\u0000\":1}]", "[{a:1}]");
	}

	@ParameterizedTest(name = "{0} on {1}")
	@MethodSource("targetsAndBuffers")
	void wrongElementTypeFailsLikeStock(Target target, String buffers) {
		assertEachFailsLikeStock(target, buffers, "[W]", "[E,W]", "[W,E]");
	}

	@Test
	void outOfRangeNumbersFailLikeStock() {
		assertThat(decoding(monoOf(int[].class)).body("[2147483648]").likeStock().error())
			.isInstanceOf(DecodingException.class);
		assertThat(decoding(monoOf(long[].class)).body("[9223372036854775808]").likeStock().error())
			.isInstanceOf(DecodingException.class);
		assertThat(decoding(Target.mono("List<Integer>", list(Integer.class), "1", "x")).body("[-2147483649]")
			.likeStock()
			.error()).isInstanceOf(DecodingException.class);
		assertThat(decoding(fluxOf(Long.class)).body("[1,-9223372036854775809]").likeStock().error())
			.isInstanceOf(DecodingException.class);
		assertThat(decoding(fluxOf(Integer.class)).body("[1,2147483648]").likeStock().error())
			.isInstanceOf(DecodingException.class);
	}

	@Test
	void deeplyNestedValueFailsLikeStock() {
		String deep = "[".repeat(1000) + "]".repeat(1000);
		assertThat(decoding(Target.mono("List<Map>", ResolvableType.forClassWithGenerics(List.class, MAP), "{}", "1"))
			.body("[{\"a\":" + deep + "}]")
			.likeStock()
			.error()).isInstanceOf(DecodingException.class);
		assertThat(decoding(fluxOf(MAP)).body("[{\"a\":" + deep + "}]").likeStock().error())
			.isInstanceOf(DecodingException.class);
	}

	@Test
	void numberLongerThanJacksonAllowsFailsLikeStock() {
		String digits = "1".repeat(1001);
		assertThat(decoding(monoOf(double[].class)).body("[" + digits + "]").likeStock().error())
			.isInstanceOf(DecodingException.class);
		assertThat(decoding(fluxOf(MAP)).body("[{\"a\":" + digits + "}]").likeStock().error())
			.isInstanceOf(DecodingException.class);
	}

	// Values

	@ParameterizedTest(name = "{0}")
	@MethodSource("doubleTargets")
	void doublesKeepExactValuesLikeStock(Target target) {
		String[] literals = { "1e10", "-2.5E-3", "4.9e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
				"-0.0", "0.30000000000000004", "9007199254740993", "2.2250738585072011e-308", "0.1", "1E+2",
				"123456789012345678901234567890", "3.141592653589793238462643383279502884197", "1e-400" };
		DecoderOutcome outcome = decoding(target).body("[" + String.join(",", literals) + "]").likeStock();
		double[] expected = Arrays.stream(literals).mapToDouble(Double::parseDouble).toArray();
		assertThat(outcome.error()).isNull();
		assertThat(doublesOf(outcome)).containsExactly(expected);
	}

	static Stream<Target> doubleTargets() {
		return Stream.of(monoOf(double[].class), Target.mono("List<Double>", list(Double.class), "1.5", "x"),
				fluxOf(Double.class));
	}

	@Test
	void doubleOverflowDecodesToInfinityLikeStock() {
		DecoderOutcome outcome = decoding(monoOf(double[].class)).body("[1e309,-1e309]").likeStock();
		assertThat(outcome.values()).singleElement()
			.isEqualTo(new double[] { Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY });
		assertThat(decoding(fluxOf(Double.class)).body("[1e309]").likeStock().values())
			.containsExactly(Double.POSITIVE_INFINITY);
	}

	@Test
	void floatArrayRoundsDecimalsOnceLikeStock() {
		// Parsed as a double first and then narrowed, each of these rounds the other way
		String[] literals = { "8417682688.0000003", "0.564625471830368", "1.00000005960464477539062500001",
				"3.4028235e38", "1.4e-45", "16777217" };
		DecoderOutcome outcome = decoding(monoOf(float[].class)).body("[" + String.join(",", literals) + "]")
			.likeStock();
		float[] expected = new float[literals.length];
		for (int i = 0; i < literals.length; i++) {
			expected[i] = Float.parseFloat(literals[i]);
		}
		assertThat(outcome.values()).singleElement().isEqualTo(expected);
	}

	@Test
	void floatPropertiesOfFluxElementsAreRoundedOnce() {
		// Stock's Flux path rounds these to a double first, then to a float: off by one ulp
		String[] literals = { "8417682688.0000003", "0.564625471830368", "0.00000671831662657496055" };
		for (String literal : literals) {
			DecoderOutcome outcome = decoding(fluxOfPojo()).body("[{\"ratio\":" + literal + "}]").fastpathOnly();
			assertThat(outcome.values()).as(literal)
				.singleElement()
				.isInstanceOfSatisfying(TestPojo.class,
						(pojo) -> assertThat(pojo.getRatio()).isEqualTo(Float.parseFloat(literal)));
		}
	}

	@Test
	void floatsAreCoercedToLongsLikeStock() {
		DecoderOutcome outcome = decoding(monoOf(long[].class)).body("[1.0,2.5,-3.9,1e3]").likeStock();
		assertThat(outcome.values()).singleElement().isEqualTo(new long[] { 1, 2, -3, 1000 });
		assertThat(decoding(fluxOf(Long.class)).body("[1.0,2.5,1e3]").likeStock().values()).containsExactly(1L, 2L,
				1000L);
	}

	@Test
	void scalarsAreCoercedFromStringsLikeStock() {
		assertThat(decoding(fluxOf(Long.class)).body("[\"12\",\"-3\"]").likeStock().values()).containsExactly(12L,
				-3L);
		assertThat(decoding(fluxOf(Boolean.class)).body("[\"true\",\"false\"]").likeStock().values())
			.containsExactly(true, false);
		assertThat(decoding(fluxOf(String.class)).body("[12,true,1.5]").likeStock().values()).containsExactly("12",
				"true", "1.5");
		assertThat(decoding(monoOf(int[].class)).body("[\"7\"]").likeStock().values()).singleElement()
			.isEqualTo(new int[] { 7 });
	}

	@Test
	void untypedNumbersInMapsTakeTheSmallestFittingTypeLikeStock() {
		DecoderOutcome outcome = decoding(fluxOf(MAP))
			.body("[{\"int\":1,\"long\":3000000000,\"big\":123456789012345678901234567890,\"double\":1.5,"
					+ "\"exp\":1e2,\"negativeZero\":-0.0}]")
			.likeStock();
		assertThat(outcome.values()).singleElement().isInstanceOfSatisfying(Map.class, (map) -> {
			assertThat(map.get("int")).isEqualTo(1);
			assertThat(map.get("long")).isEqualTo(3000000000L);
			assertThat(map.get("big")).isEqualTo(new BigInteger("123456789012345678901234567890"));
			assertThat(map.get("double")).isEqualTo(1.5);
			assertThat(map.get("exp")).isEqualTo(100.0);
			assertThat(map.get("negativeZero")).isEqualTo(-0.0);
		});
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("stringTargets")
	void escapedAndNonAsciiStringsDecodeLikeStockWhereverTheBodyIsCut(Target target) {
		String json = "[\"line\\nbreak\",\"quote\\\"d\",\"back\\\\slash\",\"sl\\/ash\",\"\\u00e9\\u20AC\","
				+ "\"\\ud83d\\ude00\",\"é€😀𝄞\",\"\\u0000\\u001f\",\"tab\\tcr\\r\\b\\f\"]";
		List<String> expected = List.of("line\nbreak", "quote\"d", "back\\slash", "sl/ash", "é€", "😀",
				"é€😀𝄞", "\u0000\u001f", "tab\tcr\r\b\f");
		DecoderOutcome outcome = decoding(target).bytes(bytesOneByOne(utf8(json))).likeStock();
		assertThat(outcome.error()).isNull();
		List<?> values = target.flux() ? outcome.values() : (List<?>) outcome.values().get(0);
		assertThat(values).isEqualTo(expected);
	}

	static Stream<Target> stringTargets() {
		return Stream.of(Target.mono("List<String>", list(String.class), "\"a\"", "{}"), fluxOf(String.class));
	}

	@Test
	void escapedSurrogatePairInPropertyNameDecodesWhereverTheBodyIsCut() {
		// Stock fails on the Flux path when a buffer ends between or inside the two escapes:
		// Jackson's non-blocking parser reports "Still have N undecoded bytes".
		byte[] body = utf8("[{\"\\ud83d\\ude00\":1}]");
		for (int cut = 1; cut < body.length; cut++) {
			DecoderOutcome outcome = decoding(fluxOf(MAP)).bytes(Arrays.copyOf(body, cut),
					Arrays.copyOfRange(body, cut, body.length))
				.fastpathOnly();
			assertThat(outcome.values()).as("cut at %d", cut).containsExactly(Map.of("😀", 1));
		}
	}

	@Test
	void trailingCommaInObjectFailsWhereverTheBodyIsCut() {
		// Stock accepts it on the Flux path when a buffer ends right after the comma.
		byte[] body = utf8("[{\"a\":1,}]");
		for (int cut = 1; cut < body.length; cut++) {
			DecoderOutcome outcome = decoding(fluxOf(MAP)).bytes(Arrays.copyOf(body, cut),
					Arrays.copyOfRange(body, cut, body.length))
				.fastpathOnly();
			assertThat(outcome.error()).as("cut at %d", cut).isInstanceOf(DecodingException.class);
		}
	}

	@Test
	void largeElementsSpanningManyChunksDecodeLikeStock() {
		String big = "x".repeat(10_000) + "é€😀";
		String json = "[{\"name\":\"" + big + "\",\"tags\":[\"" + big + "\"]},{\"name\":\"small\"}]";
		DecoderOutcome outcome = decoding(fluxOfPojo()).on("netty").bytes(chunksOf(utf8(json), 61)).likeStock();
		assertThat(outcome.values()).hasSize(2).first().isInstanceOfSatisfying(TestPojo.class,
				(pojo) -> assertThat(pojo.getName()).isEqualTo(big));
	}

	@Test
	void byteOrderMarkBeforeTheBodyIsSkippedLikeStock() {
		byte[] body = concat(bytes(0xEF, 0xBB, 0xBF), utf8("[{\"name\":\"a\"},{\"name\":\"b\"}]"));
		assertThat(decoding(fluxOfPojo()).bytes(body).likeStock().values()).hasSize(2);
		assertThat(decoding(listOfPojo()).bytes(body).likeStock().values()).singleElement()
			.satisfies((list) -> assertThat(sizeOf(list)).isEqualTo(2));
	}

	// Values read ahead by one parser per chunk

	@ParameterizedTest(name = "{0}")
	@MethodSource("readAheadBodies")
	void valuesReadAheadDecodeLikeStockWhereverTheBodyIsCutInTwoOrThree(Target target, String json) {
		byte[] body = utf8(json);
		for (int first = 1; first < body.length; first++) {
			for (int second = first; second < body.length; second += 7) {
				List<byte[]> chunks = (second == first) ? List.of(Arrays.copyOf(body, first),
						Arrays.copyOfRange(body, first, body.length))
						: List.of(Arrays.copyOf(body, first), Arrays.copyOfRange(body, first, second),
								Arrays.copyOfRange(body, second, body.length));
				decoding(target).bytes(chunks).likeStock();
				decoding(target).bytes(chunks).withContentLength().likeStock();
			}
		}
	}

	static Stream<Arguments> readAheadBodies() {
		return Stream.of(Arguments.of(fluxOf(Long.class), "[1,22,-333,4444, 55555 ,null, 6.5,\"7\",8]  "),
				Arguments.of(fluxOf(Boolean.class), "[true,false, true,null,\"true\",false]"),
				Arguments.of(fluxOf(String.class), "[\"a,b\",\"],\",\"c\\\",d\" , \"},{\",\"é,😀\",null,\"x\"]"),
				Arguments.of(fluxOf(Double.class), "[1.5,-2e3,3,1E-2,0.1,7]"),
				Arguments.of(fluxOf(Integer.class), "[1, -2 ,2147483647,\"5\",null,-2147483648,6]"),
				Arguments.of(fluxOfPojo(), "[{\"name\":\"a,]\",\"child\":{\"name\":\"b\"},\"tags\":[\"x\",\"y\"]},"
						+ "{\"name\":\"},{\"},null, {\"name\":\"c\",\"child\":{\"name\":\"d\",\"tags\":[]}} ,{}]"),
				Arguments.of(fluxOf(MAP), "[{\"a\":[1,{\"b\":2}],\"c\":\"]\"},{},{\"d\":null}]"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("readAheadBadBodies")
	void badValuesAmongValuesReadAheadFailLikeStockWhereverTheBodyIsCut(Target target, String json) {
		byte[] body = utf8(json);
		for (int cut = 1; cut < body.length; cut++) {
			DecoderOutcome outcome = decoding(target)
				.bytes(Arrays.copyOf(body, cut), Arrays.copyOfRange(body, cut, body.length))
				.likeStock();
			assertThat(outcome.error()).as("cut at %d", cut).isNotNull();
			DecoderOutcome ofKnownLength = decoding(target)
				.bytes(Arrays.copyOf(body, cut), Arrays.copyOfRange(body, cut, body.length))
				.withContentLength()
				.likeStock();
			assertThat(ofKnownLength.error()).as("cut at %d, with Content-Length", cut).isNotNull();
		}
		assertThat(decoding(target).body(json).likeStock().error()).isNotNull();
		assertThat(decoding(target).body(json).withContentLength().likeStock().error()).isNotNull();
	}

	static Stream<Arguments> readAheadBadBodies() {
		Target longs = fluxOf(Long.class);
		return Stream.of(Arguments.of(longs, "[1,2,x,4,5]"), Arguments.of(longs, "[1,2 3,4]"),
				Arguments.of(longs, "[1,2,,3,4]"), Arguments.of(longs, "[1,2,\"a\",4,5]"),
				Arguments.of(longs, "[1,2,3,4]]"), Arguments.of(longs, "[1,2,3,4}"), Arguments.of(longs, "[1,2,tru,4]"),
				Arguments.of(longs, "[1,2,3,4,]"), Arguments.of(longs, "[1,2,\"3,4\",5]"),
				Arguments.of(longs, "[1,2,[3,4],5]"), Arguments.of(longs, "[1,2,{\"a\":3,\"b\":4},5]"),
				Arguments.of(fluxOf(Double.class), "[1.5,2.5,\"x,y\",3]"), Arguments.of(fluxOfPojo(), "[{\"name\":\"a\"},{\"name\":1]}]"),
				Arguments.of(fluxOfPojo(), "[{\"name\":\"a\"},[],{\"name\":\"b\"}]"),
				Arguments.of(fluxOfPojo(), "[{\"name\":\"a\"}}, {\"name\":\"b\"}]"),
				Arguments.of(fluxOfPojo(), "[{\"name\":\"a\"} {\"name\":\"b\"}]"),
				Arguments.of(fluxOfPojo(), "[{\"name\":\"a\"},{\"name\":\"b\"}]]"),
				Arguments.of(fluxOfPojo(), "[{\"name\":\"a\",\"tags\":[\"x\"]"));
	}

	@Test
	void closingBracketLeftBehindByAnEarlierChunkIsNotTakenForTheEndOfTheArray() {
		// After the second chunk, the splitter's buffer still holds the first one's ']'
		// just past the bytes it keeps.
		DecoderOutcome outcome = decoding(fluxOf(Long.class)).bytes(utf8("[5,6666]"), utf8(" [7,88,"), utf8("9]"))
			.likeStock();
		assertThat(outcome.values()).containsExactly(5L, 6666L, 7L, 88L, 9L);
	}

	@Test
	void problemHandlersOfTheApplicationSeeOnlyValuesOfTheBodyWhereverItIsCut() {
		// Cut after "3", the chunk's last comma is inside [2,3]: closed there, it reads [2].
		byte[] body = utf8("[1,[2,3],4,\"a,b\",5]");
		for (int cut = 1; cut < body.length; cut++) {
			List<String> seen = new ArrayList<>();
			DecoderOutcome outcome = decoding(fluxOf(Long.class)).mapper(mapperRecordingProblems(seen))
				.bytes(Arrays.copyOf(body, cut), Arrays.copyOfRange(body, cut, body.length))
				.fastpathOnly();
			assertThat(outcome.values()).as("cut at %d", cut).containsExactly(1L, 0L, 4L, 0L, 5L);
			assertThat(seen).as("cut at %d", cut).containsExactly("23", "a,b");
		}
		// Stock's tokenizer fails on [2,3] with "trailing token": the reference is Jackson
		// reading the whole body, as where stock's tokenizer is inconsistent elsewhere.
		List<Object> whole = mapperRecordingProblems(new ArrayList<>()).readerForListOf(Long.class).readValue(body);
		assertThat(whole).as("plain Jackson").containsExactly(1L, 0L, 4L, 0L, 5L);
	}

	/** A mapper whose problem handler records what it is handed, and reads it as 0. */
	private static JsonMapper mapperRecordingProblems(List<String> seen) {
		return JsonMapper.builder().addHandler(new DeserializationProblemHandler() {

			@Override
			public Object handleUnexpectedToken(DeserializationContext context, JavaType targetType, JsonToken token,
					JsonParser parser, String failureMessage) {
				StringBuilder array = new StringBuilder();
				while (parser.nextToken() != JsonToken.END_ARRAY) {
					array.append(parser.getString());
				}
				seen.add(array.toString());
				return 0L;
			}

			@Override
			public Object handleWeirdStringValue(DeserializationContext context, Class<?> targetType, String value,
					String failureMessage) {
				seen.add(value);
				return 0L;
			}

		}).build();
	}

	@Test
	void valuesReadAheadAreEmittedWhenTheirChunkArrives() {
		TestPublisher<DataBuffer> body = TestPublisher.create();
		Flux<Object> values = fastpathDecoder().decode(body.flux(), ResolvableType.forClass(Long.class),
				MediaType.APPLICATION_JSON, null);
		StepVerifier.create(values)
			.then(() -> body.next(handOut(this.heap, utf8("[1,2,3,"))))
			.expectNext(1L, 2L, 3L)
			.then(() -> body.next(handOut(this.heap, utf8("4,5"))))
			.as("5 may go on in the next chunk")
			.expectNext(4L)
			.then(() -> body.next(handOut(this.heap, utf8("6,7]"))))
			.expectNext(56L, 7L)
			.then(body::complete)
			.verifyComplete();
	}

	@Test
	void valuesReadAheadFromManyChunksOfAStreamDecodeLikeStock() {
		StringBuilder json = new StringBuilder("[");
		for (int i = 0; i < 2000; i++) {
			json.append((i > 0) ? "," : "").append("{\"name\":\"n").append(i).append("\",\"child\":{\"name\":\"")
				.append("x".repeat(i % 300)).append("\"}}");
		}
		byte[] body = utf8(json.append("]").toString());
		for (int size : new int[] { 100, 1000, 8192, 65536 }) {
			assertThat(decoding(fluxOfPojo()).on("netty").bytes(chunksOf(body, size)).likeStock().values())
				.hasSize(2000);
		}
	}

	@Test
	void deserializersRunOnceForEveryElementWhereverTheBodyIsCut() {
		// A cut value must not reach the application's code: stock reads each element once.
		String[] bodies = { "[{\"id\":\"o1\",\"total\":\"1.00 EUR\"},{\"id\":\"]\",\"total\":\"2.00 EUR\"}]",
				"[{\"id\":\"o1\",\"total\":\"1.00 EUR\"},{\"total\":\"2.00 EUR\",\"id\":\"]\"}]",
				"[{\"id\":\"o1\",\"total\":\"1.00 EUR\"},{\"id\":\"" + "o".repeat(300)
						+ "\",\"total\":\"2.00 EUR\"}]" };
		for (String json : bodies) {
			byte[] body = utf8(json);
			// Up to the whole body in the first chunk, which a known length reads in place.
			for (int cut = 1; cut <= body.length; cut++) {
				for (boolean knownLength : new boolean[] { false, true }) {
					AtomicInteger calls = new AtomicInteger();
					JsonMapper mapper = JsonMapper.builder()
						.addModule(new SimpleModule().addDeserializer(Money.class, new CountingDeserializer(calls)))
						.build();
					Decoding decoding = decoding(Target.flux("Order", ResolvableType.forClass(Order.class), "{}", "1"))
						.mapper(mapper)
						.bytes(Arrays.copyOf(body, cut), Arrays.copyOfRange(body, cut, body.length));
					DecoderOutcome outcome = (knownLength ? decoding.withContentLength() : decoding).fastpathOnly();
					assertThat(outcome.values()).as("cut at %d, known length %s", cut, knownLength).hasSize(2);
					assertThat(calls).as("cut at %d, known length %s", cut, knownLength).hasValue(2);
				}
			}
		}
	}

	@Test
	void serverHintsCarryTheRequestContentLengthBesideStocks() {
		FastpathJsonDecoder decoder = fastpathDecoder();
		ResolvableType type = ResolvableType.forClass(TestPojo.class);
		MockServerHttpResponse response = new MockServerHttpResponse();
		Map<String, Object> hints = decoder.getDecodeHints(type, type,
				MockServerHttpRequest.post("/").contentLength(1234).build(), response);
		assertThat(hints).containsExactly(Map.entry(FastpathJsonDecoder.CONTENT_LENGTH_HINT, 1234L));
		assertThat(decoder.getDecodeHints(type, type, MockServerHttpRequest.post("/").build(), response))
			.as("no Content-Length")
			.isEqualTo(decoder.getStockDecoder()
				.getDecodeHints(type, type, MockServerHttpRequest.post("/").build(), response));
	}

	@Test
	void bodyLongerThanItsContentLengthDecodesLikeStock() {
		// A body decoded on the way (a decompressing filter) is longer than announced: the
		// chunk that reaches the announced length is not the last, and may end inside a value.
		byte[] body = utf8("[{\"name\":\"a\",\"tags\":[\"x\"]},{\"name\":\"b\",\"tags\":[\"y\"]}]");
		for (int cut = 1; cut < body.length; cut++) {
			DecoderOutcome outcome = decoding(fluxOfPojo())
				.bytes(Arrays.copyOf(body, cut), Arrays.copyOfRange(body, cut, body.length))
				.contentLength(cut)
				.likeStock();
			assertThat(outcome.values()).as("cut at %d", cut).hasSize(2);
		}
	}

	@ParameterizedTest(name = "{0}: {1}")
	@MethodSource("wholeBodies")
	void wholeBodyInOneBufferOfItsContentLengthDecodesLikeStock(Target target, String json) {
		for (String buffers : new String[] { "heap", "netty" }) {
			decoding(target).on(buffers).body(json).withContentLength().likeStock();
			decoding(target).on(buffers).body(json).withContentLength().limit(4).likeStock();
		}
	}

	/**
	 * Arrays in the top-level array are left out: stock's tokenizer reads them differently
	 * as the body is cut ("[1,[2]]" whole gives 1), the fuzz suite leaves them out too.
	 */
	static Stream<Arguments> wholeBodies() {
		Target longs = fluxOf(Long.class);
		Target pojos = fluxOfPojo();
		return Stream.of(Arguments.of(longs, "[1,2,3]"), Arguments.of(longs, " \n[1, null ,\"3\"]\r\n "),
				Arguments.of(longs, "[1,2][3]"), Arguments.of(longs, "[1,2] 3"), Arguments.of(longs, "1 [2,3]"),
				Arguments.of(longs, "[]"), Arguments.of(longs, "[ ]"), Arguments.of(longs, "[1,2,]"),
				Arguments.of(longs, "[1,2]]"), Arguments.of(longs, "\uFEFF[1,2]"),
				Arguments.of(longs, "[1,x]"), Arguments.of(longs, "[1 2]"),
				Arguments.of(pojos, "[{\"name\":\"a\"},null,{\"name\":\"b\",\"tags\":[\"x\"]}]"),
				Arguments.of(pojos, "[{\"name\":\"a\"}] [{\"name\":\"b\"}]"),
				Arguments.of(pojos, "[{\"name\":\"a\"},{\"name\":1]}]"),
				Arguments.of(pojos, "[{\"name\":\"a\"},{\"name\":[]}]"),
				Arguments.of(pojos, "[{\"name\":\"a\"},{\"name\":\"b\"},]"),
				Arguments.of(pojos, "[{\"name\":\"a\"}{\"name\":\"b\"}]"));
	}

	@Test
	void streamGoesOnLikeStockAfterAWholeArrayOfTheAnnouncedLength() {
		// The first chunk is read whole; what follows is split as after any top-level array.
		for (String rest : new String[] { " [3,4]", "[3,4] 5", " [3,x]", " 3 [", "]", "\uFEFF[3]" }) {
			for (String buffers : new String[] { "heap", "netty" }) {
				DecoderOutcome outcome = decoding(fluxOf(Long.class)).on(buffers)
					.body("[1,2]", rest)
					.contentLength("[1,2]".length())
					.likeStock();
				assertThat(outcome.values()).as("[1,2] then %s", rest).startsWith(1L, 2L);
			}
		}
	}

	@Test
	void bodyInOneBufferOfItsContentLengthDecodesLikeStockOnEveryBuffer() {
		StringBuilder json = new StringBuilder("[");
		for (int i = 0; i < 500; i++) {
			json.append((i > 0) ? "," : "").append("{\"name\":\"n").append(i).append("\",\"tags\":[\"t").append(i % 7)
				.append("\"]}");
		}
		for (String buffers : new String[] { "heap", "netty" }) {
			DecoderOutcome outcome = decoding(fluxOfPojo()).on(buffers).body(json.append("]").toString())
				.withContentLength()
				.likeStock();
			assertThat(outcome.values()).as(buffers).hasSize(500);
			json.setLength(json.length() - 1);
		}
	}

	@Test
	void scalarDeserializersOfTheApplicationRunOnceForEveryElementWhereverTheBodyIsCut() {
		// A chunk that ends in "a]" looks like the end of the array.
		byte[] body = utf8("[\"x\",\"a]\",\"b\",12345]");
		for (int cut = 1; cut < body.length; cut++) {
			AtomicInteger calls = new AtomicInteger();
			JsonMapper mapper = JsonMapper.builder()
				.addModule(new SimpleModule().addDeserializer(String.class, new ValueDeserializer<String>() {

					@Override
					public String deserialize(JsonParser parser, DeserializationContext context) {
						calls.incrementAndGet();
						return parser.getValueAsString();
					}

				}))
				.build();
			DecoderOutcome outcome = decoding(fluxOf(String.class)).mapper(mapper)
				.bytes(Arrays.copyOf(body, cut), Arrays.copyOfRange(body, cut, body.length))
				.fastpathOnly();
			assertThat(outcome.values()).as("cut at %d", cut).containsExactly("x", "a]", "b", "12345");
			assertThat(calls).as("cut at %d", cut).hasValue(4);
		}
	}

	@Test
	void streamOfScalarsInSmallChunksIsReadByOneParserLikeStock() {
		// A parser per chunk costs more than the few values of a small chunk: stock feeds
		// one parser the whole stream, and so does Fastpath for scalars.
		List<Long> longs = new ArrayList<>();
		StringBuilder json = new StringBuilder("[");
		for (int i = 0; i < 100; i++) {
			longs.add(i * 1_000_003L - 7);
			json.append((i > 0) ? ", " : "").append(i * 1_000_003L - 7);
		}
		byte[] body = utf8(json.append(" ]").toString());
		for (int size : new int[] { 3, 7, 25, 100 }) {
			for (boolean knownLength : new boolean[] { false, true }) {
				CountingRecyclerPool pool = new CountingRecyclerPool();
				Decoding decoding = decoding(fluxOf(Long.class)).mapper(mapperWith(pool))
					.bytes(chunksOf(body, size));
				DecoderOutcome outcome = (knownLength ? decoding.withContentLength() : decoding).likeStock();
				assertThat(outcome.values()).as("chunks of %d", size).isEqualTo(longs);
				pool.reset();
				(knownLength ? decoding.withContentLength() : decoding).fastpathOnly();
				assertThat(pool.acquired).as("parsers for chunks of %d, known length %s", size, knownLength)
					.hasValue(1);
				assertThat(pool.released).as("parsers closed").hasValue(1);
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "[1,123true,5]", "[1,1.5false]", "[1,2null,3]", "[1,2\"a\",3]", "[1,-0.5e3x]",
			"[1,2 3]", "[1,2[3]]" })
	void scalarsWithoutASeparatorFailLikeStockWhereverTheBodyIsCut(String json) {
		// Jackson's non-blocking parser, which reads the regions of a stream of scalars, takes
		// "123" of "123true" as a number and fails only at the token after it
		// (jackson-core#1640): the values emitted and the error must still be stock's.
		byte[] body = utf8(json);
		for (Target target : List.of(fluxOf(Long.class), fluxOf(Double.class))) {
			for (int cut = 1; cut < body.length; cut++) {
				for (int size : new int[] { 1, 3, body.length }) {
					List<byte[]> chunks = new ArrayList<>(chunksOf(Arrays.copyOf(body, cut), size));
					chunks.add(Arrays.copyOfRange(body, cut, body.length));
					assertThat(decoding(target).bytes(chunks).likeStock().error())
						.as("%s cut at %d in chunks of %d", json, cut, size)
						.isInstanceOf(DecodingException.class);
				}
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "[true, false, true, nul, true]", "[true, false, true, }", "[true, false, true,, true]",
			"[true, false, true] x" })
	void errorInAStreamOfScalarsClosesItsParser(String json) {
		// Found by the parser reading a region, or by the splitter between regions.
		byte[] body = utf8(json);
		for (int size = 1; size < body.length; size++) {
			CountingRecyclerPool pool = new CountingRecyclerPool();
			Decoding decoding = decoding(fluxOf(Boolean.class)).mapper(mapperWith(pool)).bytes(chunksOf(body, size));
			assertThat(decoding.likeStock().error()).as("chunks of %d", size).isInstanceOf(DecodingException.class);
			pool.reset();
			decoding.fastpathOnly();
			assertThat(pool.acquired).as("chunks of %d", size).hasPositiveValue();
			assertThat(pool.released).as("parsers closed, chunks of %d", size).hasValue(pool.acquired.get());
		}
	}

	@Test
	void streamOfScalarsCancelledOrFailedUpstreamClosesItsParser() {
		// The fed parser is kept from chunk to chunk: a stream that ends otherwise than by
		// its end or its own error must still give the parser's buffers back to the pool.
		byte[] body = utf8("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]");
		List<byte[]> chunks = chunksOf(body, 4);
		CountingRecyclerPool pool = new CountingRecyclerPool();
		FastpathJsonDecoder decoder = new FastpathJsonDecoder(mapperWith(pool));
		Flux<DataBuffer> whole = Flux.fromIterable(chunks).map(this.heap::wrap);
		assertThat(decoder.decode(whole, ResolvableType.forClass(Long.class), JSON, null).take(2).collectList().block())
			.containsExactly(1L, 2L);
		assertThat(pool.acquired).as("parsers of the cancelled stream").hasPositiveValue();
		assertThat(pool.released).as("parsers closed on cancel").hasValue(pool.acquired.get());
		pool.reset();
		Flux<DataBuffer> failing = Flux.fromIterable(chunks.subList(0, 2))
			.map(this.heap::wrap)
			.concatWith(Flux.error(new IllegalStateException("connection lost")));
		assertThat(decoder.decode(failing, ResolvableType.forClass(Long.class), JSON, null)
			.onErrorResume((ex) -> Flux.empty())
			.collectList()
			.block()).containsExactly(1L, 2L);
		assertThat(pool.acquired).as("parsers of the stream failed upstream").hasPositiveValue();
		assertThat(pool.released).as("parsers closed on an upstream error").hasValue(pool.acquired.get());
		this.heap.assertNoLeaks();
	}

	private static JsonMapper mapperWith(CountingRecyclerPool pool) {
		return JsonMapper.builder(JsonFactory.builder().recyclerPool(pool).build()).build();
	}

	/** Counts the buffer recyclers that parsers take and give back: one each per parser. */
	@SuppressWarnings("serial")
	private static final class CountingRecyclerPool implements RecyclerPool<BufferRecycler> {

		final AtomicInteger acquired = new AtomicInteger();

		final AtomicInteger released = new AtomicInteger();

		@Override
		public BufferRecycler acquirePooled() {
			this.acquired.incrementAndGet();
			return new BufferRecycler();
		}

		@Override
		public void releasePooled(BufferRecycler recycler) {
			this.released.incrementAndGet();
		}

		void reset() {
			this.acquired.set(0);
			this.released.set(0);
		}

	}

	@Test
	void controlByteWhereAValueStartsFailsBeforeAnythingIsReadLikeStock() {
		// After '[', a 0 byte would make Jackson read the bytes as UTF-16.
		byte[] body = concat(bytes(0x5B, 0x00, 0x31, 0x00, 0x2C, 0x00, 0x22, 0x00, 0x41, 0x5C, 0x22, 0x00, 0x2C, 0x00,
				0x7B, 0x00), utf8("        \"]"));
		for (JsonMapper mapper : List.of(JsonMapper.builder().build(),
				JsonMapper.builder().enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS).build())) {
			for (List<byte[]> chunks : List.of(List.of(body), chunksOf(body, 24))) {
				DecoderOutcome outcome = decoding(fluxOf(String.class)).mapper(mapper).bytes(chunks).likeStock();
				assertThat(outcome.values()).isEmpty();
				assertThat(outcome.error()).isInstanceOf(DecodingException.class);
			}
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "[1,2", "[1,2,", "[1,2] {", "{\"a\":1" })
	void truncatedStreamFailsEvenUnderOnErrorContinueLikeStock(String json) {
		for (Decoder<Object> decoder : List.<Decoder<Object>>of(stockDecoder(), fastpathDecoder())) {
			Flux<Object> values = decoder
				.decode(input(this.heap, List.of(utf8(json))), ResolvableType.forClass(Long.class),
						MediaType.APPLICATION_JSON, null)
				.onErrorContinue((error, value) -> {
				});
			StepVerifier.create(values).thenConsumeWhile((value) -> true).expectError(DecodingException.class).verify();
		}
	}

	@Test
	void fluxFromMapperThatDecoratesItsInputIsReadLikeStock() {
		JsonMapper mapper = JsonMapper.builder(JsonFactory.builder().inputDecorator(new XToYDecorator()).build())
			.build();
		DecoderOutcome outcome = decoding(fluxOf(String.class)).mapper(mapper).body("[\"x\",\"xx\"]").likeStock();
		assertThat(outcome.values()).hasSize(2);
	}

	// Top-level shapes of a Flux

	@Test
	void fluxOfPojoFromOneObjectEmitsItLikeStock() {
		DecoderOutcome outcome = decoding(fluxOfPojo()).body(" {\"name\":\"a\",\"child\":{\"name\":\"b\"}} ")
			.likeStock();
		assertThat(outcome.values()).singleElement()
			.isInstanceOfSatisfying(TestPojo.class, (pojo) -> assertThat(pojo.getChild().getName()).isEqualTo("b"));
	}

	@Test
	void fluxOfPojoFromNewlineDelimitedJsonEmitsEachValueLikeStock() {
		DecoderOutcome outcome = decoding(fluxOfPojo()).mediaType(MediaType.APPLICATION_NDJSON)
			.body("{\"name\":\"a\"}\r\n\n{\"na", "me\":\"b\"}\n", "  {\"name\":\"c\"}")
			.likeStock();
		assertThat(outcome.values()).extracting((pojo) -> ((TestPojo) pojo).getName()).containsExactly("a", "b", "c");
	}

	@Test
	void fluxOfLongFromNewlineDelimitedJsonEmitsEachValueLikeStock() {
		DecoderOutcome outcome = decoding(fluxOf(Long.class)).mediaType(MediaType.APPLICATION_NDJSON)
			.body("1\n2", "2\r\n-3\n\nnull\n", "4")
			.likeStock();
		assertThat(outcome.values()).containsExactly(1L, 22L, -3L, 4L);
	}

	@Test
	void fluxOfScalarsAroundTopLevelArraysEmitsAllLikeStock() {
		DecoderOutcome outcome = decoding(fluxOf(Long.class)).body("1 [2,3] 4 [] [5]").likeStock();
		assertThat(outcome.values()).containsExactly(1L, 2L, 3L, 4L, 5L);
	}

	// Mono of a single Pojo

	@Test
	void singlePojoDecodesLikeStock() {
		String json = "{\"name\":\"a\",\"id\":-9223372036854775808,\"rank\":7,\"count\":null,\"score\":2.5E-3,"
				+ "\"ratio\":1.5,\"flag\":true,\"level\":\"HIGH\",\"tags\":[\"x\",null],\"values\":[1,2],"
				+ "\"attributes\":{\"k\":[1,{\"n\":null}]},\"child\":{\"name\":\"b\"}}";
		DecoderOutcome outcome = decoding(monoOfPojo()).bytes(chunksOf(utf8(json), 5)).likeStock();
		assertThat(outcome.values()).singleElement().isInstanceOfSatisfying(TestPojo.class, (pojo) -> {
			assertThat(pojo.getId()).isEqualTo(Long.MIN_VALUE);
			assertThat(pojo.getScore()).isEqualTo(0.0025);
			assertThat(pojo.getLevel()).isEqualTo(TestPojo.Level.HIGH);
			assertThat(pojo.getTags()).containsExactly("x", null);
			assertThat(pojo.getChild().getName()).isEqualTo("b");
		});
	}

	@Test
	void singlePojoFromEmptyOrNullBodyIsEmptyLikeStock() {
		assertThat(decoding(monoOfPojo()).chunks().likeStock().values()).isEmpty();
		assertThat(decoding(monoOfPojo()).body("null").likeStock().values()).isEmpty();
		assertThat(decoding(monoOfPojo()).body("{}").likeStock().values()).singleElement().isEqualTo(new TestPojo());
	}

	@Test
	void singlePojoFromArrayOrScalarFailsLikeStock() {
		for (String body : List.of("[]", "[{}]", "1", "\"a\"", "{} {}", "{}]", "{\"level\":\"NOPE\"}",
				"{\"child\":1}", "{\"tags\":{}}")) {
			assertThat(decoding(monoOfPojo()).body(body).likeStock().error()).as(body)
				.isInstanceOf(DecodingException.class);
		}
	}

	// Mapper configuration

	@Test
	void unknownPropertiesAreIgnoredByDefaultLikeStock() {
		String json = "[{\"name\":\"a\",\"unknown\":{\"deep\":[1,\"x\",{\"y\":null}]},\"other\":\"\\u00e9\"}]";
		assertThat(decoding(fluxOfPojo()).body(json).likeStock().values()).singleElement()
			.isInstanceOfSatisfying(TestPojo.class, (pojo) -> assertThat(pojo.getName()).isEqualTo("a"));
		assertThat(decoding(listOfPojo()).body(json).likeStock().values()).singleElement()
			.satisfies((list) -> assertThat(sizeOf(list)).isEqualTo(1));
	}

	@Test
	void unknownPropertiesFailWhenFailOnUnknownPropertiesIsEnabledLikeStock() {
		JsonMapper strict = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
		String json = "[{\"name\":\"a\"},{\"name\":\"b\",\"unknown\":1}]";
		for (Target target : List.of(fluxOfPojo(), listOfPojo(), monoOf(TestPojo[].class))) {
			DecoderOutcome outcome = decoding(target).mapper(strict).body(json).likeStock();
			assertThat(outcome.error()).as(target.name()).isInstanceOf(DecodingException.class)
				.hasMessageContaining("unknown");
		}
		assertThat(decoding(fluxOfPojo()).mapper(strict).body("[{\"name\":\"a\"}]").likeStock().values()).hasSize(1);
	}

	@Test
	void invalidUtf8InIgnoredPropertyFailsLikeStock() {
		byte[] body = concat(utf8("[{\"name\":\"a\",\"ignored\":\"x"), bytes(0xFF), utf8("y\"}]"));
		for (Target target : List.of(fluxOfPojo(), listOfPojo())) {
			assertThat(decoding(target).bytes(body).likeStock().error()).as(target.name())
				.isInstanceOf(DecodingException.class);
		}
	}

	@Test
	void jsonViewHintLimitsPropertiesLikeStock() {
		String json = "[{\"name\":\"a\",\"secret\":\"s\",\"note\":\"n\"}]";
		Map<String, Object> hints = Map.of(JacksonCodecSupport.JSON_VIEW_HINT, Views.Public.class);
		ResolvableType type = ResolvableType.forClass(ViewPojo.class);
		DecoderOutcome flux = decoding(Target.flux("ViewPojo", type, "{}", "1")).hints(hints).body(json).likeStock();
		assertThat(flux.values()).containsExactly(new ViewPojo("a", null, null));
		DecoderOutcome mono = decoding(Target.mono("List<ViewPojo>",
				ResolvableType.forClassWithGenerics(List.class, ViewPojo.class), "{}", "1"))
			.hints(hints)
			.body(json)
			.likeStock();
		assertThat(mono.values()).containsExactly(List.of(new ViewPojo("a", null, null)));
	}

	@Test
	void jsonViewHintOfSubViewIncludesParentViewPropertiesLikeStock() {
		Map<String, Object> hints = Map.of(JacksonCodecSupport.JSON_VIEW_HINT, Views.Internal.class);
		DecoderOutcome outcome = decoding(Target.flux("ViewPojo", ResolvableType.forClass(ViewPojo.class), "{}", "1"))
			.hints(hints)
			.body("[{\"name\":\"a\",\"secret\":\"s\",\"note\":\"n\"}]")
			.likeStock();
		assertThat(outcome.values()).containsExactly(new ViewPojo("a", "s", null));
	}

	@Test
	void withoutJsonViewHintAllPropertiesAreReadLikeStock() {
		DecoderOutcome outcome = decoding(Target.flux("ViewPojo", ResolvableType.forClass(ViewPojo.class), "{}", "1"))
			.body("[{\"name\":\"a\",\"secret\":\"s\",\"note\":\"n\"}]")
			.likeStock();
		assertThat(outcome.values()).containsExactly(new ViewPojo("a", "s", "n"));
	}

	@Test
	void customDeserializerInPojoIsUsedLikeStock() {
		JsonMapper mapper = JsonMapper.builder()
			.addModule(new SimpleModule().addDeserializer(Money.class, new MoneyDeserializer()))
			.build();
		String json = "[{\"id\":\"o1\",\"total\":\"12.50 EUR\"},{\"id\":\"o2\",\"total\":\"0.99 USD\"}]";
		List<Order> expected = List.of(new Order("o1", new Money(1250, "EUR")), new Order("o2", new Money(99, "USD")));
		DecoderOutcome flux = decoding(Target.flux("Order", ResolvableType.forClass(Order.class), "{}", "1"))
			.mapper(mapper)
			.body(json)
			.likeStock();
		assertThat(flux.values()).isEqualTo(expected);
		DecoderOutcome mono = decoding(Target.mono("List<Order>",
				ResolvableType.forClassWithGenerics(List.class, Order.class), "{}", "1"))
			.mapper(mapper)
			.body(json)
			.likeStock();
		assertThat(mono.values()).containsExactly(expected);
	}

	@Test
	void customDeserializersForScalarsAreUsedLikeStock() {
		JsonMapper mapper = JsonMapper.builder()
			.addModule(new SimpleModule().addDeserializer(Long.class, new NegatingLongDeserializer())
				.addDeserializer(String.class, new UpperCaseStringDeserializer()))
			.build();
		assertThat(decoding(fluxOf(Long.class)).mapper(mapper).body("[1,2]").likeStock().values())
			.containsExactly(-1L, -2L);
		assertThat(decoding(Target.mono("List<Long>", list(Long.class), "1", "x")).mapper(mapper)
			.body("[1,2]")
			.likeStock()
			.values()).containsExactly(List.of(-1L, -2L));
		assertThat(decoding(fluxOf(String.class)).mapper(mapper).body("[\"a\",\"b\"]").likeStock().values())
			.containsExactly("A", "B");
		// Stock reads long[] without the Long deserializer: whatever it does, so must Fastpath
		decoding(monoOf(long[].class)).mapper(mapper).body("[1,2]").likeStock();
	}

	@Test
	void customDeserializerForPrimitiveArrayIsUsedLikeStock() {
		JsonMapper mapper = JsonMapper.builder()
			.addModule(new SimpleModule().addDeserializer(long[].class, new ReversedLongArrayDeserializer()))
			.build();
		DecoderOutcome outcome = decoding(monoOf(long[].class)).mapper(mapper).body("[1,2,3]").likeStock();
		assertThat(outcome.values()).singleElement().isEqualTo(new long[] { 3, 2, 1 });
	}

	@Test
	void bigDecimalForFloatsIsHonouredLikeStock() {
		JsonMapper mapper = JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
		DecoderOutcome outcome = decoding(fluxOf(MAP)).mapper(mapper).body("[{\"a\":1.10,\"b\":1E+2}]").likeStock();
		assertThat(outcome.values()).singleElement()
			.isEqualTo(Map.of("a", new BigDecimal("1.10"), "b", new BigDecimal("1E+2")));
	}

	// Limits

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void monoBodyOverLimitFailsWithDataBufferLimitExceptionLikeStock(String buffers) {
		byte[] body = utf8("[" + "1,".repeat(50) + "1]");
		DecoderOutcome over = decoding(monoOf(long[].class)).on(buffers).limit(body.length - 1)
			.bytes(chunksOf(body, 16))
			.likeStock();
		assertThat(over.error()).isInstanceOf(DataBufferLimitException.class);
		DecoderOutcome at = decoding(monoOf(long[].class)).on(buffers).limit(body.length)
			.bytes(chunksOf(body, 16))
			.likeStock();
		assertThat(at.values()).singleElement().satisfies((array) -> assertThat(sizeOf(array)).isEqualTo(51));
		DecoderOutcome pojos = decoding(listOfPojo()).on(buffers).limit(64)
			.bytes(chunksOf(utf8("[" + "{\"name\":\"abc\"},".repeat(20) + "{}]"), 10))
			.likeStock();
		assertThat(pojos.error()).isInstanceOf(DataBufferLimitException.class);
	}

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void fluxElementOverLimitFailsWithDataBufferLimitExceptionLikeStock(String buffers) {
		String small = "{\"name\":\"a\"}";
		String big = "{\"name\":\"" + "x".repeat(1000) + "\"}";
		byte[] body = utf8("[" + small + "," + small + "," + big + "," + small + "]");
		DecoderOutcome outcome = decoding(fluxOfPojo()).on(buffers).limit(100).bytes(chunksOf(body, 32)).likeStock();
		assertThat(outcome.error()).isInstanceOf(DataBufferLimitException.class);
		assertThat(outcome.values()).hasSize(2);
	}

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void fluxElementsUnderLimitDecodeWhateverTheBodySizeLikeStock(String buffers) {
		byte[] body = utf8("[" + "{\"name\":\"abc\"},".repeat(200) + "{}]");
		DecoderOutcome outcome = decoding(fluxOfPojo()).on(buffers).limit(64).bytes(chunksOf(body, 16)).likeStock();
		assertThat(outcome.error()).isNull();
		assertThat(outcome.values()).hasSize(201);
	}

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void fluxLimitCountsTheBuffersThatCompleteNoElementLikeStock(String buffers) {
		byte[] body = utf8("[{\"name\":\"a\"},{\"name\":\"" + "x".repeat(100) + "\"}]");
		String text = new String(body, StandardCharsets.UTF_8);
		// 10-byte buffers: those between the ones that complete the two elements complete none
		int incomplete = (text.lastIndexOf('}') / 10 - text.indexOf('}') / 10 - 1) * 10;
		DecoderOutcome at = decoding(fluxOfPojo()).on(buffers).limit(incomplete).bytes(chunksOf(body, 10))
			.likeStock();
		assertThat(at.values()).hasSize(2);
		DecoderOutcome over = decoding(fluxOfPojo()).on(buffers).limit(incomplete - 1).bytes(chunksOf(body, 10))
			.likeStock();
		assertThat(over.error()).isInstanceOf(DataBufferLimitException.class);
	}

	@Test
	void fluxElementOverLimitInOneBufferIsNotLimitedLikeStock() {
		// Stock only counts the bytes of buffers in which no element completes
		String big = "{\"name\":\"" + "x".repeat(1000) + "\"}";
		DecoderOutcome outcome = decoding(fluxOfPojo()).limit(100).body("[" + big + "]").likeStock();
		assertThat(outcome.values()).hasSize(1);
	}

	@Test
	void unlimitedMaxInMemorySizeDecodesLargeBodiesLikeStock() {
		byte[] body = utf8("[" + "{\"name\":\"abcdefgh\"},".repeat(20_000) + "{}]");
		DecoderOutcome mono = decoding(listOfPojo()).limit(-1).bytes(chunksOf(body, 8192)).likeStock();
		assertThat(mono.values()).singleElement().satisfies((list) -> assertThat(sizeOf(list)).isEqualTo(20_001));
		DecoderOutcome overDefault = decoding(listOfPojo()).bytes(chunksOf(body, 8192)).likeStock();
		assertThat(overDefault.error()).isInstanceOf(DataBufferLimitException.class);
	}

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void bodyAlreadyInOneMonoIsNotLimitedLikeStock(String buffers) {
		// As from an aggregating reader: stock's join passes a Mono through, limit or not
		byte[] body = utf8("[{\"name\":\"a\"},{\"name\":\"b\"}]");
		JacksonJsonDecoder stock = stockDecoder();
		FastpathJsonDecoder fastpath = fastpathDecoder();
		stock.setMaxInMemorySize(10);
		fastpath.setMaxInMemorySize(10);
		DecoderOutcome expected = DecoderOutcome.of(() -> stock
			.decodeToMono(Mono.fromSupplier(() -> handOut(factory(buffers), body)), POJO_LIST, JSON, null));
		DecoderOutcome actual = DecoderOutcome.of(() -> fastpath
			.decodeToMono(Mono.fromSupplier(() -> handOut(factory(buffers), body)), POJO_LIST, JSON, null));
		assertThat(expected.differenceFrom(actual)).isNull();
		assertThat(actual.values()).containsExactly(List.of(pojo("a"), pojo("b")));
	}

	static Stream<String> buffers() {
		return Stream.of("heap", "netty");
	}

	// Cancellation, errors and buffers

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void cancellingMidArrayReleasesEveryBuffer(String buffers) {
		byte[] body = utf8("[" + "{\"name\":\"abc\"},".repeat(100) + "{}]");
		for (Decoder<Object> decoder : List.of(stockDecoder(), fastpathDecoder())) {
			Flux<Object> elements = decoder.decode(input(factory(buffers), chunksOf(body, 40)), POJO, JSON, null);
			StepVerifier.create(elements, 1).expectNextCount(1).thenCancel().verify();
			Flux<Object> wholeFirstChunk = decoder.decode(input(factory(buffers), chunksOf(body, 1000)), POJO, JSON,
					null);
			StepVerifier.create(wholeFirstChunk, 1).expectNextCount(1).thenCancel().verify();
		}
	}

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void cancellingMonoMidBodyReleasesEveryBuffer(String buffers) {
		for (Decoder<Object> decoder : List.of(stockDecoder(), fastpathDecoder())) {
			TestPublisher<DataBuffer> publisher = TestPublisher.create();
			Mono<Object> value = decoder.decodeToMono(publisher, POJO_LIST, JSON, null);
			StepVerifier.create(value)
				.then(() -> publisher.next(handOut(factory(buffers), utf8("[{\"name\":"))))
				.then(() -> publisher.next(handOut(factory(buffers), utf8("\"a\"}"))))
				.thenCancel()
				.verify();
		}
	}

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void upstreamErrorIsPropagatedLikeStock(String buffers) {
		for (Target target : List.of(fluxOfPojo(), listOfPojo())) {
			DecoderOutcome outcome = decoding(target).on(buffers)
				.body("[{\"name\":\"a\"},", "{\"name\":")
				.thenError(new IllegalStateException("connection reset"))
				.likeStock();
			assertThat(outcome.error()).as(target.name())
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("connection reset");
		}
	}

	@ParameterizedTest(name = "on {0}")
	@MethodSource("buffers")
	void decodingOneBufferReleasesItLikeStock(String buffers) {
		LeakTrackingDataBufferFactory factory = factory(buffers);
		byte[] body = utf8("[{\"name\":\"a\"}]");
		Object stockValue = stockDecoder().decode(handOut(factory.forStock(), body), POJO_LIST, JSON, null);
		Object fastpathValue = fastpathDecoder().decode(handOut(factory, body), POJO_LIST, JSON, null);
		assertThat(DecoderOutcome.difference(stockValue, fastpathValue, "value")).isNull();
		assertThat(fastpathValue).isEqualTo(List.of(pojo("a")));
		byte[] malformed = utf8("[{\"name\":\"a\"},]");
		DecoderOutcome stock = DecoderOutcome
			.ofBlocking(() -> stockDecoder().decode(handOut(factory.forStock(), malformed), POJO_LIST, JSON, null));
		DecoderOutcome fastpath = DecoderOutcome
			.ofBlocking(() -> fastpathDecoder().decode(handOut(factory, malformed), POJO_LIST, JSON, null));
		assertThat(stock.differenceFrom(fastpath)).isNull();
		assertThat(fastpath.error()).isInstanceOf(DecodingException.class);
	}

	// Charsets

	@Test
	void utf16CharsetInMimeTypeDecodesLikeStock() {
		MediaType utf16 = new MediaType("application", "json", StandardCharsets.UTF_16);
		String json = "[{\"name\":\"é€😀\"},{\"name\":\"b\"}]";
		byte[] body = json.getBytes(StandardCharsets.UTF_16);
		List<TestPojo> expected = List.of(pojo("é€😀"), pojo("b"));
		assertThat(decoding(fluxOfPojo()).mediaType(utf16).bytes(chunksOf(body, 7)).likeStock().values())
			.isEqualTo(expected);
		assertThat(decoding(listOfPojo()).mediaType(utf16).bytes(chunksOf(body, 7)).likeStock().values())
			.containsExactly(expected);
		assertThat(decoding(fluxOf(String.class)).mediaType(utf16)
			.bytes(chunksOf("[\"é\",\"😀\"]".getBytes(StandardCharsets.UTF_16), 3))
			.likeStock()
			.values()).containsExactly("é", "😀");
	}

	@Test
	void otherCharsetsInMimeTypeBehaveLikeStock() {
		for (Charset charset : List.of(StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE,
				StandardCharsets.ISO_8859_1, StandardCharsets.US_ASCII, StandardCharsets.UTF_8)) {
			MediaType mediaType = new MediaType("application", "json", charset);
			byte[] body = "[{\"name\":\"caf\u00e9\"}]".getBytes(charset);
			decoding(fluxOfPojo()).mediaType(mediaType).bytes(chunksOf(body, 5)).likeStock();
			decoding(listOfPojo()).mediaType(mediaType).bytes(chunksOf(body, 5)).likeStock();
		}
	}

	// Construction

	@Test
	void constructorTakesTheStockMimeTypes() {
		JsonMapper mapper = JsonMapper.builder().build();
		JacksonJsonDecoder stock = new JacksonJsonDecoder(mapper);
		FastpathJsonDecoder fastpath = new FastpathJsonDecoder(mapper);
		assertThat(fastpath.getDecodableMimeTypes()).isEqualTo(stock.getDecodableMimeTypes());
		assertThat(fastpath.getMaxInMemorySize()).isEqualTo(stock.getMaxInMemorySize());
		for (ResolvableType type : List.of(POJO, POJO_LIST, ResolvableType.forClass(String.class),
				ResolvableType.forClass(long[].class))) {
			for (MimeType mimeType : List.of(JSON, MediaType.APPLICATION_NDJSON, MediaType.TEXT_PLAIN,
					MediaType.parseMediaType("application/vnd.api+json"))) {
				assertThat(fastpath.canDecode(type, mimeType)).as(type + " as " + mimeType)
					.isEqualTo(stock.canDecode(type, mimeType));
			}
		}
		assertThat(fastpath.canDecode(POJO, JSON)).isTrue();
		assertThat(fastpath.canDecode(POJO, MediaType.TEXT_PLAIN)).isFalse();
	}

	@Test
	void fromStockDecoderKeepsItsMapperMimeTypesAndLimit() {
		JsonMapper strict = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
		MimeType custom = MimeType.valueOf("application/vnd.custom+json");
		JacksonJsonDecoder stock = new JacksonJsonDecoder(strict, custom);
		stock.setMaxInMemorySize(1234);
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(stock);
		assertThat(fastpath.getMaxInMemorySize()).isEqualTo(1234);
		assertThat(fastpath.getDecodableMimeTypes()).containsExactly(custom);
		assertThat(fastpath.canDecode(POJO, custom)).isTrue();
		assertThat(fastpath.canDecode(POJO, JSON)).isFalse();
		Flux<Object> values = fastpath.decode(input(this.heap, List.of(utf8("[{\"unknown\":1}]"))), POJO, custom,
				null);
		StepVerifier.create(values).expectError(DecodingException.class).verify();
		byte[] overLimit = utf8("[" + "1,".repeat(1000) + "1]");
		Mono<Object> array = fastpath.decodeToMono(input(this.heap, List.of(overLimit)),
				ResolvableType.forClass(long[].class), custom, null);
		StepVerifier.create(array).expectError(DataBufferLimitException.class).verify();
	}

	// Helpers

	private void assertEachFailsLikeStock(Target target, String buffers, String... templates) {
		for (String template : templates) {
			String body = template.replace("E", target.element()).replace("W", target.wrongElement());
			for (List<byte[]> chunks : List.of(List.of(utf8(body)), bytesOneByOne(utf8(body)))) {
				DecoderOutcome outcome = decoding(target).on(buffers).bytes(chunks).likeStock();
				assertThat(outcome.error()).as("%s in %d chunk(s)", body, chunks.size())
					.isInstanceOf(DecodingException.class);
			}
		}
	}

	private Decoding decoding(Target target) {
		return new Decoding(target);
	}

	private LeakTrackingDataBufferFactory factory(String buffers) {
		return buffers.equals("netty") ? NETTY : this.heap;
	}

	private static JacksonJsonDecoder stockDecoder() {
		return new JacksonJsonDecoder(JsonMapper.builder().build());
	}

	private static FastpathJsonDecoder fastpathDecoder() {
		return new FastpathJsonDecoder(JsonMapper.builder().build());
	}

	/** A Flux that makes each buffer of the factory when it is requested, and records it. */
	private Flux<DataBuffer> input(LeakTrackingDataBufferFactory factory, List<byte[]> chunks) {
		return Flux.fromIterable(chunks).map((chunk) -> handOut(factory, chunk));
	}

	private DataBuffer handOut(LeakTrackingDataBufferFactory factory, byte[] bytes) {
		DataBuffer buffer = factory.bufferOf(bytes);
		this.handedOut.add(buffer);
		return buffer;
	}

	private static Target listOfPojo() {
		return Target.mono("List<Pojo>", POJO_LIST, "{}", "1");
	}

	private static Target monoOfPojo() {
		return new Target("Mono<Pojo>", POJO, false, "{}", "1");
	}

	private static Target fluxOfPojo() {
		return Target.flux("Pojo", POJO, "{}", "1");
	}

	private static Target monoOf(Class<?> type) {
		return Target.mono(type.getSimpleName(), ResolvableType.forClass(type), "1", "\"x\"");
	}

	private static Target fluxOf(Class<?> type) {
		return fluxOf(ResolvableType.forClass(type));
	}

	private static Target fluxOf(ResolvableType type) {
		return Target.flux(type.toString(), type, "1", "\"x\"");
	}

	private static ResolvableType list(Class<?> element) {
		return ResolvableType.forClassWithGenerics(List.class, element);
	}

	private static TestPojo pojo(String name) {
		TestPojo pojo = new TestPojo();
		pojo.setName(name);
		return pojo;
	}

	private static int sizeOf(Object value) {
		if (value instanceof Collection<?> collection) {
			return collection.size();
		}
		return Array.getLength(value);
	}

	private static double[] doublesOf(DecoderOutcome outcome) {
		Object value = outcome.values().get(0);
		if (value instanceof double[] doubles) {
			return doubles;
		}
		List<?> values = (value instanceof List<?> list && outcome.values().size() == 1) ? list : outcome.values();
		return values.stream().mapToDouble((number) -> (Double) number).toArray();
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] bytes(int... values) {
		byte[] bytes = new byte[values.length];
		for (int i = 0; i < values.length; i++) {
			bytes[i] = (byte) values[i];
		}
		return bytes;
	}

	private static byte[] concat(byte[]... parts) {
		int length = Arrays.stream(parts).mapToInt((part) -> part.length).sum();
		byte[] result = new byte[length];
		int at = 0;
		for (byte[] part : parts) {
			System.arraycopy(part, 0, result, at, part.length);
			at += part.length;
		}
		return result;
	}

	private static int indexOf(byte[] bytes, byte wanted) {
		for (int i = 0; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		throw new IllegalArgumentException("not found");
	}

	private static List<byte[]> chunksOf(byte[] body, int size) {
		List<byte[]> chunks = new ArrayList<>();
		for (int from = 0; from < body.length; from += size) {
			chunks.add(Arrays.copyOfRange(body, from, Math.min(body.length, from + size)));
		}
		return chunks;
	}

	private static List<byte[]> bytesOneByOne(byte[] body) {
		return chunksOf(body, 1);
	}

	/** A target type, read whole ({@code decodeToMono}) or as elements ({@code decode}). */
	record Target(String name, ResolvableType type, boolean flux, String element, String wrongElement) {

		static Target mono(String name, ResolvableType type, String element, String wrongElement) {
			return new Target("Mono<" + name + ">", type, false, element, wrongElement);
		}

		static Target flux(String name, ResolvableType type, String element, String wrongElement) {
			return new Target("Flux<" + name + ">", type, true, element, wrongElement);
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	/** One decoding of the same input by stock and by Fastpath. */
	private final class Decoding {

		private final Target target;

		private List<byte[]> chunks = List.of();

		private @Nullable Throwable error;

		private LeakTrackingDataBufferFactory factory = FastpathJsonDecoderTests.this.heap;

		private MediaType mediaType = JSON;

		private @Nullable Map<String, Object> hints;

		private JsonMapper mapper = JsonMapper.builder().build();

		private @Nullable Integer limit;

		/** The request's Content-Length, given to each decoder through its server hints. */
		private @Nullable Long contentLength;

		Decoding(Target target) {
			this.target = target;
		}

		Decoding on(String buffers) {
			this.factory = factory(buffers);
			return this;
		}

		Decoding body(String... chunks) {
			return bytes(Arrays.stream(chunks).map(FastpathJsonDecoderTests::utf8).toList());
		}

		Decoding chunks() {
			return bytes(List.of());
		}

		Decoding bytes(byte[]... chunks) {
			return bytes(List.of(chunks));
		}

		Decoding bytes(List<byte[]> chunks) {
			this.chunks = chunks;
			return this;
		}

		Decoding thenError(Throwable error) {
			this.error = error;
			return this;
		}

		Decoding mediaType(MediaType mediaType) {
			this.mediaType = mediaType;
			return this;
		}

		Decoding hints(Map<String, Object> hints) {
			this.hints = hints;
			return this;
		}

		Decoding mapper(JsonMapper mapper) {
			this.mapper = mapper;
			return this;
		}

		Decoding limit(int limit) {
			this.limit = limit;
			return this;
		}

		/** Decode as a request body announced with the given length (the body's own, as a rule). */
		Decoding contentLength(long contentLength) {
			this.contentLength = contentLength;
			return this;
		}

		/** Decode as a request body announced with its length. */
		Decoding withContentLength() {
			return contentLength(this.chunks.stream().mapToLong((chunk) -> chunk.length).sum());
		}

		/** Decode with both, assert that they agree, and return Fastpath's outcome. */
		DecoderOutcome likeStock() {
			JacksonJsonDecoder stock = new JacksonJsonDecoder(this.mapper);
			FastpathJsonDecoder fastpath = new FastpathJsonDecoder(this.mapper);
			if (this.limit != null) {
				stock.setMaxInMemorySize(this.limit);
				fastpath.setMaxInMemorySize(this.limit);
			}
			DecoderOutcome expected = decode(stock);
			DecoderOutcome actual = decode(fastpath);
			assertThat(expected.differenceFrom(actual))
				.as("%s of %s\n  stock:    %s\n  fastpath: %s", this.target, describeInput(), expected, actual)
				.isNull();
			return actual;
		}

		/** Decode with Fastpath only, where stock is known to go wrong. */
		DecoderOutcome fastpathOnly() {
			return decode(new FastpathJsonDecoder(this.mapper));
		}

		private DecoderOutcome decode(Decoder<Object> decoder) {
			Flux<DataBuffer> input = input((decoder instanceof FastpathJsonDecoder) ? this.factory
					: this.factory.forStock(), this.chunks);
			if (this.error != null) {
				input = input.concatWith(Flux.error(this.error));
			}
			Flux<DataBuffer> body = input;
			ResolvableType type = this.target.type();
			Map<String, Object> hints = hintsFor((HttpMessageDecoder<Object>) decoder, type);
			return DecoderOutcome.of(() -> this.target.flux() ? decoder.decode(body, type, this.mediaType, hints)
					: decoder.decodeToMono(body, type, this.mediaType, hints));
		}

		/** The hints, with the decoder's server hints for a request of the content length, if any. */
		private @Nullable Map<String, Object> hintsFor(HttpMessageDecoder<Object> decoder, ResolvableType type) {
			if (this.contentLength == null) {
				return this.hints;
			}
			MockServerHttpRequest request = MockServerHttpRequest.post("/")
				.contentLength(this.contentLength)
				.build();
			return Hints.merge((this.hints != null) ? this.hints : Hints.none(),
					decoder.getDecodeHints(type, type, request, new MockServerHttpResponse()));
		}

		private String describeInput() {
			List<String> parts = new ArrayList<>();
			for (byte[] chunk : this.chunks) {
				parts.add(RandomJson.printable(chunk));
			}
			return DecoderOutcome.abbreviate(parts.size() + " chunk(s) " + parts, 600);
		}

	}

	/** Turns every {@code x} of the input into {@code y}, where Jackson decorates input. */
	static final class XToYDecorator extends InputDecorator {

		@Override
		public InputStream decorate(IOContext context, InputStream in) {
			return new FilterInputStream(in) {

				@Override
				public int read() throws IOException {
					int b = super.read();
					return (b == 'x') ? 'y' : b;
				}

				@Override
				public int read(byte[] bytes, int offset, int length) throws IOException {
					int read = super.read(bytes, offset, length);
					for (int i = offset; i < offset + read; i++) {
						bytes[i] = (bytes[i] == 'x') ? (byte) 'y' : bytes[i];
					}
					return read;
				}

			};
		}

		@Override
		public InputStream decorate(IOContext context, byte[] src, int offset, int length) {
			return decorate(context, new ByteArrayInputStream(src, offset, length));
		}

		@Override
		public Reader decorate(IOContext context, Reader reader) {
			return reader;
		}

	}

	// Types for views and custom deserializers

	static final class Views {

		interface Public {

		}

		interface Internal extends Public {

		}

	}

	static final class ViewPojo {

		@JsonView(Views.Public.class)
		private @Nullable String name;

		@JsonView(Views.Internal.class)
		private @Nullable String secret;

		private @Nullable String note;

		ViewPojo() {
		}

		ViewPojo(@Nullable String name, @Nullable String secret, @Nullable String note) {
			this.name = name;
			this.secret = secret;
			this.note = note;
		}

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public @Nullable String getSecret() {
			return this.secret;
		}

		public void setSecret(@Nullable String secret) {
			this.secret = secret;
		}

		public @Nullable String getNote() {
			return this.note;
		}

		public void setNote(@Nullable String note) {
			this.note = note;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return other instanceof ViewPojo that && Objects.equals(this.name, that.name)
					&& Objects.equals(this.secret, that.secret) && Objects.equals(this.note, that.note);
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.name, this.secret, this.note);
		}

		@Override
		public String toString() {
			return "ViewPojo{name=" + this.name + ", secret=" + this.secret + ", note=" + this.note + "}";
		}

	}

	/** A value type read from a string such as {@code "12.50 EUR"} by a custom deserializer. */
	record Money(long cents, String currency) {
	}

	static final class Order {

		private @Nullable String id;

		private @Nullable Money total;

		Order() {
		}

		Order(String id, Money total) {
			this.id = id;
			this.total = total;
		}

		public @Nullable String getId() {
			return this.id;
		}

		public void setId(@Nullable String id) {
			this.id = id;
		}

		public @Nullable Money getTotal() {
			return this.total;
		}

		public void setTotal(@Nullable Money total) {
			this.total = total;
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return other instanceof Order that && Objects.equals(this.id, that.id)
					&& Objects.equals(this.total, that.total);
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.id, this.total);
		}

		@Override
		public String toString() {
			return "Order{id=" + this.id + ", total=" + this.total + "}";
		}

	}

	static final class MoneyDeserializer extends ValueDeserializer<Money> {

		@Override
		public Money deserialize(JsonParser parser, DeserializationContext context) {
			String[] parts = parser.getValueAsString().split(" ");
			return new Money(new BigDecimal(parts[0]).movePointRight(2).longValueExact(), parts[1]);
		}

	}

	/** Reads money as {@link MoneyDeserializer} does, counting its calls. */
	static final class CountingDeserializer extends ValueDeserializer<Money> {

		private final AtomicInteger calls;

		CountingDeserializer(AtomicInteger calls) {
			this.calls = calls;
		}

		@Override
		public Money deserialize(JsonParser parser, DeserializationContext context) {
			this.calls.incrementAndGet();
			return new MoneyDeserializer().deserialize(parser, context);
		}

	}

	static final class NegatingLongDeserializer extends ValueDeserializer<Long> {

		@Override
		public Long deserialize(JsonParser parser, DeserializationContext context) {
			return -parser.getLongValue();
		}

	}

	static final class UpperCaseStringDeserializer extends ValueDeserializer<String> {

		@Override
		public String deserialize(JsonParser parser, DeserializationContext context) {
			return parser.getString().toUpperCase(Locale.ROOT);
		}

	}

	static final class ReversedLongArrayDeserializer extends ValueDeserializer<long[]> {

		@Override
		public long[] deserialize(JsonParser parser, DeserializationContext context) {
			List<Long> values = new ArrayList<>();
			while (parser.nextToken() != JsonToken.END_ARRAY) {
				values.add(parser.getLongValue());
			}
			Collections.reverse(values);
			return values.stream().mapToLong(Long::longValue).toArray();
		}

	}

}
