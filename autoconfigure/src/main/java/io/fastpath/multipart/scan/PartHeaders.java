package io.fastpath.multipart.scan;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import org.springframework.core.codec.DecodingException;
import org.springframework.http.ContentDisposition;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The headers of a part as they arrived, decoded once: what reading the part needs (its
 * {@code Content-Disposition}, parsed once, and its {@code Content-Type}) is looked up in
 * the text, and {@link HttpHeaders} are built only if asked for. Most parts are never
 * asked (a text field is read by name and value), and building them costs more than the
 * rest of the part. Headers that are only a text field's disposition as browsers send
 * it are not even decoded: they are kept as the field's name ({@link #of}). Lines are
 * read as Spring's {@code MultipartParser} reads them: separated by CRLF, a line without
 * a colon ignored, spaces after the colon skipped. Public for the readers of
 * {@code io.fastpath.multipart}, not an API for applications.
 *
 * @author Fastpath
 */
public final class PartHeaders {

	/**
	 * The start of a text field's headers as browsers send them, up to the name: the end
	 * of the boundary's line (the headers' first line, empty), then the disposition.
	 */
	private static final String FIELD_DISPOSITION = "\r\nContent-Disposition: form-data; name=\"";

	/** The end of such headers when the disposition is their only line. */
	private static final String FIELD_END = "\"\r\n\r\n";

	private static final byte[] FIELD_DISPOSITION_BYTES = FIELD_DISPOSITION.getBytes(StandardCharsets.US_ASCII);

	private static final byte[] FIELD_END_BYTES = FIELD_END.getBytes(StandardCharsets.US_ASCII);

	/**
	 * The headers decoded, or {@code null} for headers that are only the disposition of
	 * a text field of the browser's shape: their text is made from the name if asked for
	 * ({@link #text()}), which most parts never are, so they do without the String.
	 */
	private volatile @Nullable String text;

	/**
	 * The name of a text field whose disposition is of the shape browsers send
	 * ({@link #formFieldName(String)}), or {@code null}: its disposition is built only if asked
	 * for, most parts are asked for their name and whether they have a filename only.
	 */
	private final @Nullable String fieldName;

	/** Parsed when first asked for, as stock parses it: see {@link #disposition()}. */
	private volatile @Nullable ContentDisposition disposition;

	private @Nullable MediaType contentType;

	/** Whether {@link #contentType} was parsed: written after it, read before it. */
	private volatile boolean contentTypeParsed;

	private volatile @Nullable HttpHeaders headers;

	PartHeaders(String text) {
		this(text, formFieldName(text));
	}

	private PartHeaders(@Nullable String text, @Nullable String fieldName) {
		this.text = text;
		this.fieldName = fieldName;
	}

	/**
	 * The headers of the given bytes, decoded in the given charset: headers that are only
	 * {@code Content-Disposition: form-data; name="<name>"} with a printable ASCII name,
	 * as browsers send a text field, in an ASCII-compatible charset are kept as the name
	 * alone, their text made only if asked for (it reads the same).
	 * @param bytes the bytes of the headers, from the end of the boundary's line up to
	 * and with the blank line that ends them
	 * @param length how many of the bytes are the headers
	 * @param charset the charset of part headers
	 * @return the headers
	 */
	static PartHeaders of(byte[] bytes, int length, Charset charset) {
		String name = onlyFieldDisposition(bytes, length, charset);
		return (name != null) ? new PartHeaders(null, name) : new PartHeaders(new String(bytes, 0, length, charset));
	}

	private static @Nullable String onlyFieldDisposition(byte[] bytes, int length, Charset charset) {
		int start = FIELD_DISPOSITION_BYTES.length;
		int end = length - FIELD_END_BYTES.length;
		if (end < start || !(StandardCharsets.UTF_8.equals(charset) || StandardCharsets.ISO_8859_1.equals(charset)
				|| StandardCharsets.US_ASCII.equals(charset))) {
			return null;
		}
		if (!Arrays.equals(bytes, 0, start, FIELD_DISPOSITION_BYTES, 0, start)
				|| !Arrays.equals(bytes, end, length, FIELD_END_BYTES, 0, FIELD_END_BYTES.length)) {
			return null;
		}
		for (int i = start; i < end; i++) {
			byte b = bytes[i];
			if (b < 0x20 || b == 0x7F || b == '"' || b == '\\') {
				// a control byte, non-ASCII (negative), or what formFieldName leaves to parse
				return null;
			}
		}
		return new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
	}

