package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JsonRootName;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.Decoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every mapper setting that may change how a value is read, toggled one at a time from
 * Jackson's defaults: each {@link DeserializationFeature}, {@link StreamReadFeature} and
 * {@link JsonReadFeature}, and the coercion configs of the scalar types. For each, every
 * target type (elements of a {@code Flux}, whole values of a {@code Mono}: lists,
 * primitive arrays, POJOs, a {@code @JsonRootName} POJO) reads a table of bodies that
 * the setting may concern (scalars where arrays are expected, arrays of one, a root
 * name, trailing tokens, strings for numbers, nulls, non-standard syntax), in one buffer
 * and byte by byte, with {@link FastpathJsonDecoder} and the stock {@link JacksonJsonDecoder}
 * on the same mapper: the same values, or a failure of the same class after the same
 * values.
 * <p>Where stock's own answer depends on how the body is cut (its {@code Flux}
 * tokenizer), there is no oracle: such cases are counted and printed, not compared.
 */
class MapperSettingsDifferentialTests {

	/** What the comparison left aside: at INFO, which a green build does not show (see logback-test.xml). */
	private static final Log logger = LogFactory.getLog(MapperSettingsDifferentialTests.class);

	private static final String[] BODIES = { "[1,2]", "[-3]", "[1.5,2.0]", "[1.0]", "[true,false]", "[\"a\",\"b\"]",
			"[\"1\"]", "[\"\"]", "[\"true\"]", "[0]", "[]", "[null]", "[1,null]", "1", "\"a\"", "true", "null", "",
			"{}", "[[1]]", "[[1,2]]", "[1] 2", "[1] x", "[1]]", "{\"root\":[1,2]}", "{\"named\":{\"name\":\"a\"}}",
			"[{\"named\":{\"name\":\"a\"}}]", "{\"name\":\"a\",\"id\":1}", "[{\"name\":\"a\",\"id\":1}]",
			"[{\"name\":\"a\",\"name\":\"b\"}]", "[{\"unknown\":1}]", "[{\"id\":\"1\"}]", "[{\"id\":1.5}]",
			"[{\"id\":[1]}]", "[{\"tags\":\"a\"}]", "[{\"level\":\"low\"}]", "[{\"level\":1}]", "[{\"id\":null}]",
			"[{\"flag\":1}]", "[1,]", "[01]", "[+1]", "[.5]", "[1.]", "[NaN]", "['a']", "[1e400]", "[2147483648]",
			"[9223372036854775808]", "[1 /* c */]", "[1 # c\n]", "[\"a\tb\"]", "[\"\\q\"]", "[{a:1}]", "[1,,2]",
			"{\"a\":1}{\"a\":2}", "\"a\" \"b\"", "1 2" };

	private static final ResolvableType MAP = ResolvableType.forClassWithGenerics(Map.class, String.class,
			Object.class);

	static List<Target> targets() {
		return List.of(Target.flux("Flux<Long>", Long.class), Target.flux("Flux<Integer>", Integer.class),
				Target.flux("Flux<Double>", Double.class), Target.flux("Flux<Boolean>", Boolean.class),
				Target.flux("Flux<String>", String.class), Target.flux("Flux<Pojo>", TestPojo.class),
				Target.flux("Flux<Named>", Named.class), Target.flux("Flux<Object>", Object.class),
				new Target("Flux<Map>", MAP, true), Target.mono("long[]", long[].class),
				Target.mono("int[]", int[].class), Target.mono("double[]", double[].class),
				Target.mono("float[]", float[].class), Target.mono("boolean[]", boolean[].class),
				new Target("List<Long>", list(Long.class), false), new Target("List<String>", list(String.class), false),
				new Target("List<Double>", list(Double.class), false),
				new Target("List<Pojo>", list(TestPojo.class), false), Target.mono("Pojo", TestPojo.class),
				Target.mono("Pojo[]", TestPojo[].class), Target.mono("Named", Named.class),
				new Target("Map", MAP, false));
	}

