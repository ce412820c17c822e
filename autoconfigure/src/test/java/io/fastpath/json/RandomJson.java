package io.fastpath.json;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Random JSON for the differential tests: type-directed valid documents with random
 * whitespace, escapes, non-ASCII text and awkward numbers; malformed variants derived
 * from them; and random ways to cut a body into chunks.
 * <p>One instance draws its own rates (of whitespace, {@code null}s, values of the wrong
 * type) once, so that the documents of one case share a character.
 */
final class RandomJson {

	/** The Java type a generated value is meant for. */
	enum Kind {

		LONG, INT, DOUBLE, FLOAT, BOOLEAN, STRING, POJO, MAP, UNTYPED

	}

	/** A class of malformed input derived from a valid one. */
	enum Damage {

		TRUNCATED, TRAILING_GARBAGE, LEADING_GARBAGE, EXTRA_COMMA, BAD_NUMBER, BAD_LITERAL, UNBALANCED,
		INVALID_UTF8, BAD_STRING, BYTE_ORDER_MARK,

		/** Fuzzing: one to three bits flipped anywhere. */
		FLIPPED_BITS,

		/** Fuzzing: one to three bytes of any value inserted anywhere, NUL and structure likely. */
		INSERTED_BYTES,

		/** Fuzzing: one to three runs of bytes deleted anywhere. */
		DELETED_BYTES,

		/** Fuzzing: an element nested hundreds to thousands deep, around Jackson's depth limit. */
		DEEP_NESTING,

		/** Fuzzing: a number of hundreds to thousands of digits, around Jackson's length limit. */
		HUGE_NUMBER,

		/** Fuzzing: a string of tens of thousands of characters. */
		LONG_STRING;

		/** The damage that mutates bytes or sizes rather than one JSON construct. */
		static final List<Damage> FUZZ = List.of(FLIPPED_BITS, INSERTED_BYTES, DELETED_BYTES, TRUNCATED,
				DEEP_NESTING, HUGE_NUMBER, LONG_STRING, INVALID_UTF8);

	}

	private static final String[] POJO_FIELDS = { "name", "id", "rank", "count", "score", "ratio", "flag", "level",
			"tags", "values", "attributes", "child" };

	private static final String[] LEVELS = { "LOW", "MEDIUM", "HIGH" };

	private static final String[] TWO_BYTE = { "é", "ß", "Ω", "ж", "ñ", "ü", "\u00a0", "\u07ff" };

	private static final String[] THREE_BYTE = { "€", "中", "☃", "\ufffd", "\u0800", "\u2028", "\uffff", "ア" };

	private static final String[] FOUR_BYTE = { "😀", "𝄞", "🚀", "\ud800\udc00", "\udbff\udfff", "🇪🇺" };

	private static final String[] SIMPLE_ESCAPES = { "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\r", "\\b", "\\f" };

	private static final String[] SPECIAL_DOUBLES = { "0", "-0", "0.0", "-0.0", "1e10", "-2.5E-3", "1E+2", "1e-0",
			"4.9e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400", "1.7976931348623157e308",
			"1.7976931348623158e308", "1.7976931348623159e308", "1e309", "-1e309", "123456789012345678901234567890",
			"0.30000000000000004", "9007199254740993", "2.2250738585072011e-308", "2.2250738585072012e-308",
			"0.1", "100", "-1", "3.141592653589793238462643383279502884197", "1.00000000000000011102230246251565",
			"0.000000000000000000000000000000000000001", "12345678901234567890.123456789e-5" };

	private static final String[] SPECIAL_FLOATS = { "0", "-0.0", "1e10", "-2.5E-3", "3.4028235e38", "3.4028236e38",
			"3.5e38", "1.4e-45", "7.0e-46", "1e-50", "16777217", "0.1", "1.00000005960464477539062500001",
			"33554431", "2.5", "-1.17549435e-38" };

	private static final String[] BAD_NUMBERS = { "01", "1.", "-", "1e", "+1", ".5", "1e+", "--1", "0x10", "1.e5",
			"-01", "00", "1e1.5", "1..2", "-.5", "1ee2", "1_000", "1-2" };

	private static final String[] BAD_LITERALS = { "tru", "nul", "True", "NULL", "falsey", "nulll", "f", "undefined",
			"t rue" };

	private static final String[] GARBAGE = { "x", "]", "}", ",", "[", "{", ":", "1", "\"s\"", "null", "{\"a\":1}",
			"]]", "\u0000", "/", "#", "'a'", "[1]", "\"" };

	/** Valid top-level values to follow a body with: streams may hold more than one. */
	private static final String[] NEXT_VALUES = { "1", "[2]", "[3, 4]", "true", "\"s\"", "{\"a\":1}" };

