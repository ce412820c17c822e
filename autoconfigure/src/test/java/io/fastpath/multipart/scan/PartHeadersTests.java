package io.fastpath.multipart.scan;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.core.codec.DecodingException;
import org.springframework.http.ContentDisposition;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link PartHeaders} reads a text field's disposition without
 * {@link ContentDisposition#parse} when it has the shape browsers send, and keeps headers
 * that are only that disposition as the field's name: these are that shape and its near
 * misses, each compared with what {@code parse} reads from the same value.
 */
class PartHeadersTests {

	static List<String> dispositions() {
		return List.of("form-data; name=\"city\"", "form-data; name=\"\"", "form-data; name=\"a;b\"",
				"form-data; name=\"é 😀\"", "form-data; name=\"a\\\"b\"", "form-data; name=\"a\\\\b\"",
				"form-data; name=\"a\"b\"", "form-data; name=\"a\" ", "form-data; name=\"a\"; filename=\"f.txt\"",
				"form-data; name=\"a\";filename=\"f\"", "form-data; name=\"a", "form-data; name=a",
				"form-data;  name=\"a\"", "form-data; NAME=\"a\"", "Form-Data; name=\"a\"", "attachment; name=\"a\"",
				"form-data; name=\"a\"; name=\"b\"", "form-data; name=\"=?UTF-8?Q?a?=\"");
	}

	@ParameterizedTest
	@MethodSource("dispositions")
	void readsTheDispositionParseReads(String value) {
		String text = "\r\nContent-Disposition: " + value + "\r\nX-Other: x\r\n\r\n";
		assertThat(new PartHeaders(text).disposition()).isEqualTo(ContentDisposition.parse(value));
	}

	@ParameterizedTest
	@MethodSource("dispositions")
	void readsTheDispositionParseReadsAfterTransportPadding(String value) {
		String text = " \t\r\nContent-Disposition: " + value + "\r\n\r\n";
		assertThat(new PartHeaders(text).disposition()).isEqualTo(ContentDisposition.parse(value));
	}

	@ParameterizedTest
	@MethodSource("dispositions")
	void readsTheDispositionParseReadsAsTheLastHeader(String value) {
		String text = "\r\nContent-Disposition: " + value;
		assertThat(new PartHeaders(text).disposition()).isEqualTo(ContentDisposition.parse(value));
	}

	static Stream<Arguments> dispositionsInCharsets() {
		return dispositions().stream()
			.flatMap((value) -> Stream.of(StandardCharsets.UTF_8, StandardCharsets.ISO_8859_1, StandardCharsets.US_ASCII,
					StandardCharsets.UTF_16BE)
				.map((charset) -> Arguments.of(value, charset)));
	}

	/**
	 * Headers that are only the disposition, as browsers send a text field, may be kept
	 * as the field's name ({@link PartHeaders#of}): they read as their text decoded, which
	 * {@code parse} and Spring's headers read.
	 */
	@ParameterizedTest
	@MethodSource("dispositionsInCharsets")
	void headersOfTheDispositionAloneReadAsTheirDecodedText(String value, Charset charset) {
		byte[] bytes = ("\r\nContent-Disposition: " + value + "\r\n\r\n").getBytes(charset);
		String decoded = new String(bytes, charset);
		String decodedValue = decoded.substring("\r\nContent-Disposition: ".length(), decoded.length() - 4);
		// the length given, not the array's: what follows the headers is not theirs
		PartHeaders headers = PartHeaders.of(Arrays.copyOf(bytes, bytes.length + 7), bytes.length, charset);
		assertThat(headers.headers().toSingleValueMap()).containsExactly(entry("Content-Disposition", decodedValue));
		assertThat(headers.contentType()).isNull();
		ContentDisposition expected;
		try {
			expected = ContentDisposition.parse(decodedValue);
		}
		catch (IllegalArgumentException ex) {
			assertThatExceptionOfType(DecodingException.class).isThrownBy(headers::disposition)
				.withMessage("A part header cannot be parsed: " + ex.getMessage())
				.withCauseInstanceOf(IllegalArgumentException.class);
			return;
		}
		assertThat(headers.disposition()).isEqualTo(expected);
		assertThat(headers.filename()).isEqualTo(expected.getFilename());
		String name = expected.getName();
		if (name != null) {
			assertThat(headers.name()).isEqualTo(name);
		}
		else {
			assertThatIllegalStateException().isThrownBy(headers::name);
		}
	}

	@Test
	void linesAreSplitAtEachCrlfWithTheirFirstColon() {
		String text = "\r\nA: b:c\r\nno colon\r\nx\r\r\n:\r\n\r\nlast";
		PartHeaders.Lines lines = new PartHeaders.Lines(text);
		List<String> read = new ArrayList<>();
		while (lines.next()) {
			read.add("[" + text.substring(lines.start, lines.end) + "] " + lines.colon);
		}
		assertThat(read).containsExactly("[] -1", "[A: b:c] 3", "[no colon] -1", "[x\r] -1", "[:] 24", "[] -1",
				"[last] -1");
	}

	@Test
	void headersOfColonlessLinesUpToTheLimitAreReadLikeTheirOneHeader() {
		String text = "\r\n" + "no colon\r\n".repeat(1000) + "Content-Type:  text/plain\r\n"
				+ "x\r\n".repeat(1000) + "Content-Disposition: form-data; name=\"f\"\r\n\r\n";
		PartHeaders headers = new PartHeaders(text);
		assertThat(headers.contentType()).isEqualTo(MediaType.TEXT_PLAIN);
		assertThat(headers.name()).isEqualTo("f");
		assertThat(headers.headers().toSingleValueMap()).containsExactly(entry("Content-Type", "text/plain"),
				entry("Content-Disposition", "form-data; name=\"f\""));
	}

	/**
	 * Headers of lines without a colon up to the limit of headers are read in work linear
	 * in their length: every char read twice at most (a CR once more, to see whether an
	 * LF follows), where a colon looked for from each line's start to the end of the text
	 * reads the rest of the headers at every line.
	 */
	@Test
	void colonlessLinesAreReadInWorkLinearInTheirLength() {
		for (String line : List.of("x", "no colon", "a\rb", "")) {
			String text = "\r\n" + (line + "\r\n").repeat(10 * 1024 / (line.length() + 2)) + "Content-Type: text/plain";
			CountingText counting = new CountingText(text);
			PartHeaders.Lines lines = new PartHeaders.Lines(counting);
			int read = 0;
			while (lines.next()) {
				read++;
			}
			assertThat(read).as("lines of [" + line + "]").isEqualTo(text.split("\r\n", -1).length);
			assertThat(counting.reads).as("chars read, lines of [" + line + "], " + text.length() + " chars")
				.isLessThanOrEqualTo(2L * text.length());
		}
	}

	@Test
	void aDispositionThatParseRejectsIsMalformedOnceRead() {
		assertThatIllegalArgumentException().isThrownBy(() -> ContentDisposition.parse("form-data; name"));
		// read when asked for, as stock reads it: the headers themselves are read
		PartHeaders headers = new PartHeaders("\r\nContent-Disposition: form-data; name\r\n\r\n");
		assertThat(headers.headers().getFirst("Content-Disposition")).isEqualTo("form-data; name");
		for (ThrowingCallable read : List.<ThrowingCallable>of(headers::disposition, headers::name, headers::hasName,
				headers::filename)) {
			assertThatExceptionOfType(DecodingException.class).isThrownBy(read)
				.withMessage("A part header cannot be parsed: Invalid content disposition format")
				.withCauseExactlyInstanceOf(IllegalArgumentException.class);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "text/", "text/plain; charset=no-such-charset", ": text/plain", "text/plain;;=" })
	void aTypeThatParseRejectsIsMalformedOnceRead(String type) {
		assertThatExceptionOfType(InvalidMediaTypeException.class).isThrownBy(() -> MediaType.parseMediaType(type));
		PartHeaders headers = new PartHeaders(
				"\r\nContent-Disposition: form-data; name=\"f\"\r\nContent-Type: " + type + "\r\n\r\n");
		assertThat(headers.headers().getFirst("Content-Type")).isEqualTo(type);
		assertThat(headers.name()).isEqualTo("f");
		assertThatExceptionOfType(DecodingException.class).isThrownBy(headers::contentType)
			.withMessageStartingWith("A part header cannot be parsed: Invalid mime type \"" + type + "\"")
			.withCauseExactlyInstanceOf(InvalidMediaTypeException.class);
	}

	/** Text that counts the chars read from it. */
	private static final class CountingText implements CharSequence {

		private final String text;

		long reads;

		CountingText(String text) {
			this.text = text;
		}

		@Override
		public int length() {
			return this.text.length();
		}

		@Override
		public char charAt(int index) {
			this.reads++;
			return this.text.charAt(index);
		}

		@Override
		public CharSequence subSequence(int start, int end) {
			throw new UnsupportedOperationException("Read around the count");
		}

		@Override
		public String toString() {
			throw new UnsupportedOperationException("Read around the count");
		}

	}

}
