package io.fastpath.json;

import java.util.Map;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

/**
 * Element types whose values can be taken straight from the current token, without
 * Databind, when the token is the canonical one for the type (an integer that fits for
 * {@code Long}, {@code true}/{@code false} for {@code Boolean}, ...). Any other token
 * ({@code null}, a string to coerce, an out-of-range number, ...) is
 * {@link #NOT_CANONICAL} and goes to Databind, which decides as it always does.
 * <p>Only used when the mapper deserializes the type with Jackson's own deserializer and
 * has no problem handler: an application that registered its own deserializer gets it
 * called for every element, and its handlers must only ever see values of the body
 * (values read ahead may be cut, or closed by a bracket that is not in the body).
 *
 * @author Fastpath
 */
enum ScalarKind {

	LONG(Long.class, true) {
		@Override
		Object read(JsonParser parser, JsonToken token) {
			return (token == JsonToken.VALUE_NUMBER_INT && fitsLong(parser)) ? parser.getLongValue() : NOT_CANONICAL;
		}
	},

	INTEGER(Integer.class, true) {
		@Override
		Object read(JsonParser parser, JsonToken token) {
			return (token == JsonToken.VALUE_NUMBER_INT && fitsInt(parser)) ? parser.getIntValue() : NOT_CANONICAL;
		}
	},

	DOUBLE(Double.class, true) {
		@Override
		Object read(JsonParser parser, JsonToken token) {
			return (token == JsonToken.VALUE_NUMBER_FLOAT) ? parser.getDoubleValue() : NOT_CANONICAL;
		}
	},

	BOOLEAN(Boolean.class, true) {
		@Override
		Object read(JsonParser parser, JsonToken token) {
			if (token == JsonToken.VALUE_TRUE) {
				return Boolean.TRUE;
			}
			return (token == JsonToken.VALUE_FALSE) ? Boolean.FALSE : NOT_CANONICAL;
		}
	},

	STRING(String.class, false) {
		@Override
		Object read(JsonParser parser, JsonToken token) {
			return (token == JsonToken.VALUE_STRING) ? parser.getString() : NOT_CANONICAL;
		}
	},

	/** Everything else: always read by Databind. */
	OTHER(Object.class, false) {
		@Override
		Object read(JsonParser parser, JsonToken token) {
			return NOT_CANONICAL;
		}
	};

	/** Marker for a token that Databind must read. */
	static final Object NOT_CANONICAL = new Object();

	private static final JsonMapper STANDARD = JsonMapper.builder().build();

	private static final Map<Class<?>, ScalarKind> BY_TYPE = Map.of(Long.class, LONG, Integer.class, INTEGER,
			Double.class, DOUBLE, Boolean.class, BOOLEAN, String.class, STRING);

	private final Class<?> type;

	private final boolean numberOrLiteral;

	ScalarKind(Class<?> type, boolean numberOrLiteral) {
		this.type = type;
		this.numberOrLiteral = numberOrLiteral;
	}

	/**
	 * Whether the canonical values are numbers or literals, which hold no comma (other
	 * tokens may, and then fail to parse where a comma is taken for the end).
	 * @return whether they are
	 */
	boolean isNumberOrLiteral() {
		return this.numberOrLiteral;
	}

	/**
	 * Read the value of the current token, or return {@link #NOT_CANONICAL}.
	 * @param parser the parser, on the token
	 * @param token the current token
	 * @return the value or {@link #NOT_CANONICAL}
	 */
	abstract Object read(JsonParser parser, JsonToken token);

	/**
	 * The kind for an element type read with the given mapper.
	 * @param mapper the mapper
	 * @param elementType the element type
	 * @return the kind, {@link #OTHER} unless the mapper reads the type as Jackson does
	 */
	static ScalarKind of(JsonMapper mapper, ResolvableType elementType) {
		ScalarKind kind = BY_TYPE.get(elementType.resolve(Object.class));
		if (kind == null || mapper.deserializationConfig().getProblemHandlers() != null
				|| !readsAsJacksonDoes(mapper, kind.type)) {
			return OTHER;
		}
		return kind;
	}

	/**
	 * Whether the mapper deserializes the type with the deserializer a default mapper uses.
	 * @param mapper the mapper
	 * @param type the type
	 * @return whether it does
	 */
	static boolean readsAsJacksonDoes(JsonMapper mapper, Class<?> type) {
		return deserializerClass(mapper, type) == deserializerClass(STANDARD, type);
	}

	private static Class<?> deserializerClass(JsonMapper mapper, Class<?> type) {
		DeserializationContext context = mapper._deserializationContext();
		ValueDeserializer<Object> deserializer = context.findRootValueDeserializer(mapper.constructType(type));
		return deserializer.getClass();
	}

	/**
	 * Whether the integer the parser is on fits in a {@code long}: the parser sizes it as it
	 * reads it, so no value is built to tell.
	 */
	static boolean fitsLong(JsonParser parser) {
		JsonParser.NumberType type = parser.getNumberType();
		return type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG;
	}

	/** Whether the integer the parser is on fits in an {@code int}. */
	static boolean fitsInt(JsonParser parser) {
		return parser.getNumberType() == JsonParser.NumberType.INT;
	}

}