	private static final byte[][] INVALID_UTF8 = { { (byte) 0xFF }, { (byte) 0xFE }, { (byte) 0xC0, (byte) 0x80 },
			{ (byte) 0xC1, (byte) 0xBF }, { (byte) 0x80 }, { (byte) 0xBF }, { (byte) 0xE2, (byte) 0x82 },
			{ (byte) 0xE0, (byte) 0x80, (byte) 0x80 }, { (byte) 0xED, (byte) 0xA0, (byte) 0x80 },
			{ (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80 }, { (byte) 0xF0, (byte) 0x9F, (byte) 0x98 },
			{ (byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80 }, { (byte) 0xC3 } };

	private static final String[] BAD_STRING_PARTS = { "\u0001", "\n", "\u001f", "\t", "\\x", "\\U0041", "\\u12G4",
			"\\u12", "\\", "\\'", "\u0000" };

	/** Enough buffers to cut most bodies byte by byte, few enough to keep the suite quick. */
	private static final int MAX_CHUNKS = 500;

	private final Random random;

	private final double whitespaceRate;

	private final double nullRate;

	private final double wrongTypeRate;

	private final double escapeRate;

	private final double nonAsciiRate;

	private final int maxElements;

	/** Whether a value of the wrong type may be an array; not so for Flux elements. */
	private boolean arraysAllowedAsWrongType = true;

	/** Whether property names may hold surrogates spelled as escapes; not so for Flux. */
	private boolean surrogateEscapesInNames = true;

	RandomJson(Random random) {
		this.random = random;
		this.whitespaceRate = pickRate(0.0, 0.0, 0.1, 0.3, 0.8);
		this.nullRate = pickRate(0.0, 0.0, 0.0, 0.03, 0.15);
		this.wrongTypeRate = 0.0;
		this.escapeRate = pickRate(0.0, 0.05, 0.2, 0.5);
		this.nonAsciiRate = pickRate(0.0, 0.05, 0.2, 0.6);
		this.maxElements = pickInt(0, 1, 3, 8, 8, 20, 60);
	}

	private RandomJson(RandomJson template, double wrongTypeRate) {
		this.random = template.random;
		this.whitespaceRate = template.whitespaceRate;
		this.nullRate = template.nullRate;
		this.wrongTypeRate = wrongTypeRate;
		this.escapeRate = template.escapeRate;
		this.nonAsciiRate = template.nonAsciiRate;
		this.maxElements = template.maxElements;
		this.arraysAllowedAsWrongType = template.arraysAllowedAsWrongType;
		this.surrogateEscapesInNames = template.surrogateEscapesInNames;
	}

	/** A copy that writes a value of the wrong type for about the given share of values. */
	RandomJson withWrongTypes(double rate) {
		return new RandomJson(this, rate);
	}

	/**
	 * Stay clear of two stock quirks on the Flux path: its tokenizer takes an array
	 * element of a top-level array apart instead of emitting it, and Jackson's
	 * non-blocking parser fails ("Still have N undecoded bytes") when a buffer ends
	 * between or inside the two escapes of a surrogate pair in a property name.
	 */
	RandomJson forFlux() {
		this.arraysAllowedAsWrongType = false;
		this.surrogateEscapesInNames = false;
		return this;
	}

	// Documents

	/** A top-level array of values of the given kind. */
	String array(Kind element) {
		return ws() + arrayOf(elementCount(element), () -> element(element, 0)) + ws();
	}

	/** Values of the given kind separated by newlines, as in {@code application/x-ndjson}. */
	String ndjson(Kind element) {
		StringBuilder json = new StringBuilder(ws());
		int count = elementCount(element);
		for (int i = 0; i < count; i++) {
			json.append(element(element, 0)).append(ws()).append(this.random.nextInt(5) == 0 ? "\r\n" : "\n");
			json.append(ws());
		}
		if (count > 0 && this.random.nextBoolean()) {
			json.setLength(json.length() - 1);
		}
		return json.toString();
	}

	private int elementCount(Kind element) {
		int max = (element == Kind.POJO || element == Kind.MAP) ? Math.min(this.maxElements, 12) : this.maxElements;
		return this.random.nextInt(max + 1);
	}

	/** One value of the given kind, surrounded by whitespace. */
	String single(Kind kind) {
		return ws() + value(kind, 0) + ws();
	}

	// Values

	private String element(Kind kind, int depth) {
		return (chance(this.nullRate) ? "null" : value(kind, depth));
	}

	String value(Kind kind, int depth) {
		if (chance(this.wrongTypeRate)) {
			return wrongType(kind);
		}
		return switch (kind) {
			case LONG -> longValue();
			case INT -> intValue();
			case DOUBLE -> doubleValue();
			case FLOAT -> floatValue();
			case BOOLEAN -> String.valueOf(this.random.nextBoolean());
			case STRING -> string();
			case POJO -> pojo(depth);
			case MAP -> map(depth);
			case UNTYPED -> untyped(depth);
		};
	}

	private String wrongType(Kind kind) {
		int choice = this.random.nextInt(this.arraysAllowedAsWrongType ? 12 : 10);
		return switch (choice) {
			case 0 -> string();
			case 1 -> "\"" + this.random.nextInt(1000) + "\"";
			case 2 -> (kind == Kind.BOOLEAN ? "\"true\"" : "\"\"");
			case 3 -> String.valueOf(this.random.nextBoolean());
			case 4 -> (kind == Kind.STRING ? longValue() : doubleValue());
			case 5 -> this.random.nextInt(3) + "." + this.random.nextInt(10);
			case 6 -> "{}";
			case 7 -> map(2);
			case 8 -> (kind == Kind.POJO ? "\"" + pick(LEVELS) + "\"" : pojo(2));
			case 9 -> pick("\"NOPE\"", "\"low\"", "1", "9223372036854775808", "1e400", "\"1e3\"", "\" 12\"");
			case 10 -> "[]";
			default -> arrayOf(1 + this.random.nextInt(3), () -> untyped(2));
		};
	}

	private String pojo(int depth) {
		StringBuilder json = new StringBuilder("{");
		List<String> fields = new ArrayList<>(Arrays.asList(POJO_FIELDS));
		Collections.shuffle(fields, this.random);
		int count = this.random.nextInt(fields.size() + 1);
		List<String> members = new ArrayList<>();
		for (String field : fields.subList(0, count)) {
			String value = pojoField(field, depth);
			if (value != null) {
				members.add(key(field) + ":" + ws() + value);
			}
		}
		if (chance(0.2)) {
			members.add(this.random.nextInt(members.size() + 1),
					stringLiteral("unknown" + this.random.nextInt(3)) + ":" + ws() + untyped(depth + 1));
		}
		if (chance(0.05) && !members.isEmpty()) {
			members.add(members.get(this.random.nextInt(members.size())));
		}
		return json.append(ws()).append(String.join(ws() + "," + ws(), members)).append(ws()).append('}').toString();
	}

	private @Nullable String pojoField(String field, int depth) {
		boolean nullable = !(field.equals("id") || field.equals("rank") || field.equals("score")
				|| field.equals("ratio"));
		if (chance(nullable ? 0.1 : this.nullRate / 4)) {
			return "null";
		}
		if (chance(this.wrongTypeRate)) {
			return wrongType(Kind.STRING);
		}
		return switch (field) {
			case "name" -> string();
			case "id" -> longValue();
			case "rank" -> intValue();
			case "count" -> intValue();
			case "score" -> doubleValue();
			case "ratio" -> floatValue();
			case "flag" -> String.valueOf(this.random.nextBoolean());
			case "level" -> "\"" + pick(LEVELS) + "\"";
			case "tags" -> arrayOf(this.random.nextInt(4), () -> element(Kind.STRING, depth + 1));
			case "values" -> arrayOf(this.random.nextInt(4), () -> element(Kind.LONG, depth + 1));
			case "attributes" -> map(depth + 1);
			case "child" -> (depth < 2 ? pojo(depth + 1) : null);
			default -> throw new IllegalStateException(field);
		};
	}

	/** A property name, sometimes spelled with a {@code \\u} escape. */
	private String key(String name) {
		if (chance(this.escapeRate / 5)) {
			int at = this.random.nextInt(name.length());
			return "\"" + name.substring(0, at) + String.format("\\u%04x", (int) name.charAt(at))
					+ name.substring(at + 1) + "\"";
		}
		return "\"" + name + "\"";
	}

	private String map(int depth) {
		int count = (depth > 3 ? 0 : this.random.nextInt(Math.min(this.maxElements, 6) + 1));
		List<String> members = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String key = (chance(0.3) ? string(this.surrogateEscapesInNames)
					: stringLiteral("k" + this.random.nextInt(20)));
			members.add(key + ws() + ":" + ws() + untyped(depth + 1));
		}
		return "{" + ws() + String.join(ws() + "," + ws(), members) + ws() + "}";
	}

	private String untyped(int depth) {
		int choice = this.random.nextInt(depth > 3 ? 7 : 10);
		return switch (choice) {
			case 0 -> "null";
			case 1 -> String.valueOf(this.random.nextBoolean());
			case 2 -> intValue();
			case 3 -> longValue();
			case 4 -> doubleValue();
			case 5 -> bigInteger();
			case 6 -> string();
			case 7 -> map(depth + 1);
			case 8 -> "[" + ws() + "]";
			default -> arrayOf(this.random.nextInt(4), () -> untyped(depth + 1));
		};
	}

	private String arrayOf(int count, Supplier<String> element) {
		StringBuilder json = new StringBuilder("[").append(ws());
		for (int i = 0; i < count; i++) {
			if (i > 0) {
				json.append(ws()).append(',').append(ws());
			}
			json.append(element.get());
		}
		return json.append(ws()).append(']').toString();
	}

	// Scalars

	private String longValue() {
		return switch (this.random.nextInt(8)) {
			case 0, 1 -> String.valueOf(this.random.nextInt(2001) - 1000);
			case 2, 3 -> String.valueOf(this.random.nextLong());
			case 4 -> String.valueOf(this.random.nextLong() >> this.random.nextInt(64));
			case 5 -> pick("9223372036854775807", "-9223372036854775808", "-0", "0", "2147483648", "-2147483649",
					"4294967296", "1000000000000000000");
			default -> String.valueOf(this.random.nextInt());
		};
	}

	private String intValue() {
		return switch (this.random.nextInt(6)) {
			case 0, 1 -> String.valueOf(this.random.nextInt(2001) - 1000);
			case 2 -> pick("2147483647", "-2147483648", "-0", "0", "65536");
			case 3 -> String.valueOf(this.random.nextInt() >> this.random.nextInt(32));
			default -> String.valueOf(this.random.nextInt());
		};
	}

	private String bigInteger() {
		BigInteger big = new BigInteger(64 + this.random.nextInt(200), this.random);
		return (this.random.nextBoolean() ? big.negate() : big).toString();
	}

	private String doubleValue() {
		return switch (this.random.nextInt(10)) {
			case 0 -> pick(SPECIAL_DOUBLES);
			case 1 -> Double.toString(randomFiniteDouble());
			case 2 -> String.valueOf((this.random.nextDouble() - 0.5) * Math.pow(10, this.random.nextInt(12)));
			case 3 -> decimalLiteral(1 + this.random.nextInt(25), 330);
			case 4 -> doubleHalfway();
			case 5 -> String.valueOf(this.random.nextInt(2001) - 1000);
			case 6 -> exponentLiteral();
			case 7 -> String.valueOf(this.random.nextLong());
			default -> decimalLiteral(1 + this.random.nextInt(17), 20);
		};
	}

	private String floatValue() {
		return switch (this.random.nextInt(8)) {
			case 0 -> pick(SPECIAL_FLOATS);
			case 1 -> Float.toString(randomFiniteFloat());
			case 2 -> floatHalfway();
			case 3 -> decimalLiteral(1 + this.random.nextInt(12), 40);
			case 4 -> String.valueOf(this.random.nextInt(2001) - 1000);
			case 5 -> exponentLiteral();
			default -> String.valueOf((float) ((this.random.nextDouble() - 0.5) * 1000));
		};
	}

	private double randomFiniteDouble() {
		double value;
		do {
			value = Double.longBitsToDouble(this.random.nextLong());
		}
		while (!Double.isFinite(value));
		return value;
	}

	private float randomFiniteFloat() {
		float value;
		do {
			value = Float.intBitsToFloat(this.random.nextInt());
		}
		while (!Float.isFinite(value));
		return value;
	}

	/** Like {@code 1e10}, {@code -2.5E-3}, {@code 7E+03}. */
	private String exponentLiteral() {
		StringBuilder json = new StringBuilder();
		if (this.random.nextBoolean()) {
			json.append('-');
		}
		json.append(1 + this.random.nextInt(9));
		if (this.random.nextBoolean()) {
			json.append('.').append(this.random.nextInt(1000));
		}
		json.append(this.random.nextBoolean() ? 'e' : 'E').append(pick("", "+", "-"));
		json.append(pick("", "0")).append(this.random.nextInt(40));
		return json.toString();
	}

	/** Random digits, an optional fraction and exponent, the exponent within +/- the given bound. */
	private String decimalLiteral(int digits, int exponentBound) {
		StringBuilder json = new StringBuilder();
		if (this.random.nextBoolean()) {
			json.append('-');
		}
		StringBuilder mantissa = new StringBuilder();
		for (int i = 0; i < digits; i++) {
			mantissa.append(this.random.nextInt(10));
		}
		String trimmed = mantissa.toString().replaceFirst("^0+(?=.)", "");
		int point = this.random.nextInt(trimmed.length() + 1);
		if (point == 0 || point == trimmed.length()) {
			json.append(trimmed);
		}
		else {
			json.append(trimmed, 0, point).append('.').append(trimmed.substring(point));
		}
		if (this.random.nextBoolean()) {
			json.append(this.random.nextBoolean() ? 'e' : 'E')
				.append(this.random.nextInt(2 * exponentBound + 1) - exponentBound);
		}
		return json.toString();
	}

	/** The exact midpoint between two adjacent doubles, or a hair either side of it. */
	private String doubleHalfway() {
		double low = Math.abs(randomFiniteDouble()) % 1e20;
		if (low < 1e-20) {
			low = this.random.nextDouble();
		}
		BigDecimal middle = new BigDecimal(low).add(new BigDecimal(Math.nextUp(low))).divide(BigDecimal.valueOf(2));
		return nudge(middle);
	}

	/**
	 * The exact midpoint between two adjacent floats, or a hair either side of it: parsed
	 * as a double first and then narrowed, the hair is lost and the value rounds wrong.
	 */
	private String floatHalfway() {
		float low = Math.abs(randomFiniteFloat()) % 1e10f;
		if (low < 1e-10f) {
			low = this.random.nextFloat();
		}
		BigDecimal middle = new BigDecimal(low).add(new BigDecimal(Math.nextUp(low))).divide(BigDecimal.valueOf(2));
		return nudge(middle);
	}

	private String nudge(BigDecimal middle) {
		BigDecimal hair = BigDecimal.ONE.movePointLeft(middle.scale() + 5 + this.random.nextInt(20));
		BigDecimal value = switch (this.random.nextInt(3)) {
			case 0 -> middle;
			case 1 -> middle.add(hair);
			default -> middle.subtract(hair);
		};
		String text = (this.random.nextBoolean() ? value.toPlainString() : value.toString());
		return (this.random.nextBoolean() ? "-" + text : text);
	}

	// Strings

	/** A JSON string literal with escapes and non-ASCII text. */
	String string() {
		return string(true);
	}

	private String string(boolean surrogateEscapes) {
		int length = (chance(0.05) ? 100 + this.random.nextInt(300) : this.random.nextInt(12));
		StringBuilder json = new StringBuilder("\"");
		for (int i = 0; i < length; i++) {
			if (chance(this.escapeRate)) {
				json.append(escape(surrogateEscapes));
			}
			else if (chance(this.nonAsciiRate)) {
				json.append(switch (this.random.nextInt(3)) {
					case 0 -> pick(TWO_BYTE);
					case 1 -> pick(THREE_BYTE);
					default -> (this.random.nextBoolean() ? pick(FOUR_BYTE) : randomSupplementary());
				});
			}
			else {
				char c = (char) (' ' + this.random.nextInt(95));
				json.append((c == '"' || c == '\\') ? 'q' : c);
			}
		}
		return json.append('"').toString();
	}

	private String escape(boolean surrogates) {
		return switch (this.random.nextInt(surrogates ? 6 : 5)) {
			case 0, 1 -> pick(SIMPLE_ESCAPES);
			case 2 -> unicodeEscape(1 + this.random.nextInt(0xD7FF));
			case 3 -> {
				if (!surrogates) {
					yield unicodeEscape(0xE000 + this.random.nextInt(0x2000));
				}
				String pair = new String(Character.toChars(0x10000 + this.random.nextInt(0x100000)));
				yield unicodeEscape(pair.charAt(0)) + unicodeEscape(pair.charAt(1));
			}
			case 4 -> unicodeEscape(pick('\u0000', '\u001f', '\u007f', '\u00e9', '\u20ac', '\ufeff', '\uffff',
					'"', '\\', '/'));
			default -> (this.random.nextInt(4) == 0 ? unicodeEscape(0xD800 + this.random.nextInt(0x800))
					: unicodeEscape(0xE000 + this.random.nextInt(0x2000)));
		};
	}

	private String unicodeEscape(int c) {
		String hex = String.format("%04x", c);
		return "\\u" + (this.random.nextBoolean() ? hex : hex.toUpperCase());
	}

	private String randomSupplementary() {
		return new String(Character.toChars(0x10000 + this.random.nextInt(0x100000)));
	}

	private static String stringLiteral(String plain) {
		return "\"" + plain + "\"";
	}

	private String ws() {
		if (!chance(this.whitespaceRate)) {
			return "";
		}
		StringBuilder ws = new StringBuilder();
		int count = 1 + this.random.nextInt(3);
		for (int i = 0; i < count; i++) {
			ws.append(pick(" ", " ", "\t", "\n", "\r\n", "\r"));
		}
		return ws.toString();
	}

	// Malformed variants

	/** Damage the given valid body in the given way. */
	byte[] damage(byte[] body, Damage damage) {
		Structure structure = Structure.scan(body);
		return switch (damage) {
			case TRUNCATED -> Arrays.copyOf(body, (body.length == 0 ? 0 : this.random.nextInt(body.length)));
			case TRAILING_GARBAGE -> concat(body, bytes(ws() + pick(GARBAGE)));
			case LEADING_GARBAGE -> concat(bytes(pick(GARBAGE) + ws()), body);
			case EXTRA_COMMA -> chance(0.3) ? commaBeforeTheEndThenAValue(body, structure)
					: extraComma(body, structure);
			case BAD_NUMBER -> replaceOrInsert(body, structure.numbers, bytes(pick(BAD_NUMBERS)), structure);
			case BAD_LITERAL -> replaceOrInsert(body, structure.literals, bytes(pick(BAD_LITERALS)), structure);
			case UNBALANCED -> unbalanced(body, structure);
			case INVALID_UTF8 -> insertIntoString(body, structure, pick(INVALID_UTF8));
			case BAD_STRING -> (chance(0.1) ? unterminatedString(body, structure)
					: insertIntoString(body, structure, bytes(pick(BAD_STRING_PARTS))));
			case BYTE_ORDER_MARK -> byteOrderMark(body, structure);
			case FLIPPED_BITS -> flipBits(body);
			case INSERTED_BYTES -> insertBytes(body);
			case DELETED_BYTES -> deleteBytes(body);
			case DEEP_NESTING -> insertAsElement(body, structure, deeplyNested());
			case HUGE_NUMBER -> replaceOrInsert(body, structure.numbers, hugeNumber(), structure);
			case LONG_STRING -> replaceOrInsert(body, structure.strings, longString(), structure);
		};
	}

	private byte[] flipBits(byte[] body) {
		byte[] flipped = body.clone();
		int flips = 1 + this.random.nextInt(3);
		for (int i = 0; i < flips && flipped.length > 0; i++) {
			flipped[this.random.nextInt(flipped.length)] ^= (byte) (1 << this.random.nextInt(8));
		}
		return flipped;
	}

	private byte[] insertBytes(byte[] body) {
		byte[] result = body;
		int inserts = 1 + this.random.nextInt(3);
		for (int i = 0; i < inserts; i++) {
			byte b = (chance(0.5) ? (byte) (char) pick('\0', '[', ']', '{', '}', ',', ':', '"', '\\', '-', '.', 'e', (char) 0xC3,
					(char) 0x80) : (byte) this.random.nextInt(256));
			result = splice(result, this.random.nextInt(result.length + 1), 0, new byte[] { b });
		}
		return result;
	}

	private byte[] deleteBytes(byte[] body) {
		byte[] result = body;
		int deletes = 1 + this.random.nextInt(3);
		for (int i = 0; i < deletes && result.length > 0; i++) {
			int at = this.random.nextInt(result.length);
			result = splice(result, at, Math.min(1 + this.random.nextInt(3), result.length - at), new byte[0]);
		}
		return result;
	}

	private byte[] deeplyNested() {
		int depth = pick(50, 499, 500, 501, 1000, 3000);
		boolean arrays = chance(0.5);
		StringBuilder nested = new StringBuilder();
		for (int i = 0; i < depth; i++) {
			nested.append(arrays ? "[" : "{\"child\":");
		}
		nested.append('1');
		for (int i = 0; i < depth; i++) {
			nested.append(arrays ? ']' : '}');
		}
		return bytes(nested.toString());
	}

	private byte[] hugeNumber() {
		int digits = pick(19, 20, 999, 1000, 1001, 5000);
		StringBuilder number = new StringBuilder(chance(0.3) ? "-" : "");
		number.append((char) ('1' + this.random.nextInt(9)));
		for (int i = 1; i < digits; i++) {
			number.append((char) ('0' + this.random.nextInt(10)));
		}
		if (chance(0.3)) {
			number.append(".5e").append(pick("10", "-400", "400", "9999999999"));
		}
		return bytes(number.toString());
	}

	private byte[] longString() {
		int length = pick(10_000, 70_000);
		StringBuilder text = new StringBuilder(length + 2).append('"');
		for (int i = 0; i < length; i++) {
			text.append((char) ('a' + this.random.nextInt(26)));
		}
		return bytes(text.append('"').toString());
	}

	/** A UTF-8 byte order mark in front, where JSON allows one, or somewhere else. */
	private byte[] byteOrderMark(byte[] body, Structure structure) {
		byte[] mark = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };
		List<Integer> places = new ArrayList<>(structure.commas);
		places.addAll(structure.openers);
		places.addAll(structure.closers);
		if (chance(0.5) || places.isEmpty()) {
			return concat(mark, body);
		}
		return splice(body, pick(places) + (chance(0.5) ? 1 : 0), 0, mark);
	}

