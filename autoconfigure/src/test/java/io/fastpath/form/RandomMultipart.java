package io.fastpath.form;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

/**
 * Random {@code multipart/form-data} bodies as browsers and clients send them, with the
 * variations Spring's parser accepts: preamble and epilogue, transport padding after a
 * boundary, header names in any case, spaces after the colon, extra and colon-less header
 * lines, text fields in several charsets, files and typed parts with bytes that look like
 * a boundary (a delimiter's prefix, the boundary without its CRLF), empty parts.
 * {@link #mutate} breaks a body the ways a sender or a network can.
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

	private static void write(ByteArrayOutputStream out, String text) {
		write(out, text, StandardCharsets.ISO_8859_1);
	}

	private static void write(ByteArrayOutputStream out, String text, Charset charset) {
		out.writeBytes(text.getBytes(charset));
	}

}
