package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
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
 * alike.
 */
class JsonArrayDecoderConstraintsTests {

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
		JsonArrayDecoder fastpath = JsonArrayDecoder.from(new JacksonJsonDecoder(MAPPER));
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
		JsonArrayDecoder fastpath = JsonArrayDecoder.from(new JacksonJsonDecoder(relaxed));
		DecoderOutcome expected = decode(stock, type, flux, body, mediaType, false);
		DecoderOutcome actual = decode(fastpath, type, flux, body, mediaType, false);
		assertThat(expected.failed()).isFalse();
		assertThat(expected.differenceFrom(actual)).isNull();
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
		LeakTrackingDataBufferFactory factory = (decoder instanceof JsonArrayDecoder) ? this.factory
				: this.factory.forStock();
		Flux<DataBuffer> input = Flux.fromIterable(chunks).map(factory::bufferOf);
		return DecoderOutcome.of(() -> flux ? decoder.decode(input, type, mediaType, null)
				: decoder.decodeToMono(input, type, mediaType, null));
	}

}