	private byte[] extraComma(byte[] body, Structure structure) {
		int choice = this.random.nextInt(5);
		if (choice == 0 && !structure.commas.isEmpty()) {
			int at = pick(structure.commas);
			return splice(body, at, 0, bytes(pick(",", ", ,", ",,")));
		}
		if (choice == 1 && !structure.commas.isEmpty()) {
			return splice(body, pick(structure.commas), 1, bytes(pick(" ", ":", "")));
		}
		if (choice == 2 && !structure.colons.isEmpty()) {
			return splice(body, pick(structure.colons), 1, bytes(","));
		}
		if (choice == 3 && !structure.closers.isEmpty()) {
			return splice(body, pick(structure.closers), 0, bytes(pick(",", " ,", ",\n")));
		}
		if (!structure.openers.isEmpty()) {
			return splice(body, pick(structure.openers) + 1, 0, bytes(pick(",", ", ")));
		}
		return concat(body, bytes(","));
	}

	/**
	 * A comma before the body's last closing bracket, and a value after it: the end of the
	 * array is then not the end of the body, as in a stream of several.
	 */
	private byte[] commaBeforeTheEndThenAValue(byte[] body, Structure structure) {
		byte[] comma = structure.closers.isEmpty() ? body
				: splice(body, structure.closers.get(structure.closers.size() - 1), 0, bytes(pick(",", ", ", " ,")));
		return concat(comma, bytes(" " + pick(NEXT_VALUES)));
	}