	/** The headers as text, made from the field's name if they were kept as it. */
	private String text() {
		String text = this.text;
		if (text == null) {
			text = FIELD_DISPOSITION + this.fieldName + FIELD_END;
			this.text = text;
		}
		return text;
	}

	/**
	 * Return the parsed {@code Content-Disposition}, as {@code HttpHeaders} would. Parsed
	 * when first asked for, not with the headers: stock reads a part's disposition only
	 * when it asks whether a text part is a form field, and when the part is complete, so
	 * a malformed disposition of a file part in a body that breaks off before the part's
	 * end fails as the broken body, not as the disposition (found by the multipart fuzz in
	 * its long mode).
	 * @return the disposition, empty if there is none
	 * @throws DecodingException if it is malformed ({@link #unparseable})
	 */
	public ContentDisposition disposition() {
		ContentDisposition parsed = this.disposition;
		if (parsed == null) {
			if (this.fieldName != null) {
				parsed = ContentDisposition.formData().name(this.fieldName).build();
			}
			else {
				String disposition = first(HttpHeaders.CONTENT_DISPOSITION);
				try {
					parsed = StringUtils.hasText(disposition) ? ContentDisposition.parse(disposition)
							: ContentDisposition.empty();
				}
				catch (IllegalArgumentException ex) {
					throw unparseable(ex);
				}
			}
			this.disposition = parsed;
		}
		return parsed;
	}

	/**
	 * Return the filename of the {@code Content-Disposition}, as {@link #disposition()}
	 * gives it.
	 * @return the filename, or {@code null} if it has none
	 * @throws DecodingException if the disposition is malformed
	 */
	public @Nullable String filename() {
		return (this.fieldName != null) ? null : disposition().getFilename();
	}

	/**
	 * Return whether the part has a name, which {@link #name()} would give.
	 * @return whether it has a name
	 * @throws DecodingException if the disposition is malformed
	 */
	public boolean hasName() {
		return this.fieldName != null || disposition().getName() != null;
	}

	/**
	 * Return the part's name, as Spring's parts give it.
	 * @return the name of the {@code Content-Disposition}
	 * @throws IllegalStateException if it has none
	 * @throws DecodingException if the disposition is malformed
	 */
	public String name() {
		String name = (this.fieldName != null) ? this.fieldName : disposition().getName();
		Assert.state(name != null, "No name available");
		return name;
	}

	/**
	 * Return the {@code Content-Type}, as {@code HttpHeaders} would. Parsed when first
	 * asked for, as stock parses it: when it asks whether the part is a form field, the
	 * type before the disposition, and only once the part is counted, so a part past the
	 * limit of parts fails as too many parts and a part whose type and disposition are
	 * both malformed fails on its type (both found by the multipart fuzz in its long mode).
	 * @return the media type, or {@code null} if there is none
	 * @throws DecodingException if it is malformed ({@link #unparseable})
	 */
	public @Nullable MediaType contentType() {
		if (!this.contentTypeParsed) {
			String contentType = first(HttpHeaders.CONTENT_TYPE);
			try {
				this.contentType = StringUtils.hasLength(contentType) ? MediaType.parseMediaType(contentType) : null;
			}
			catch (IllegalArgumentException ex) {
				throw unparseable(ex);
			}
			this.contentTypeParsed = true;
		}
		return this.contentType;
	}

	/**
	 * Return the error of a part header that cannot be parsed: a malformed request, failed
	 * as readers fail any malformed body, with a {@link DecodingException} (which
	 * WebFlux's argument resolvers and Fastpath's form reading answer 400). Spring's part
	 * readers fail with the parser's {@code IllegalArgumentException}
	 * ({@code InvalidMediaTypeException} for the type, which checks its charset too),
	 * which a server answers 500.
	 * @param ex the parser's error
	 * @return the error to fail the read with
	 */
	public static DecodingException unparseable(IllegalArgumentException ex) {
		return new DecodingException("A part header cannot be parsed: " + ex.getMessage(), ex);
	}

