package io.fastpath.form;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.http.ContentDisposition;

import static org.assertj.core.api.Assertions.assertThat;
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
			assertThatIllegalArgumentException().isThrownBy(headers::disposition);
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
	void failsWhereParseFailsOnceTheDispositionIsRead() {
		assertThatIllegalArgumentException().isThrownBy(() -> ContentDisposition.parse("form-data; name"));
		// read when asked for, as stock reads it: the headers themselves are read
		PartHeaders headers = new PartHeaders("\r\nContent-Disposition: form-data; name\r\n\r\n");
		assertThatIllegalArgumentException().isThrownBy(headers::disposition);
		assertThatIllegalArgumentException().isThrownBy(headers::name);
	}

}