	/** Every setting, each toggled from Jackson's default on its own. */
	static Stream<Setting> settings() {
		JsonMapper defaults = JsonMapper.builder().build();
		List<Setting> settings = new ArrayList<>();
		settings.add(new Setting("Jackson's defaults", (builder) -> builder));
		for (DeserializationFeature feature : DeserializationFeature.values()) {
			boolean enabled = !defaults.isEnabled(feature);
			settings.add(new Setting(feature + "=" + enabled, (builder) -> builder.configure(feature, enabled)));
		}
		for (StreamReadFeature feature : StreamReadFeature.values()) {
			boolean enabled = !defaults.isEnabled(feature);
			settings.add(new Setting(feature + "=" + enabled, (builder) -> builder.configure(feature, enabled), true));
		}
		for (JsonReadFeature feature : JsonReadFeature.values()) {
			boolean enabled = !defaults.isEnabled(feature);
			settings.add(new Setting(feature + "=" + enabled, (builder) -> builder.configure(feature, enabled), true));
		}
		LogicalType[] scalars = { LogicalType.Integer, LogicalType.Float, LogicalType.Boolean, LogicalType.Textual };
		CoercionInputShape[] shapes = { CoercionInputShape.Integer, CoercionInputShape.Float,
				CoercionInputShape.Boolean, CoercionInputShape.String, CoercionInputShape.EmptyString,
				CoercionInputShape.Array };
		for (LogicalType type : scalars) {
			for (CoercionInputShape shape : shapes) {
				// TryConvert is the default for most of them.
				for (CoercionAction action : new CoercionAction[] { CoercionAction.Fail, CoercionAction.AsNull }) {
					settings.add(new Setting("coercion " + type + " from " + shape + "=" + action,
							(builder) -> builder.withCoercionConfig(type, (config) -> config.setCoercion(shape, action))));
				}
			}
		}
		for (CoercionInputShape shape : shapes) {
			settings.add(new Setting("coercion defaults from " + shape + "=Fail",
					(builder) -> builder.withCoercionConfigDefaults((config) -> config.setCoercion(shape,
							CoercionAction.Fail))));
		}
		return settings.stream();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("settings")
	void everyTargetReadsEveryBodyLikeStock(Setting setting) {
		JsonMapper mapper = setting.configure().apply(JsonMapper.builder()).build();
		JacksonJsonDecoder stock = new JacksonJsonDecoder(mapper);
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(new JacksonJsonDecoder(mapper));
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		List<String> differences = new ArrayList<>();
		List<String> notCompared = new ArrayList<>();
		List<String> departures = new ArrayList<>();
		for (Target target : targets()) {
			for (String body : BODIES) {
				byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
				DecoderOutcome stockWhole = decode(stock, factory.forStock(), target, bytes, false);
				for (boolean byteByByte : new boolean[] { false, true }) {
					if (byteByByte && !target.flux()) {
						continue;
					}
					DecoderOutcome expected = byteByByte ? decode(stock, factory.forStock(), target, bytes, true)
							: stockWhole;
					String where = target + " " + (byteByByte ? "byte by byte" : "whole") + " " + body;
					// A syntax feature hands a Flux to the stock decoder, which releases an input
					// buffer twice when decoding fails: leaks are still checked there, double
					// releases only on Fastpath's own paths.
					DecoderOutcome actual = decode(fastpath,
							(target.flux() && setting.readFeature()) ? factory.forStock() : factory, target, bytes,
							byteByByte);
					if (target.flux() && (expected.differenceFrom(stockWhole) != null
							|| RandomJson.hasArrayInTopLevelArray(bytes))) {
						// Stock's tokenizer answers for the chunks, not the body (and takes arrays
						// in a top-level array apart): Jackson on the whole body is the oracle,
						// unless Fastpath answered as stock did for these chunks (it falls back to
						// stock under syntax features).
						notCompared.add(where);
						String difference = (expected.differenceFrom(actual, true) == null) ? null
								: differenceFromJackson(actual, mapper, target, bytes);
						if (difference != null) {
							differences.add(where + " (stock inconsistent, Jackson on the whole body the oracle): "
									+ difference + "\n    fastpath: " + actual);
						}
						continue;
					}
					String difference = expected.differenceFrom(actual, target.flux());
					if (difference == null && expected.failed()) {
						difference = emittedDifference(expected, actual, mapper, target, bytes);
					}
					if (difference != null && isNumberRenderedByStocksTokenBuffer(target, expected, actual, mapper,
							bytes)) {
						departures.add(where);
						continue;
					}
					if (difference != null) {
						differences.add(where + ": " + difference + "\n    stock:    " + expected
								+ "\n    fastpath: " + actual);
					}
				}
			}
		}
		factory.assertNoLeaks();
		if (!notCompared.isEmpty()) {
			logger.info("[" + setting + "]: " + notCompared.size()
					+ " case(s) compared with Jackson on the whole body, not with stock, which is inconsistent");
		}
		if (!departures.isEmpty()) {
			logger.info("[" + setting + "]: " + departures.size()
					+ " case(s) read as Jackson reads the whole body, where stock's token buffer renders a number"
					+ " as a String its own way: " + departures);
		}
		assertThat(differences).as("cases where Fastpath differs from stock with " + setting).isEmpty();
	}

	/**
	 * What is wrong with the values Fastpath emitted before failing as stock did, or
	 * {@code null}: they must be stock's, or a prefix of what Jackson reads from the whole
	 * body (stock's tokenizer reads a whole chunk before it emits any of its values).
	 */
	private static @Nullable String emittedDifference(DecoderOutcome expected, DecoderOutcome actual,
			JsonMapper mapper, Target target, byte[] body) {
		if (DecoderOutcome.difference(expected.values(), actual.values(), "values", true) == null) {
			return null;
		}
		List<Object> jackson = readByJackson(mapper, target, body).values();
		List<Object> emitted = actual.values();
		if (emitted.size() <= jackson.size() && DecoderOutcome.difference(
				new ArrayList<>(jackson.subList(0, emitted.size())), new ArrayList<>(emitted), "values", true) == null) {
			return null;
		}
		return "values emitted before the error are neither stock's nor a prefix of Jackson's " + jackson;
	}

	/**
	 * Stock's {@code Flux} path copies a number into a token buffer, which renders it
	 * again when a {@code String} is asked for ({@code +1} as {@code 1}); Jackson reading
	 * the whole body, and Fastpath, give the text of the body.
	 */
	private static boolean isNumberRenderedByStocksTokenBuffer(Target target, DecoderOutcome expected,
			DecoderOutcome actual, JsonMapper mapper, byte[] body) {
		return target.flux() && target.type().resolve() == String.class && !expected.failed() && !actual.failed()
				&& DecoderOutcome.difference(readByJackson(mapper, target, body).values(), actual.values(),
						"values") == null;
	}

	/** How Fastpath's outcome differs from Jackson's reading of the whole body, or {@code null}. */
	private static @Nullable String differenceFromJackson(DecoderOutcome actual, JsonMapper mapper, Target target,
			byte[] body) {
		JacksonReading jackson = readByJackson(mapper, target, body);
		if (!jackson.failed()) {
			return actual.failed() ? "Jackson read " + jackson.values() + " but Fastpath failed"
					: DecoderOutcome.difference(jackson.values(), actual.values(), "values");
		}
		if (!(actual.error() instanceof CodecException)) {
			return "Jackson failed, Fastpath " + actual;
		}
		List<Object> emitted = actual.values();
		List<Object> read = jackson.values();
		boolean prefix = emitted.size() <= read.size() && DecoderOutcome
			.difference(new ArrayList<>(read.subList(0, emitted.size())), new ArrayList<>(emitted), "values") == null;
		return prefix ? null : "values emitted before the error are not a prefix of Jackson's " + read;
	}

	/**
	 * The values of a top-level array, or of top-level values, as plain Jackson reads them
	 * from the whole body, each as a root value (so with the mapper's root handling, which
	 * a {@code MappingIterator} skips), up to its error if any ({@code null}s left out, as
	 * a {@code Flux} leaves them out).
	 */
	private static JacksonReading readByJackson(JsonMapper mapper, Target target, byte[] body) {
		List<Object> values = new ArrayList<>();
		ObjectReader reader = mapper.readerFor(mapper.constructType(target.type().getType()))
			.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
		try (JsonParser parser = reader.createParser(body)) {
			// As a Flux reads a stream: the values of top-level arrays, and other top-level values.
			JsonToken token = parser.nextToken();
			while (token != null) {
				if (token == JsonToken.START_ARRAY) {
					while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
						if (token == null) {
							return new JacksonReading(values, true);
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
			return new JacksonReading(values, true);
		}
		return new JacksonReading(values, false);
	}

	private static void add(List<Object> values, @Nullable Object value) {
		if (value != null) {
			values.add(value);
		}
	}

	private record JacksonReading(List<Object> values, boolean failed) {
	}

	@Test
	void everySettingOfEveryKindIsInTheTable() {
		assertThat(settings()).hasSizeGreaterThan(DeserializationFeature.values().length
				+ StreamReadFeature.values().length + JsonReadFeature.values().length);
	}

	private static DecoderOutcome decode(Decoder<Object> decoder, LeakTrackingDataBufferFactory factory,
			Target target, byte[] body, boolean byteByByte) {
		List<byte[]> chunks = new ArrayList<>();
		if (byteByByte) {
			for (byte b : body) {
				chunks.add(new byte[] { b });
			}
		}
		else {
			chunks.add(body);
		}
		Flux<DataBuffer> input = Flux.fromIterable(chunks).map(factory::bufferOf);
		return DecoderOutcome.of(() -> target.flux() ? decoder.decode(input, target.type(), MediaType.APPLICATION_JSON, null)
				: decoder.decodeToMono(input, target.type(), MediaType.APPLICATION_JSON, null));
	}

	private static ResolvableType list(Class<?> element) {
		return ResolvableType.forClassWithGenerics(List.class, element);
	}

	record Setting(String name, UnaryOperator<JsonMapper.Builder> configure, boolean readFeature) {

		Setting(String name, UnaryOperator<JsonMapper.Builder> configure) {
			this(name, configure, false);
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	record Target(String name, ResolvableType type, boolean flux) {

		static Target flux(String name, Class<?> type) {
			return new Target(name, ResolvableType.forClass(type), true);
		}

		static Target mono(String name, Class<?> type) {
			return new Target(name, ResolvableType.forClass(type), false);
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	/** A POJO with a root name, which {@code UNWRAP_ROOT_VALUE} expects around it. */
	@JsonRootName("named")
	static class Named {

		public @Nullable String name;

		@Override
		public String toString() {
			return "Named{" + this.name + "}";
		}

	}

}
