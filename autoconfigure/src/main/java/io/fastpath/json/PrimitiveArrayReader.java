package io.fastpath.json;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * Reads a whole top-level JSON array into {@code long[]}, {@code int[]},
 * {@code double[]}, {@code float[]} or {@code boolean[]} straight from the token stream,
 * without boxing and without Databind, when every value is the canonical token for the
 * type. Anything else ({@code null}, strings, out-of-range numbers, trailing content)
 * makes it give up, and the caller lets Databind read the whole body, which decides as it
 * always does.
 * <p>One loop per primitive type, on purpose: a shared loop would box each value or pay a
 * virtual call per value.
 *
 * @author Fastpath
 */
abstract class PrimitiveArrayReader {

	/** The first capacity of an array: values are allocated as they are read. */
	private static final int MIN_CAPACITY = 16;

	/**
	 * The reader for a target type read with the given mapper, or {@code null}.
	 * @param mapper the mapper
	 * @param type the target type
	 * @return the reader, or {@code null} when the type is not a primitive array or the
	 * mapper reads it with a deserializer of its own
	 */
	static @Nullable PrimitiveArrayReader of(JsonMapper mapper, Class<?> type) {
		PrimitiveArrayReader reader;
		if (type == long[].class) {
			reader = new Longs();
		}
		else if (type == int[].class) {
			reader = new Ints();
		}
		else if (type == double[].class) {
			reader = new Doubles(convertsIntegers(mapper, double.class));
		}
		else if (type == float[].class) {
			reader = new Floats(convertsIntegers(mapper, float.class));
		}
		else if (type == boolean[].class) {
			reader = new Booleans();
		}
		else {
			return null;
		}
		return ScalarKind.readsAsJacksonDoes(mapper, type) ? reader : null;
	}

	/** Whether integers are taken as floating point values, as they are by default. */
	private static boolean convertsIntegers(JsonMapper mapper, Class<?> type) {
		return mapper.deserializationConfig()
			.findCoercionAction(LogicalType.Float, type, CoercionInputShape.Integer) == CoercionAction.TryConvert;
	}

	/**
	 * Read the array, or return {@code null} if Databind must.
	 * @param objectReader the reader, for its parser configuration
	 * @param body the body
	 * @return the array, or {@code null}
	 */
	final @Nullable Object read(ObjectReader objectReader, JsonBody body) {
		// A valid array of numbers or booleans has one comma fewer than values: capping its
		// growth at the count of commas (a cheap scan) saves trimming it. Counted before
		// parsing, as a streamed body is read as the parser goes.
		int maxValues = body.count((byte) ',') + 1;
		try (JsonParser parser = body.parser(objectReader)) {
			if (parser.nextToken() != JsonToken.START_ARRAY) {
				return null;
			}
			Object values = readValues(parser, maxValues);
			if (values == null || !objectReader.isEnabled(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)) {
				// Without the check, Databind stops after the value too.
				return values;
			}
			// Trailing content, valid or not, is Databind's to report.
			return endsAfterValue(parser) ? values : null;
		}
	}

	private static boolean endsAfterValue(JsonParser parser) {
		try {
			return parser.nextToken() == null;
		}
		catch (JacksonException ex) {
			return false;
		}
	}

	/**
	 * The capacity to grow a full array of the given length to: doubled, at least
	 * {@value #MIN_CAPACITY}, at most the most values the body can hold.
	 */
	private static int grownCapacity(int length, int maxValues) {
		return (int) Math.min(Math.max(MIN_CAPACITY, 2L * length), Math.max(maxValues, length + 1L));
	}

	/**
	 * Read values up to END_ARRAY, or return {@code null} on a token that is not canonical.
	 * @param parser the parser, after START_ARRAY
	 * @param maxValues how many values there are at most, if the array is valid
	 * @return the values, or {@code null}
	 */
	abstract @Nullable Object readValues(JsonParser parser, int maxValues);

	private static final class Longs extends PrimitiveArrayReader {

		@Override
		@Nullable Object readValues(JsonParser parser, int maxValues) {
			long[] values = new long[Math.min(MIN_CAPACITY, maxValues)];
			int count = 0;
			JsonToken token;
			while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
				if (token != JsonToken.VALUE_NUMBER_INT || !ScalarKind.fitsLong(parser)) {
					return null;
				}
				if (count == values.length) {
					values = Arrays.copyOf(values, grownCapacity(count, maxValues));
				}
				values[count++] = parser.getLongValue();
			}
			return (count == values.length) ? values : Arrays.copyOf(values, count);
		}

	}

	private static final class Ints extends PrimitiveArrayReader {

		@Override
		@Nullable Object readValues(JsonParser parser, int maxValues) {
			int[] values = new int[Math.min(MIN_CAPACITY, maxValues)];
			int count = 0;
			JsonToken token;
			while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
				if (token != JsonToken.VALUE_NUMBER_INT || !ScalarKind.fitsInt(parser)) {
					return null;
				}
				if (count == values.length) {
					values = Arrays.copyOf(values, grownCapacity(count, maxValues));
				}
				values[count++] = parser.getIntValue();
			}
			return (count == values.length) ? values : Arrays.copyOf(values, count);
		}

	}

	private static final class Doubles extends PrimitiveArrayReader {

		private final boolean convertsIntegers;

		Doubles(boolean convertsIntegers) {
			this.convertsIntegers = convertsIntegers;
		}

		@Override
		@Nullable Object readValues(JsonParser parser, int maxValues) {
			double[] values = new double[Math.min(MIN_CAPACITY, maxValues)];
			int count = 0;
			JsonToken token;
			while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
				if (token != JsonToken.VALUE_NUMBER_FLOAT
						&& (token != JsonToken.VALUE_NUMBER_INT || !this.convertsIntegers)) {
					return null;
				}
				if (count == values.length) {
					values = Arrays.copyOf(values, grownCapacity(count, maxValues));
				}
				values[count++] = parser.getDoubleValue();
			}
			return (count == values.length) ? values : Arrays.copyOf(values, count);
		}

	}

	private static final class Floats extends PrimitiveArrayReader {

		private final boolean convertsIntegers;

		Floats(boolean convertsIntegers) {
			this.convertsIntegers = convertsIntegers;
		}

		@Override
		@Nullable Object readValues(JsonParser parser, int maxValues) {
			float[] values = new float[Math.min(MIN_CAPACITY, maxValues)];
			int count = 0;
			JsonToken token;
			while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
				if (token != JsonToken.VALUE_NUMBER_FLOAT
						&& (token != JsonToken.VALUE_NUMBER_INT || !this.convertsIntegers)) {
					return null;
				}
				if (count == values.length) {
					values = Arrays.copyOf(values, grownCapacity(count, maxValues));
				}
				values[count++] = parser.getFloatValue();
			}
			return (count == values.length) ? values : Arrays.copyOf(values, count);
		}

	}

	private static final class Booleans extends PrimitiveArrayReader {

		@Override
		@Nullable Object readValues(JsonParser parser, int maxValues) {
			boolean[] values = new boolean[Math.min(MIN_CAPACITY, maxValues)];
			int count = 0;
			JsonToken token;
			while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
				if (token != JsonToken.VALUE_TRUE && token != JsonToken.VALUE_FALSE) {
					return null;
				}
				if (count == values.length) {
					values = Arrays.copyOf(values, grownCapacity(count, maxValues));
				}
				values[count++] = (token == JsonToken.VALUE_TRUE);
			}
			return (count == values.length) ? values : Arrays.copyOf(values, count);
		}

	}

}