	private byte[] unbalanced(byte[] body, Structure structure) {
		List<Integer> brackets = new ArrayList<>(structure.openers);
		brackets.addAll(structure.closers);
		int choice = this.random.nextInt(5);
		if (choice == 0 && !brackets.isEmpty()) {
			return splice(body, pick(brackets), 1, new byte[0]);
		}
		if (choice == 1 && !brackets.isEmpty()) {
			int at = pick(brackets);
			return splice(body, at, 1, bytes(switch (body[at]) {
				case '[' -> "{";
				case '{' -> "[";
				case ']' -> "}";
				default -> "]";
			}));
		}
		if (choice == 2 && !brackets.isEmpty()) {
			return splice(body, pick(brackets), 0, bytes(pick("[", "{", "]", "}")));
		}
		if (choice == 3) {
			return concat(body, bytes(pick("]", "}", "]]", "}]")));
		}
		return concat(bytes(pick("[", "{", "[[")), body);
	}

	private byte[] replaceOrInsert(byte[] body, List<int[]> spans, byte[] replacement, Structure structure) {
		if (!spans.isEmpty()) {
			int[] span = pick(spans);
			return splice(body, span[0], span[1] - span[0], replacement);
		}
		return insertAsElement(body, structure, replacement);
	}

	private byte[] insertIntoString(byte[] body, Structure structure, byte[] bad) {
		if (structure.strings.isEmpty()) {
			return insertAsElement(body, structure, concat(concat(bytes("\"a"), bad), bytes("b\"")));
		}
		int[] span = pick(structure.strings);
		int at = span[0] + 1 + this.random.nextInt(span[1] - span[0] - 1);
		while (at > span[0] + 1 && (body[at] & 0xC0) == 0x80) {
			at--;
		}
		return splice(body, at, 0, bad);
	}

