package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code StreamReadConstraints} of the application's mapper (nesting depth, number
 * length, string length) hold on every Fastpath path: a body past a limit fails with a
 * {@code DecodingException}, in one buffer and a byte at a time, as it does on stock's
 * paths, except that stock's {@code Flux} path lets a string past the length limit through
 * (its token buffer copies the text without the check); a body within the limits decodes
 * alike. The limits on the whole document (length, token count) hold on a {@code Flux}
 * across chunks, as on stock's one parser.
 */
class FastpathJsonDecoderConstraintsTests {

	private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
		.streamReadConstraints(
				StreamReadConstraints.builder().maxNestingDepth(6).maxNumberLength(12).maxStringLength(24).build())
		.build()).build();

	private static final ResolvableType MAP = ResolvableType.forClassWithGenerics(Map.class, String.class,
			Object.class);

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	@AfterEach
	void noLeaks() {
		this.factory.assertNoLeaks();
	}

	static Stream<Arguments> pastTheLimits() {
		String deepMaps = "[{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":1}}}}}}}]";
		String deepArrays = "[[[[[[[[1]]]]]]]]";
		String longNumber = "[1,12345678901234567]";
		String longDecimal = "[1.5,1.2345678901234567]";
		String longString = "[\"a\",\"abcdefghijklmnopqrstuvwxyz0123456789\"]";
		String pojoLongString = "[{\"name\":\"abcdefghijklmnopqrstuvwxyz0123456789\"}]";
		return Stream.of(mono("List<Map>", list(MAP), deepMaps), mono("List<Object>", list(Object.class), deepArrays),
				flux("Flux<Map>", MAP, deepMaps), mono("long[]", ResolvableType.forClass(long[].class), longNumber),
				mono("List<Long>", list(Long.class), longNumber), flux("Flux<Long>", forClass(Long.class), longNumber),
				mono("double[]", ResolvableType.forClass(double[].class), longDecimal),
				mono("List<Double>", list(Double.class), longDecimal),
				flux("Flux<Double>", forClass(Double.class), longDecimal),
				mono("List<String>", list(String.class), longString),
				mono("String[]", ResolvableType.forClass(String[].class), longString),
				flux("Flux<String>", forClass(String.class), longString),
				mono("List<Pojo>", list(TestPojo.class), pojoLongString),
				flux("Flux<Pojo>", forClass(TestPojo.class), pojoLongString),
				Arguments.of("Flux<String> as NDJSON", forClass(String.class), true,
						"\"a\"\n\"abcdefghijklmnopqrstuvwxyz0123456789\"\n", MediaType.APPLICATION_NDJSON));
	}

	private static Arguments mono(String name, ResolvableType type, String body) {
		return Arguments.of(name, type, false, body, MediaType.APPLICATION_JSON);
	}

	private static Arguments flux(String name, ResolvableType type, String body) {
		return Arguments.of(name, type, true, body, MediaType.APPLICATION_JSON);
	}

	private static ResolvableType list(Class<?> element) {
		return ResolvableType.forClassWithGenerics(List.class, element);
	}

	private static ResolvableType list(ResolvableType element) {
		return ResolvableType.forClassWithGenerics(List.class, element);
	}

	private static ResolvableType forClass(Class<?> type) {
		return ResolvableType.forClass(type);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("pastTheLimits")
	void bodyPastALimitOfTheMapperFailsAsOnStock(String name, ResolvableType type, boolean flux, String body,
			MediaType mediaType) {
		JacksonJsonDecoder stock = new JacksonJsonDecoder(MAPPER);
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(new JacksonJsonDecoder(MAPPER));
		for (boolean byteByByte : new boolean[] { false, true }) {
			DecoderOutcome expected = decode(stock, type, flux, body, mediaType, byteByByte);
			DecoderOutcome actual = decode(fastpath, type, flux, body, mediaType, byteByByte);
			assertThat(actual.error()).as("Fastpath, byte by byte: " + byteByByte)
				.isInstanceOf(DecodingException.class);
			if (!(flux && body.contains("abcdefghijklmnopqrstuvwxyz"))) {
				assertThat(expected.error()).as("stock, byte by byte: " + byteByByte)
					.isInstanceOf(DecodingException.class);
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("pastTheLimits")
	void bodyWithinTheLimitsDecodesAsOnStock(String name, ResolvableType type, boolean flux, String body,
			MediaType mediaType) {
		JsonMapper relaxed = JsonMapper.builder().build();
		JacksonJsonDecoder stock = new JacksonJsonDecoder(relaxed);
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(new JacksonJsonDecoder(relaxed));
		DecoderOutcome expected = decode(stock, type, flux, body, mediaType, false);
		DecoderOutcome actual = decode(fastpath, type, flux, body, mediaType, false);
		assertThat(expected.failed()).isFalse();
		assertThat(expected.differenceFrom(actual)).isNull();
	}

	static Stream<Arguments> streams() {
		StringBuilder longs = new StringBuilder("[");
		StringBuilder maps = new StringBuilder("[");
		StringBuilder ndjson = new StringBuilder();
		for (int i = 0; i < 40; i++) {
			longs.append(i == 0 ? "" : ",").append(1000 + i);
			maps.append(i == 0 ? "" : ",").append("{\"a\":").append(i).append(",\"b\":[true]}");
			ndjson.append("{\"a\":").append(i).append("}\n");
		}
		longs.append(']');
		maps.append(']');
		return Stream.of(Arguments.of("Flux<Long>", forClass(Long.class), longs.toString(), MediaType.APPLICATION_JSON),
				Arguments.of("Flux<Map>", MAP, maps.toString(), MediaType.APPLICATION_JSON),
				Arguments.of("Flux<Map> as NDJSON", MAP, ndjson.toString(), MediaType.APPLICATION_NDJSON));
	}

	/**
	 * Stock's {@code Flux} path reads the stream with one non-blocking parser, which
	 * checks the document length on the bytes it was fed before, whenever a chunk
	 * arrives: Fastpath, whose parsers each see a region, must count across chunks, and
	 * fail where stock fails (after the same values), for every limit around the length.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("streams")
	void documentLengthLimitAppliesToTheWholeStreamAsOnStock(String name, ResolvableType type, String body,
			MediaType mediaType) {
		int length = body.getBytes(StandardCharsets.UTF_8).length;
		int failures = 0;
		for (int limit = length / 3; limit <= length + 1; limit += Math.max(1, length / 40)) {
			JsonMapper mapper = mapper(StreamReadConstraints.builder().maxDocumentLength(limit).build());
			failures += assertStreamDecodesLikeStock(mapper, type, body, mediaType, "maxDocumentLength=" + limit);
		}
		assertThat(failures).as("cases past the limit").isPositive();
	}

	/**
	 * Stock's {@code Flux} path counts every token of the stream with one parser: Fastpath
	 * must count across its parsers (values and the brackets of the array), and fail where
	 * stock fails, after the same values, for every limit around the count.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("streams")
	void tokenCountLimitAppliesToTheWholeStreamAsOnStock(String name, ResolvableType type, String body,
			MediaType mediaType) {
		long tokens = countTokens(body);
		int failures = 0;
		for (long limit = tokens / 3; limit <= tokens + 1; limit += (limit < tokens - 3 ? Math.max(1, tokens / 20) : 1)) {
			JsonMapper mapper = mapper(StreamReadConstraints.builder().maxTokenCount(limit).build());
			failures += assertStreamDecodesLikeStock(mapper, type, body, mediaType, "maxTokenCount=" + limit);
		}
		assertThat(failures).as("cases past the limit").isPositive();
	}

	/**
	 * Decode in several splits with both decoders; return how many failed. Both fail on
	 * the same chunk; before failing, Fastpath emits at least the values stock emits (stock
	 * loses those its tokenizer read from the chunk before), and only values of the body.
	 */
	private int assertStreamDecodesLikeStock(JsonMapper mapper, ResolvableType type, String body,
			MediaType mediaType, String description) {
		JacksonJsonDecoder stock = new JacksonJsonDecoder(mapper);
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(new JacksonJsonDecoder(mapper));
		List<Object> bodyValues = decode(new JacksonJsonDecoder(), type, true, body, mediaType, Integer.MAX_VALUE)
			.values();
		int failures = 0;
		long maxLength = mapper.tokenStreamFactory().streamReadConstraints().getMaxDocumentLength();
		boolean overMaxLength = maxLength >= 0 && body.getBytes(StandardCharsets.UTF_8).length > maxLength;
		for (int chunkSize : new int[] { 1, 7, 64, Integer.MAX_VALUE }) {
			DecoderOutcome expected = decode(stock, type, true, body, mediaType, chunkSize);
			DecoderOutcome actual = decode(fastpath, type, true, body, mediaType, chunkSize);
			String as = description + ", chunks of " + chunkSize + ": stock " + expected + ", Fastpath " + actual;
			if (overMaxLength && !expected.failed()) {
				// Stock misses its own limit: with Jackson 3.1.4 (Boot 4.0) the non-blocking
				// parser checks the document length only where a chunk ends before the input
				// does, never at its end (Jackson 3.1.7, on Boot 4.1, checks it there too).
				// The limit holds for the whole stream: Fastpath fails, as stock does on 4.1.
				assertThat(actual.failed()).as(as + ": the limit holds at the end of the input").isTrue();
				assertThat(actual.error()).as(as).isInstanceOf(DecodingException.class);
				failures++;
				continue;
			}
			assertThat(expected.differenceFrom(actual)).as(as).isNull();
			assertThat(isPrefix(expected.values(), actual.values())).as(as + ": starts with stock's values").isTrue();
			assertThat(isPrefix(actual.values(), bodyValues)).as(as + ": values of the body").isTrue();
			if (expected.failed()) {
				assertThat(expected.error()).as(as).isInstanceOf(DecodingException.class);
				failures++;
			}
		}
		return failures;
	}

	private static boolean isPrefix(List<Object> prefix, List<Object> values) {
		return prefix.size() <= values.size() && prefix.equals(values.subList(0, prefix.size()));
	}

	private static long countTokens(String body) {
		long count = 0;
		try (JsonParser parser = JsonMapper.builder().build().createParser(body)) {
			while (parser.nextToken() != null) {
				count++;
			}
		}
		return count;
	}

	private static JsonMapper mapper(StreamReadConstraints constraints) {
		return JsonMapper.builder(JsonFactory.builder().streamReadConstraints(constraints).build()).build();
	}

	private DecoderOutcome decode(Decoder<?> decoder, ResolvableType type, boolean flux, String body,
			MediaType mediaType, int chunkSize) {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		List<byte[]> chunks = new ArrayList<>();
		for (int from = 0; from < bytes.length; from += chunkSize) {
			chunks.add(Arrays.copyOfRange(bytes, from, (int) Math.min(bytes.length, (long) from + chunkSize)));
		}
		LeakTrackingDataBufferFactory factory = (decoder instanceof FastpathJsonDecoder) ? this.factory
				: this.factory.forStock();
		Flux<DataBuffer> input = Flux.fromIterable(chunks).map(factory::bufferOf);
		return DecoderOutcome.of(() -> flux ? decoder.decode(input, type, mediaType, null)
				: decoder.decodeToMono(input, type, mediaType, null));
	}

	private DecoderOutcome decode(Decoder<?> decoder, ResolvableType type,
			boolean flux, String body, MediaType mediaType, boolean byteByByte) {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		List<byte[]> chunks = new ArrayList<>();
		if (byteByByte) {
			for (byte b : bytes) {
				chunks.add(new byte[] { b });
			}
		}
		else {
			chunks.add(bytes);
		}
		LeakTrackingDataBufferFactory factory = (decoder instanceof FastpathJsonDecoder) ? this.factory
				: this.factory.forStock();
		Flux<DataBuffer> input = Flux.fromIterable(chunks).map(factory::bufferOf);
		return DecoderOutcome.of(() -> flux ? decoder.decode(input, type, mediaType, null)
				: decoder.decodeToMono(input, type, mediaType, null));
	}

}
