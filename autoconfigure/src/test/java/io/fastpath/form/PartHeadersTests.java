package io.fastpath.form;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.http.ContentDisposition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link PartHeaders} reads a text field's disposition without
 * {@link ContentDisposition#parse} when it has the shape browsers send: these are that
 * shape and its near misses, each compared with what {@code parse} reads from the same
 * value.
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

	@Test
	void failsWhereParseFailsOnceTheDispositionIsRead() {
		assertThatIllegalArgumentException().isThrownBy(() -> ContentDisposition.parse("form-data; name"));
		// read when asked for, as stock reads it: the headers themselves are read
		PartHeaders headers = new PartHeaders("\r\nContent-Disposition: form-data; name\r\n\r\n");
		assertThatIllegalArgumentException().isThrownBy(headers::disposition);
		assertThatIllegalArgumentException().isThrownBy(headers::name);
	}

}
