package io.fastpath.multipart;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Random {@code multipart/form-data} bodies as browsers and clients send them, with the
 * variations Spring's parser accepts: preamble and epilogue, transport padding after a
 * boundary, header names in any case, spaces after the colon, extra and colon-less header
 * lines, text fields in several charsets, files and typed parts with bytes that look like
 * a boundary (a delimiter's prefix, the boundary without its CRLF), empty parts.
 * {@link #mutate} breaks a body the ways a sender or a network can. {@link Hostility}
 * makes bodies that a delimiter search may read over and over, the fuzz's and the work
 * tests' ({@link #hostile}).
 */
final class RandomMultipart {

	private static final String BOUNDARY_CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?";

	private static final String TEXT = "abcxyz019 -=&%+\r\n\"é€😀";

	private static final Charset[] CHARSETS = { StandardCharsets.UTF_8, StandardCharsets.ISO_8859_1,
			StandardCharsets.UTF_16 };

	private RandomMultipart() {
	}

	/**
	 * A multipart body and its boundary.
	 * @param boundary the boundary
	 * @param body the body
	 */
	record Body(String boundary, byte[] body) {

		String text() {
			return new String(this.body, StandardCharsets.ISO_8859_1);
		}

	}

	static Body valid(Random random, int maxFileSize) {
		String boundary = boundary(random);
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		boolean preamble = random.nextInt(4) == 0;
		if (preamble) {
			write(out, avoiding(random, "ab \r\n-", 1 + random.nextInt(40), "--" + boundary));
			write(out, "\r\n");
		}
		int parts = random.nextInt(7);
		for (int i = 0; i < parts; i++) {
			write(out, (i == 0) ? "--" + boundary : "\r\n--" + boundary);
			if (random.nextInt(8) == 0) {
				write(out, " \t ".substring(0, 1 + random.nextInt(3)));
			}
			write(out, "\r\n");
			part(random, out, "f" + random.nextInt(5), boundary, maxFileSize);
		}
		if (parts == 0 && !preamble && random.nextBoolean()) {
			write(out, "--" + boundary + "--");
		}
		else {
			write(out, ((parts == 0) ? "--" : "\r\n--") + boundary + "--");
		}
		switch (random.nextInt(4)) {
			case 0 -> write(out, "\r\n");
			case 1 -> write(out, "\r\nepilogue --" + boundary + "\r\n");
			default -> {
			}
		}
		return new Body(boundary, out.toByteArray());
	}

	private static void part(Random random, ByteArrayOutputStream out, String name, String boundary,
			int maxFileSize) {
		int kind = random.nextInt(4);
		String disposition = "form-data; name=\"" + name + "\"";
		String contentType = null;
		Charset charset = StandardCharsets.UTF_8;
		switch (kind) {
			case 0 -> {
				// a text field, perhaps of another charset
				if (random.nextInt(3) == 0) {
					charset = CHARSETS[random.nextInt(CHARSETS.length)];
					contentType = "text/plain; charset=" + charset.name();
				}
			}
			case 1 -> {
				disposition += "; filename=\"file" + random.nextInt(3) + ".bin\"";
				contentType = random.nextBoolean() ? "application/octet-stream" : null;
			}
			case 2 -> contentType = "application/json";
			default -> {
				disposition += "; filename=\"notes.txt\"";
				contentType = "text/plain";
			}
		}
		header(random, out, "Content-Disposition", disposition);
		if (contentType != null) {
			header(random, out, "Content-Type", contentType);
		}
		if (random.nextInt(6) == 0) {
			header(random, out, "X-Extra", "value " + random.nextInt(100));
		}
		if (random.nextInt(12) == 0) {
			write(out, "a line without a colon\r\n");
		}
		write(out, "\r\n");
		if (kind == 0) {
			write(out, avoiding(random, TEXT, random.nextInt(30), "\r\n--" + boundary), charset);
		}
		else {
			out.writeBytes(content(random, boundary, random.nextInt(maxFileSize + 1)));
		}
	}

	private static void header(Random random, ByteArrayOutputStream out, String name, String value) {
		String shown = switch (random.nextInt(4)) {
			case 0 -> name.toLowerCase();
			case 1 -> name.toUpperCase();
			default -> name;
		};
		write(out, shown + ":" + "  ".substring(0, random.nextInt(3)) + value + "\r\n");
	}

	/** Random bytes with boundary look-alikes: a delimiter's prefixes, the boundary alone. */
	static byte[] content(Random random, String boundary, int size) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		String delimiter = "\r\n--" + boundary;
		while (out.size() < size) {
			switch (random.nextInt(6)) {
				case 0 -> write(out, delimiter.substring(0, 1 + random.nextInt(delimiter.length() - 1)));
				case 1 -> write(out, "--" + boundary);
				case 2 -> write(out, "\r\n\r\n");
				default -> {
					byte[] bytes = new byte[1 + random.nextInt(Math.max(1, size / 4))];
					random.nextBytes(bytes);
					out.writeBytes(bytes);
				}
			}
		}
		byte[] bytes = Arrays.copyOf(out.toByteArray(), size);
		// cut at a random length, the content may end in a delimiter's prefix: put it back whole
		String text = new String(bytes, StandardCharsets.ISO_8859_1);
		return text.contains(delimiter) ? content(random, boundary + "", size) : bytes;
	}

	private static String boundary(Random random) {
		if (random.nextInt(4) == 0) {
			return "----WebKitFormBoundary" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
		}
		StringBuilder boundary = new StringBuilder();
		for (int i = 1 + random.nextInt(70); i > 0; i--) {
			boundary.append(BOUNDARY_CHARS.charAt(random.nextInt(BOUNDARY_CHARS.length())));
		}
		return boundary.toString();
	}

	/** Random text from the alphabet that does not contain {@code forbidden}. */
	private static String avoiding(Random random, String alphabet, int length, String forbidden) {
		while (true) {
			StringBuilder text = new StringBuilder();
			for (int i = 0; i < length; i++) {
				text.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0,
						random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
			}
			if (!text.toString().contains(forbidden)) {
				return text.toString();
			}
		}
	}

	/**
	 * Break the body as a sender or a network can: cut it short, drop or damage its closing
	 * boundary, end headers with bare line feeds, flip, insert or remove bytes.
	 */
	static byte[] mutate(Random random, Body body) {
		byte[] bytes = body.body();
		String text = body.text();
		switch (random.nextInt(6)) {
			case 0 -> {
				return Arrays.copyOf(bytes, (bytes.length == 0) ? 0 : random.nextInt(bytes.length));
			}
			case 1 -> {
				int close = text.lastIndexOf("--" + body.boundary() + "--");
				return (close < 0) ? bytes : Arrays.copyOf(bytes, close + 2 + body.boundary().length());
			}
			case 2 -> {
				return text.replace("\r\n\r\n", "\n\n").getBytes(StandardCharsets.ISO_8859_1);
			}
			case 3 -> {
				byte[] result = bytes.clone();
				for (int i = 1 + random.nextInt(3); i > 0 && result.length > 0; i--) {
					result[random.nextInt(result.length)] ^= (byte) (1 << random.nextInt(8));
				}
				return result;
			}
			case 4 -> {
				byte[] likely = { '-', '\r', '\n', ':', '"', (byte) 0xFF };
				int at = random.nextInt(bytes.length + 1);
				byte[] result = new byte[bytes.length + 1];
				System.arraycopy(bytes, 0, result, 0, at);
				result[at] = likely[random.nextInt(likely.length)];
				System.arraycopy(bytes, at, result, at + 1, bytes.length - at);
				return result;
			}
			default -> {
				if (bytes.length == 0) {
					return bytes;
				}
				int at = random.nextInt(bytes.length);
				byte[] result = new byte[bytes.length - 1];
				System.arraycopy(bytes, 0, result, 0, at);
				System.arraycopy(bytes, at + 1, result, at, bytes.length - at - 1);
				return result;
			}
		}
	}

	/**
	 * A body made for a delimiter search to read its bytes over and over, with what a scan
	 * of it must find.
	 * @param body the body and its boundary
	 * @param parts how many parts it has
	 * @param lookAlikeEnds positions at which a buffer would end inside bytes that may start
	 * a delimiter (or, in the preamble, the first boundary), or right after such bytes
	 */
	record Hostile(Body body, int parts, List<Integer> lookAlikeEnds) {
	}

	/** Boundaries that are a repeated prefix of themselves, and random ones to compare. */
	enum BoundaryShape {

		/** Random characters. */
		RANDOM,

		/** {@code aaaa…}. */
		ONE_CHARACTER,

		/** {@code abab…}. */
		TWO_CHARACTERS,

		/** {@code ----…}: the first boundary, {@code --} and the boundary, too. */
		HYPHENS,

		/** A random word of up to five characters, over and over. */
		WORD,

		/** {@code ----…x}: the first boundary is hyphens but its last byte. */
		HYPHENS_THEN_ONE;

		/**
		 * A boundary of this shape.
		 * @param random the random to draw from
		 * @param length its length, at least 1
		 * @return the boundary
		 */
		String boundary(Random random, int length) {
			return switch (this) {
				case RANDOM -> randomBoundary(random, length);
				case ONE_CHARACTER -> repeat("a", length);
				case TWO_CHARACTERS -> repeat("ab", length);
				case HYPHENS -> repeat("-", length);
				case WORD -> repeat(randomBoundary(random, 1 + random.nextInt(5)), length);
				case HYPHENS_THEN_ONE -> repeat("-", length - 1)
						+ BOUNDARY_CHARS.replace("-", "").charAt(random.nextInt(BOUNDARY_CHARS.length() - 1));
			};
		}

	}

	/** The shapes of {@link Hostile} bodies, each aimed at a way a search can read bytes again. */
	enum Hostility {

		/**
		 * Content of one repeated byte or of the boundary's period, and a preamble of it: a
		 * search that compares backwards from the delimiter's last byte matches most of a
		 * periodic boundary at every position, and moves on by one.
		 */
		REPEATED_CONTENT {

			@Override
			Hostile body(Random random, int size, String boundary, int maxHeadersSize) {
				String unit = switch (random.nextInt(3)) {
					case 0 -> boundary.substring(boundary.length() - 1);
					case 1 -> boundary.substring(0, period(boundary));
					default -> "-";
				};
				Writer out = new Writer();
				if (!unit.contains("-")) {
					// without a hyphen, no first boundary in it: the preamble is searched whole
					out.repeat(unit, size / 4);
					out.write("\r\n");
				}
				int parts = 1 + random.nextInt(3);
				for (int i = 0; i < parts; i++) {
					out.write(((i == 0) ? "--" : "\r\n--") + boundary + "\r\n");
					out.write("Content-Disposition: form-data; name=\"f" + i + "\"; filename=\"f.bin\"\r\n\r\n");
					out.repeat(unit, size / parts);
				}
				out.write("\r\n--" + boundary + "--\r\n");
				return out.hostile(boundary, parts);
			}

		},

		/**
		 * Content of the delimiter's prefixes, mostly the delimiter without its last byte,
		 * over and over: every one is nearly a delimiter, and a buffer that ends in one holds
		 * it for the next.
		 */
		DELIMITER_PREFIXES {

			@Override
			Hostile body(Random random, int size, String boundary, int maxHeadersSize) {
				String delimiter = "\r\n--" + boundary;
				Writer out = new Writer();
				int parts = 1 + random.nextInt(2);
				for (int i = 0; i < parts; i++) {
					out.write(((i == 0) ? "--" : "\r\n--") + boundary + "\r\n");
					out.write("Content-Disposition: form-data; name=\"f" + i + "\"; filename=\"f.bin\"\r\n\r\n");
					for (int end = out.size() + size / parts; out.size() < end;) {
						int length = (random.nextInt(4) == 0) ? 1 + random.nextInt(delimiter.length() - 1)
								: delimiter.length() - 1;
						out.write(delimiter.substring(0, length));
						out.lookAlikeEnd();
					}
				}
				out.write("\r\n--" + boundary + "--\r\n");
				return out.hostile(boundary, parts);
			}

		},

		/**
		 * A preamble of the first boundary, {@code --boundary}, without its last byte, over
		 * and over, where the first boundary may overlap itself: under a boundary of hyphens
		 * but its last character, runs of hyphens, long ones that every position of is inside
		 * a first boundary that may come, and short ones ended by a line feed.
		 */
		SELF_OVERLAPPING_PREAMBLE {

			@Override
			Hostile body(Random random, int size, String boundary, int maxHeadersSize) {
				String nearlyFirst = "--" + boundary.substring(0, boundary.length() - 1);
				boolean hyphens = nearlyFirst.chars().allMatch((c) -> c == '-') && !boundary.endsWith("-");
				Writer out = new Writer();
				while (out.size() < size) {
					if (hyphens) {
						// no first boundary in hyphens alone, however many
						out.write(nearlyFirst.substring(0, 1 + random.nextInt(nearlyFirst.length())));
					}
					else {
						out.write(nearlyFirst);
					}
					out.lookAlikeEnd();
					if (!hyphens || random.nextBoolean()) {
						// a line feed: no first boundary across it, whatever the boundary
						out.write("\n");
						out.lookAlikeEnd();
					}
				}
				out.write("\r\n--" + boundary + "\r\n");
				out.write("Content-Disposition: form-data; name=\"f\"\r\n\r\nvalue");
				out.write("\r\n--" + boundary + "--");
				return out.hostile(boundary, 1);
			}

		},

		/**
		 * Part headers of lines without a colon up to the limit of headers, the
		 * disposition last: headers are read line by line, and the lines looked up by name.
		 */
		COLONLESS_HEADER_LINES {

			@Override
			Hostile body(Random random, int size, String boundary, int maxHeadersSize) {
				Writer out = new Writer();
				String disposition = "Content-Disposition: form-data; name=\"f\"\r\n\r\n";
				int parts = 0;
				do {
					out.write(((parts == 0) ? "--" : "\r\n--") + boundary + "\r\n");
					// the headers from the boundary line's CRLF on, as their limit counts them
					int headers = 2;
					while (headers + 5 + disposition.length() <= maxHeadersSize) {
						String line = avoiding(random, "abc xyz-;=\"", 1 + random.nextInt(3), "\r\n") + "\r\n";
						out.write(line);
						headers += line.length();
					}
					out.write(disposition);
					out.write("v" + parts);
					parts++;
				}
				while (out.size() < size);
				out.write("\r\n--" + boundary + "--\r\n");
				return out.hostile(boundary, parts);
			}

		},

		/** Thousands of tiny parts: a search that costs a delimiter's length at each finds them all. */
		TINY_PARTS {

			@Override
			Hostile body(Random random, int size, String boundary, int maxHeadersSize) {
				Writer out = new Writer();
				int parts = 0;
				do {
					out.write(((parts == 0) ? "--" : "\r\n--") + boundary + "\r\n");
					out.write("Content-Disposition: form-data; name=\"t\"\r\n\r\n");
					out.write("x-\r".substring(0, random.nextInt(4)));
					parts++;
				}
				while (out.size() < size);
				out.write("\r\n--" + boundary + "--\r\n");
				return out.hostile(boundary, parts);
			}

		};

		/**
		 * A body of this shape.
		 * @param random the random to draw from
		 * @param size about how many bytes the body has, at least
		 * @param boundary its boundary
		 * @param maxHeadersSize the limit of a part's headers the body keeps within
		 * @return the body
		 */
		abstract Hostile body(Random random, int size, String boundary, int maxHeadersSize);

	}

	/**
	 * A hostile body of any shape and boundary, the boundary short mostly: what the fuzz
	 * draws besides {@link #valid} bodies.
	 */
	static Hostile hostile(Random random, int size) {
		BoundaryShape[] boundaries = BoundaryShape.values();
		Hostility[] shapes = Hostility.values();
		int length = (random.nextInt(4) == 0) ? 1 + random.nextInt(300) : 1 + random.nextInt(70);
		String boundary = boundaries[random.nextInt(boundaries.length)].boundary(random, length);
		return shapes[random.nextInt(shapes.length)].body(random, size, boundary, 10 * 1024);
	}

	private static String randomBoundary(Random random, int length) {
		StringBuilder boundary = new StringBuilder();
		for (int i = 0; i < length; i++) {
			boundary.append(BOUNDARY_CHARS.charAt(random.nextInt(BOUNDARY_CHARS.length())));
		}
		return boundary.toString();
	}

	/** The unit repeated (and cut) to the given length. */
	private static String repeat(String unit, int length) {
		return unit.repeat(length / unit.length() + 1).substring(0, length);
	}

	/** The length of the shortest prefix the text is made of, repeated (and cut). */
	private static int period(String text) {
		for (int period = 1; period < text.length(); period++) {
			if (text.regionMatches(period, text, 0, text.length() - period)) {
				return period;
			}
		}
		return text.length();
	}

	/** Writes a body, and where look-alikes of its delimiter end in it. */
	private static final class Writer {

		private final ByteArrayOutputStream out = new ByteArrayOutputStream();

		private final List<Integer> lookAlikeEnds = new ArrayList<>();

		void write(String text) {
			RandomMultipart.write(this.out, text);
		}

		void repeat(String unit, int length) {
			write(RandomMultipart.repeat(unit, length));
		}

		void lookAlikeEnd() {
			this.lookAlikeEnds.add(this.out.size());
		}

		int size() {
			return this.out.size();
		}

		Hostile hostile(String boundary, int parts) {
			return new Hostile(new Body(boundary, this.out.toByteArray()), parts, List.copyOf(this.lookAlikeEnds));
		}

	}

	private static void write(ByteArrayOutputStream out, String text) {
		write(out, text, StandardCharsets.ISO_8859_1);
	}

	private static void write(ByteArrayOutputStream out, String text, Charset charset) {
		out.writeBytes(text.getBytes(charset));
	}

}