	/**
	 * Return the headers, built on first use.
	 * @return the headers
	 */
	public HttpHeaders headers() {
		HttpHeaders built = this.headers;
		if (built == null) {
			built = new HttpHeaders();
			String text = text();
			Lines lines = new Lines(text);
			while (lines.next()) {
				if (lines.colon != -1) {
					built.add(text.substring(lines.start, lines.colon),
							text.substring(valueStart(text, lines.colon, lines.end), lines.end));
				}
			}
			this.headers = built;
		}
		return built;
	}

	/**
	 * The name in the disposition of a text field as browsers and clients write it, the
	 * headers starting {@code Content-Disposition: form-data; name="<name>"} on their
	 * first line after the boundary's, without
	 * {@link ContentDisposition#parse}: it splits the value into a list of trimmed
	 * substrings and cuts the name out of one, more than the rest of the part cost. The
	 * name must hold no {@code "} and no {@code \} and the quote must end the line:
	 * then {@code parse} reads the same type and name, no filename and no charset, and
	 * any other header value is left to it.
	 * @return the name, or {@code null} if the first line is not of that shape
	 */
	private static @Nullable String formFieldName(String text) {
		int prefix = FIELD_DISPOSITION.length();
		if (!text.startsWith(FIELD_DISPOSITION)) {
			return null;
		}
		int lineEnd = lineEnd(text, 2);
		int quote = indexOf(text, '"', prefix, lineEnd);
		if (quote != lineEnd - 1 || indexOf(text, '\\', prefix, quote) != -1) {
			return null;
		}
		return text.substring(prefix, quote);
	}

	/** The first value of the named header, or {@code null}. */
	private @Nullable String first(String name) {
		if (this.text == null && !HttpHeaders.CONTENT_DISPOSITION.equalsIgnoreCase(name)) {
			// kept as the disposition's name: there is no other header
			return null;
		}
		String text = text();
		Lines lines = new Lines(text);
		while (lines.next()) {
			if (lines.colon - lines.start == name.length()
					&& text.regionMatches(true, lines.start, name, 0, name.length())) {
				return text.substring(valueStart(text, lines.colon, lines.end), lines.end);
			}
		}
		return null;
	}

	private static int lineEnd(String text, int from) {
		int lineEnd = text.indexOf("\r\n", from);
		return (lineEnd != -1) ? lineEnd : text.length();
	}

	/** The index of the char in [from, to), or -1: {@code String.indexOf} with an end is Java 21's. */
	private static int indexOf(String text, char c, int from, int to) {
		for (int i = from; i < to; i++) {
			if (text.charAt(i) == c) {
				return i;
			}
		}
		return -1;
	}

	private static int valueStart(String text, int colon, int lineEnd) {
		int start = colon + 1;
		while (start < lineEnd && text.charAt(start) == ' ') {
			start++;
		}
		return start;
	}

	/**
	 * The lines of headers, one after the other, as Spring's parser splits them: at each
	 * CRLF, the last line up to the end of the text. Each line is read once, for its end
	 * and its first colon together: a colon looked for from the line's start to the end of
	 * the text ({@code indexOf(':', start)}) reads on through the lines after a line
	 * without one, again for each such line, the square of the headers' length for headers
	 * of colon-less lines up to their limit.
	 */
	static final class Lines {

		private final CharSequence text;

		/** Where the next line starts. */
		private int next;

		/** Where the current line starts. */
		int start;

		/** Where the current line ends: its CRLF, or the end of the text. */
		int end;

		/** The current line's first colon, or -1 if it has none. */
		int colon;

		Lines(CharSequence text) {
			this.text = text;
		}

		/**
		 * Move to the next line.
		 * @return whether there is one
		 */
		boolean next() {
			CharSequence text = this.text;
			int length = text.length();
			if (this.next >= length) {
				return false;
			}
			int colon = -1;
			int i = this.next;
			while (i < length) {
				char c = text.charAt(i);
				if (c == '\r' && i + 1 < length && text.charAt(i + 1) == '\n') {
					break;
				}
				if (c == ':' && colon == -1) {
					colon = i;
				}
				i++;
			}
			this.start = this.next;
			this.end = i;
			this.colon = colon;
			this.next = i + 2;
			return true;
		}

	}

}