	private byte[] unterminatedString(byte[] body, Structure structure) {
		if (structure.strings.isEmpty()) {
			return insertAsElement(body, structure, bytes("\"abc"));
		}
		int[] span = pick(structure.strings);
		return splice(body, span[1] - 1, 1, new byte[0]);
	}

	private byte[] insertAsElement(byte[] body, Structure structure, byte[] element) {
		for (int opener : structure.openers) {
			if (body[opener] == '[') {
				boolean empty = structure.closers.contains(opener + 1);
				return splice(body, opener + 1, 0, (empty ? element : concat(element, bytes(","))));
			}
		}
		return concat(element, body);
	}

	// Chunks

	/** Cut the body into random chunks, down to single bytes and into UTF-8 sequences. */
	List<byte[]> chunks(byte[] body) {
		TreeSet<Integer> cuts = new TreeSet<>();
		int length = body.length;
		switch (this.random.nextInt(7)) {
			case 0 -> {
				// whole body in one buffer
			}
			case 1 -> addRandomCuts(cuts, length,
					1 + this.random.nextInt(Math.max(1, Math.min(MAX_CHUNKS, length / 4))));
			case 2 -> {
				int step = Math.max(1, length / MAX_CHUNKS);
				for (int i = step; i < length; i += step) {
					cuts.add(i);
				}
			}
			case 3 -> {
				int bound = Math.max(8, 2 * length / MAX_CHUNKS);
				for (int i = 1 + this.random.nextInt(bound); i < length; i += 1 + this.random.nextInt(bound)) {
					cuts.add(i);
				}
			}
			case 4 -> {
				for (int i = 1; i < length; i++) {
					if ((body[i] & 0xC0) == 0x80 && chance(0.7) && cuts.size() < MAX_CHUNKS) {
						cuts.add(i);
					}
				}
				addRandomCuts(cuts, length, 1 + this.random.nextInt(3));
			}
			case 5 -> addRandomCuts(cuts, length, 1);
			default -> addRandomCuts(cuts, length, 1 + this.random.nextInt(Math.max(1, length / 16 + 1)));
		}
		List<byte[]> chunks = new ArrayList<>();
		boolean empties = chance(0.05);
		int from = 0;
		for (int cut : cuts) {
			chunks.add(Arrays.copyOfRange(body, from, cut));
			if (empties && chance(0.2)) {
				chunks.add(new byte[0]);
			}
			from = cut;
		}
		if (from < length || chunks.isEmpty()) {
			chunks.add(Arrays.copyOfRange(body, from, length));
		}
		return chunks;
	}

