package io.fastpath.form;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Random form bodies, written as the text on the wire: fields with empty names and
 * values, {@code &&}, leading and trailing {@code &}, blanks and control characters
 * around fields, {@code =} inside values, {@code +}, {@code %20}, {@code %2B}, escaped and
 * raw characters of every width the charset can hold, fields without {@code =}. A
 * fraction of bodies can be damaged with a malformed escape.
 */
final class RandomForm {

	private static final String ASCII = "abcxyzABZ0129-_.*~!$'()[],;:/?@";

	private static final String LATIN1 = "éüßÿ¡§±µ÷\u00a0";

	private static final String WIDE = "€名値ŁΩ\u2028\uFFFD";

	private static final String ASTRAL = "😀𝄞";

	private static final String[] MALFORMED = { "%G1", "%", "%4", "%%", "%1G", "%-1", "%x0" };

	private RandomForm() {
	}

	/** A valid body for the charset. */
	static String valid(Random random, Charset charset) {
		StringBuilder body = new StringBuilder();
		int fields = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(random.nextBoolean() ? 6 : 40);
		if (random.nextInt(6) == 0) {
			body.append('&');
		}
		for (int i = 0; i < fields; i++) {
			if (i > 0) {
				body.append(random.nextInt(8) == 0 ? "&&" : "&");
			}
			blanks(random, body);
			int kind = random.nextInt(10);
			if (kind == 0) {
				text(random, charset, body, 1 + random.nextInt(6)); // no '=': a null value
			}
			else if (kind == 1) {
				body.append('=');
				text(random, charset, body, random.nextInt(6)); // empty name
			}
			else {
				text(random, charset, body, 1 + random.nextInt(8));
				body.append('=');
				text(random, charset, body, random.nextInt(kind == 2 ? 1 : 20));
				if (random.nextInt(10) == 0) {
					body.append('=');
					text(random, charset, body, random.nextInt(4));
				}
			}
			blanks(random, body);
		}
		if (random.nextInt(6) == 0) {
			body.append('&');
		}
		return body.toString();
	}

	/** A body with one malformed escape, which stock rejects as well. */
	static String malformed(Random random, Charset charset) {
		String body = valid(random, charset);
		String damage = MALFORMED[random.nextInt(MALFORMED.length)];
		if (damage.equals("%") || damage.equals("%4")) {
			// Incomplete only at the end of a field
			return body + "&x=" + damage;
		}
		int at = random.nextInt(body.length() + 1);
		if (at < body.length() && Character.isLowSurrogate(body.charAt(at))) {
			at--;
		}
		return body.substring(0, at) + damage + body.substring(at);
	}

	private static void blanks(Random random, StringBuilder body) {
		if (random.nextInt(6) == 0) {
			int count = 1 + random.nextInt(3);
			for (int i = 0; i < count; i++) {
				body.append(" \t\r\n\u0001\u001f".charAt(random.nextInt(6)));
			}
		}
	}

	private static void text(Random random, Charset charset, StringBuilder body, int length) {
		for (int i = 0; i < length; i++) {
			int kind = random.nextInt(12);
			switch (kind) {
				case 0 -> body.append('+');
				case 1 -> escape(random.nextBoolean() ? " " : "+", charset, body, random.nextBoolean());
				case 2 -> escape(random.nextBoolean() ? "&" : "=", charset, body, random.nextBoolean());
				case 3 -> body.append(' ');
				case 4 -> escape(character(random, charset), charset, body, random.nextBoolean());
				case 5 -> body.append(character(random, charset));
				default -> body.append(ASCII.charAt(random.nextInt(ASCII.length())));
			}
		}
	}

	private static String character(Random random, Charset charset) {
		boolean latin1Only = charset.equals(StandardCharsets.ISO_8859_1);
		int kind = random.nextInt(latin1Only ? 2 : 4);
		return switch (kind) {
			case 0 -> String.valueOf(ASCII.charAt(random.nextInt(ASCII.length())));
			case 1 -> String.valueOf(LATIN1.charAt(random.nextInt(LATIN1.length())));
			case 2 -> String.valueOf(WIDE.charAt(random.nextInt(WIDE.length())));
			default -> {
				int at = 2 * random.nextInt(ASTRAL.length() / 2);
				yield ASTRAL.substring(at, at + 2);
			}
		};
	}

	private static void escape(String character, Charset charset, StringBuilder body, boolean upperCase) {
		// URLDecoder decodes a run of escapes without a byte order mark: big-endian for UTF-16
		Charset escapeCharset = charset.equals(StandardCharsets.UTF_16) ? StandardCharsets.UTF_16BE : charset;
		for (byte b : character.getBytes(escapeCharset)) {
			String hex = String.format("%02X", b & 0xFF);
			body.append('%').append(upperCase ? hex : hex.toLowerCase());
		}
	}

}
