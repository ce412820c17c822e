package io.fastpath.form;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes one form name or value, given as a byte range that {@link FormParameters}
 * already checked for well-formed {@code %XX} escapes. The result is what stock
 * {@code URLDecoder.decode(text, charset)} returns for the same field: {@code +} is a
 * space, and each run of consecutive escapes is one byte sequence decoded with the
 * charset, separately from the literal text around it. The difference is that bytes the
 * charset cannot decode are reported instead of being replaced with U+FFFD, so that a
 * corrupted field is a client error rather than silently different text.
 *
 * @author Fastpath
 */
final class FormFieldDecoder {

	private FormFieldDecoder() {
	}

	/**
	 * Decode the bytes {@code [start, end)}.
	 * @param bytes the form body
	 * @param start the first byte
	 * @param end the byte after the last
	 * @param textCharset the charset of the literal (not escaped) bytes
	 * @param escapeCharset the charset of the escaped bytes
	 * @return the decoded text
	 * @throws CharacterCodingException if bytes are invalid in their charset
	 */
	static String decode(byte[] bytes, int start, int end, Charset textCharset, Charset escapeCharset)
			throws CharacterCodingException {

		return decode(bytes, start, end, textCharset, escapeCharset, CodingErrorAction.REPORT);
	}

	/**
	 * Decode the bytes {@code [start, end)} for display, as stock Spring would: bytes the
	 * charset cannot decode become U+FFFD.
	 * @param bytes the form body
	 * @param start the first byte
	 * @param end the byte after the last
	 * @param textCharset the charset of the literal (not escaped) bytes
	 * @param escapeCharset the charset of the escaped bytes
	 * @return the decoded text
	 */
	static String decodeForDisplay(byte[] bytes, int start, int end, Charset textCharset, Charset escapeCharset) {
		try {
			return decode(bytes, start, end, textCharset, escapeCharset, CodingErrorAction.REPLACE);
		}
		catch (CharacterCodingException ex) {
			throw new IllegalStateException("A replacing decoder reported an error", ex);
		}
	}

	private static String decode(byte[] bytes, int start, int end, Charset textCharset, Charset escapeCharset,
			CodingErrorAction onError) throws CharacterCodingException {

		StringBuilder text = new StringBuilder(end - start);
		byte[] escaped = null;
		int i = start;
		while (i < end) {
			byte b = bytes[i];
			if (b == '+') {
				text.append(' ');
				i++;
			}
			else if (b == '%') {
				if (escaped == null) {
					escaped = new byte[(end - i) / 3];
				}
				int count = 0;
				while (i < end && bytes[i] == '%') {
					escaped[count++] = (byte) ((hexValue(bytes[i + 1]) << 4) | hexValue(bytes[i + 2]));
					i += 3;
				}
				append(text, escaped, 0, count, escapeCharset, onError);
			}
			else {
				int runStart = i;
				while (i < end && bytes[i] != '+' && bytes[i] != '%') {
					i++;
				}
				append(text, bytes, runStart, i, textCharset, onError);
			}
		}
		return text.toString();
	}

	/**
	 * The value of a hexadecimal digit, or -1.
	 */
	static int hexValue(byte b) {
		if (b >= '0' && b <= '9') {
			return b - '0';
		}
		if (b >= 'A' && b <= 'F') {
			return b - 'A' + 10;
		}
		if (b >= 'a' && b <= 'f') {
			return b - 'a' + 10;
		}
		return -1;
	}

	private static void append(StringBuilder text, byte[] bytes, int start, int end, Charset charset,
			CodingErrorAction onError) throws CharacterCodingException {

		if (charset.equals(StandardCharsets.ISO_8859_1) || (isAsciiCompatible(charset) && isAscii(bytes, start, end))) {
			for (int i = start; i < end; i++) {
				text.append((char) (bytes[i] & 0xFF));
			}
			return;
		}
		// A decoder that reports errors, which the String constructors cannot be asked for
		CharBuffer chars = charset.newDecoder()
			.onMalformedInput(onError)
			.onUnmappableCharacter(onError)
			.decode(ByteBuffer.wrap(bytes, start, end - start));
		text.append(chars);
	}

	/**
	 * Whether the charset encodes ASCII characters as the same single bytes, and uses
	 * bytes below 0x80 for nothing else: then a form can be scanned as bytes.
	 */
	static boolean isAsciiCompatible(Charset charset) {
		return charset.equals(StandardCharsets.UTF_8) || charset.equals(StandardCharsets.ISO_8859_1)
				|| charset.equals(StandardCharsets.US_ASCII);
	}

	private static boolean isAscii(byte[] bytes, int start, int end) {
		for (int i = start; i < end; i++) {
			if (bytes[i] < 0) {
				return false;
			}
		}
		return true;
	}

}
