package io.fastpath.form;

import org.jspecify.annotations.Nullable;

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
 * rest of the part. Lines are read as Spring's {@code MultipartParser} reads them:
 * separated by CRLF, a line without a colon ignored, spaces after the colon skipped.
 *
 * @author Fastpath
 */
final class PartHeaders {

	/**
	 * The start of a text field's headers as browsers send them, up to the name: the end
	 * of the boundary's line (the headers' first line, empty), then the disposition.
	 */
	private static final String FIELD_DISPOSITION = "\r\nContent-Disposition: form-data; name=\"";

	private final String text;

	/**
	 * The name of a text field whose disposition is of the shape browsers send
	 * ({@link #formFieldName()}), or {@code null}: its disposition is built only if asked
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
		this.text = text;
		this.fieldName = formFieldName();
	}

	/**
	 * Return the parsed {@code Content-Disposition}, as {@code HttpHeaders} would. Parsed
	 * when first asked for, not with the headers: stock reads a part's disposition only
	 * when it asks whether a text part is a form field, and when the part is complete, so
	 * a malformed disposition of a file part in a body that breaks off before the part's
	 * end fails as the broken body, not as the disposition (found by the multipart fuzz in
	 * its long mode).
	 * @return the disposition, empty if there is none
	 * @throws IllegalArgumentException if it is malformed
	 */
	ContentDisposition disposition() {
		ContentDisposition parsed = this.disposition;
		if (parsed == null) {
			if (this.fieldName != null) {
				parsed = ContentDisposition.formData().name(this.fieldName).build();
			}
			else {
				String disposition = first(HttpHeaders.CONTENT_DISPOSITION);
				parsed = StringUtils.hasText(disposition) ? ContentDisposition.parse(disposition)
						: ContentDisposition.empty();
			}
			this.disposition = parsed;
		}
		return parsed;
	}

	/**
	 * Return the filename of the {@code Content-Disposition}, as {@link #disposition()}
	 * gives it.
	 * @return the filename, or {@code null} if it has none
	 * @throws IllegalArgumentException if the disposition is malformed
	 */
	@Nullable String filename() {
		return (this.fieldName != null) ? null : disposition().getFilename();
	}

	/**
	 * Return the part's name, as Spring's parts give it.
	 * @return the name of the {@code Content-Disposition}
	 * @throws IllegalStateException if it has none
	 */
	String name() {
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
	 * @throws org.springframework.http.InvalidMediaTypeException if it is malformed
	 */
	@Nullable MediaType contentType() {
		if (!this.contentTypeParsed) {
			String contentType = first(HttpHeaders.CONTENT_TYPE);
			this.contentType = StringUtils.hasLength(contentType) ? MediaType.parseMediaType(contentType) : null;
			this.contentTypeParsed = true;
		}
		return this.contentType;
	}

	/**
	 * Return the headers, built on first use.
	 * @return the headers
	 */
	HttpHeaders headers() {
		HttpHeaders built = this.headers;
		if (built == null) {
			built = new HttpHeaders();
			int from = 0;
			int length = this.text.length();
			while (from < length) {
				int lineEnd = lineEnd(from);
				int colon = this.text.indexOf(':', from);
				if (colon != -1 && colon < lineEnd) {
					built.add(this.text.substring(from, colon), this.text.substring(valueStart(colon, lineEnd), lineEnd));
				}
				from = lineEnd + 2;
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
	private @Nullable String formFieldName() {
		int prefix = FIELD_DISPOSITION.length();
		if (!this.text.startsWith(FIELD_DISPOSITION)) {
			return null;
		}
		int lineEnd = lineEnd(2);
		int quote = this.text.indexOf('"', prefix);
		int backslash = this.text.indexOf('\\', prefix);
		if (quote != lineEnd - 1 || (backslash != -1 && backslash < quote)) {
			return null;
		}
		return this.text.substring(prefix, quote);
	}

	/** The first value of the named header, or {@code null}. */
	private @Nullable String first(String name) {
		int from = 0;
		int length = this.text.length();
		while (from < length) {
			int lineEnd = lineEnd(from);
			int colon = this.text.indexOf(':', from);
			if (colon != -1 && colon < lineEnd && colon - from == name.length()
					&& this.text.regionMatches(true, from, name, 0, name.length())) {
				return this.text.substring(valueStart(colon, lineEnd), lineEnd);
			}
			from = lineEnd + 2;
		}
		return null;
	}

	private int lineEnd(int from) {
		int lineEnd = this.text.indexOf("\r\n", from);
		return (lineEnd != -1) ? lineEnd : this.text.length();
	}

	private int valueStart(int colon, int lineEnd) {
		int start = colon + 1;
		while (start < lineEnd && this.text.charAt(start) == ' ') {
			start++;
		}
		return start;
	}

}