	private void addRandomCuts(TreeSet<Integer> cuts, int length, int count) {
		if (length < 2) {
			return;
		}
		for (int i = 0; i < count; i++) {
			cuts.add(1 + this.random.nextInt(length - 1));
		}
	}

	// Helpers

	private boolean chance(double probability) {
		return probability > 0 && this.random.nextDouble() < probability;
	}

	@SafeVarargs
	private <T> T pick(T... choices) {
		return choices[this.random.nextInt(choices.length)];
	}

	private int pickInt(int... choices) {
		return choices[this.random.nextInt(choices.length)];
	}

	private double pickRate(double... choices) {
		return choices[this.random.nextInt(choices.length)];
	}

	private <T> T pick(List<T> choices) {
		return choices.get(this.random.nextInt(choices.size()));
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] concat(byte[] first, byte[] second) {
		byte[] result = Arrays.copyOf(first, first.length + second.length);
		System.arraycopy(second, 0, result, first.length, second.length);
		return result;
	}

	private static byte[] splice(byte[] body, int at, int remove, byte[] insert) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + insert.length);
		out.write(body, 0, at);
		out.write(insert, 0, insert.length);
		out.write(body, at + remove, body.length - at - remove);
		return out.toByteArray();
	}

	/** Render bytes as a Java string literal, non-ASCII and control bytes as escapes. */
	static String printable(byte[] body) {
		StringBuilder text = new StringBuilder("\"");
		for (byte b : body) {
			int c = b & 0xFF;
			switch (c) {
				case '"' -> text.append("\\\"");
				case '\\' -> text.append("\\\\");
				case '\n' -> text.append("\\n");
				case '\r' -> text.append("\\r");
				case '\t' -> text.append("\\t");
				default -> text.append((c >= 0x20 && c < 0x7F) ? String.valueOf((char) c)
						: String.format("\\x%02X", c));
			}
		}
		return text.append('"').toString();
	}

	/** Whether a top-level array holds an array directly, which stock's Flux tokenizer mishandles. */
	static boolean hasArrayInTopLevelArray(byte[] body) {
		int depth = 0;
		boolean inString = false;
		boolean topLevelArray = false;
		for (int i = 0; i < body.length; i++) {
			byte b = body[i];
			if (inString) {
				if (b == '\\') {
					i++;
				}
				else if (b == '"') {
					inString = false;
				}
			}
			else if (b == '"') {
				inString = true;
			}
			else if (b == '[' || b == '{') {
				if (depth == 0) {
					topLevelArray = (b == '[');
				}
				else if (depth == 1 && topLevelArray && b == '[') {
					return true;
				}
				depth++;
			}
			else if (b == ']' || b == '}') {
				depth = Math.max(0, depth - 1);
			}
		}
		return false;
	}

	/** Where the tokens of a body are, as far as a lenient scan can tell. */
	private static final class Structure {

		final List<Integer> openers = new ArrayList<>();

		final List<Integer> closers = new ArrayList<>();

		final List<Integer> commas = new ArrayList<>();

		final List<Integer> colons = new ArrayList<>();

		final List<int[]> strings = new ArrayList<>();

		final List<int[]> numbers = new ArrayList<>();

		final List<int[]> literals = new ArrayList<>();

		static Structure scan(byte[] body) {
			Structure structure = new Structure();
			int i = 0;
			while (i < body.length) {
				byte b = body[i];
				if (b == '"') {
					int start = i++;
					while (i < body.length && body[i] != '"') {
						i += (body[i] == '\\' ? 2 : 1);
					}
					i = Math.min(i + 1, body.length);
					if (i - start >= 2 && body[i - 1] == '"') {
						structure.strings.add(new int[] { start, i });
					}
				}
				else if (b == '-' || (b >= '0' && b <= '9')) {
					int start = i;
					while (i < body.length && "+-.eE0123456789".indexOf(body[i]) >= 0) {
						i++;
					}
					structure.numbers.add(new int[] { start, i });
				}
				else if (b >= 'a' && b <= 'z') {
					int start = i;
					while (i < body.length && body[i] >= 'a' && body[i] <= 'z') {
						i++;
					}
					structure.literals.add(new int[] { start, i });
				}
				else {
					switch (b) {
						case '[', '{' -> structure.openers.add(i);
						case ']', '}' -> structure.closers.add(i);
						case ',' -> structure.commas.add(i);
						case ':' -> structure.colons.add(i);
						default -> {
						}
					}
					i++;
				}
			}
			return structure;
		}

	}

}
