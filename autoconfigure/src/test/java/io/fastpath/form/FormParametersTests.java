package io.fastpath.form;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link FormParameters}.
 */
class FormParametersTests {

	private static FormParameters parse(String body) {
		return FormParameters.parse(body.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8, 1000);
	}

	@Test
	void readsNamesAndValuesInOrder() {
		FormParameters form = parse("a=1&b=2&a=3");
		assertThat(form.size()).isEqualTo(3);
		assertThat(form.getName(2)).isEqualTo("a");
		assertThat(form.getValue(1)).isEqualTo("2");
		assertThat(form.getFirst("a")).isEqualTo("1");
		assertThat(form.getAll("a")).containsExactly("1", "3");
		assertThat(form.getAll("b")).containsExactly("2");
		assertThat(form.names()).containsExactly("a", "b");
		assertThat(form.contains("b")).isTrue();
	}

	@Test
	void answersMissingNamesWithNothing() {
		FormParameters form = parse("a=1");
		assertThat(form.getFirst("b")).isNull();
		assertThat(form.getAll("b")).isEmpty();
		assertThat(form.contains("b")).isFalse();
		assertThat(form.contains("")).isFalse();
	}

	@Test
	void givesFieldsWithoutEqualsANullValueAndEmptyValuesAnEmptyString() {
		FormParameters form = parse("flag&empty=&=nameless");
		assertThat(form.contains("flag")).isTrue();
		assertThat(form.getFirst("flag")).isNull();
		assertThat(form.getAll("flag")).containsExactly((String) null);
		assertThat(form.getFirst("empty")).isEmpty();
		assertThat(form.getFirst("")).isEqualTo("nameless");
	}

	@Test
	void skipsEmptyFieldsAndTrimsBlanksAroundFields() {
		FormParameters form = parse("&&a=1&& \t b = 2 \r\n&\u0001&");
		assertThat(form.size()).isEqualTo(2);
		assertThat(form.getFirst("a")).isEqualTo("1");
		assertThat(form.getFirst("b ")).isEqualTo(" 2");
	}

	@Test
	void keepsEqualsSignsInsideValues() {
		assertThat(parse("q=a=b==c").getFirst("q")).isEqualTo("a=b==c");
	}

	@Test
	void decodesPlusAndPercentEscapes() {
		FormParameters form = parse("full+name=Jane+Q%2E+Doe&plus=%2B&space=%20&caf%C3%A9=%E2%82%AC%F0%9F%98%80");
		assertThat(form.getFirst("full name")).isEqualTo("Jane Q. Doe");
		assertThat(form.getFirst("plus")).isEqualTo("+");
		assertThat(form.getFirst("space")).isEqualTo(" ");
		assertThat(form.getFirst("café")).isEqualTo("€😀");
		assertThat(form.names()).containsExactly("full name", "plus", "space", "café");
	}

	@Test
	void decodesEscapedSeparatorsAsText() {
		FormParameters form = parse("a%3Db=c%26d");
		assertThat(form.getFirst("a=b")).isEqualTo("c&d");
	}

	@Test
	void readsRawMultiByteText() {
		FormParameters form = parse("名前=値&é=ü");
		assertThat(form.getFirst("名前")).isEqualTo("値");
		assertThat(form.getFirst("é")).isEqualTo("ü");
	}

	@Test
	void doesNotMatchAsciiNamesAgainstNonAsciiQueries() {
		FormParameters form = parse("a=1");
		assertThat(form.getFirst("á")).isNull();
	}

	@Test
	void decodesIso88591BodiesAndEscapes() {
		byte[] body = "n%E9=caf%E9&raw=\u00e9".getBytes(StandardCharsets.ISO_8859_1);
		FormParameters form = FormParameters.parse(body, StandardCharsets.ISO_8859_1, 1000);
		assertThat(form.getFirst("né")).isEqualTo("café");
		assertThat(form.getFirst("raw")).isEqualTo("é");
		assertThat(form.getCharset()).isEqualTo(StandardCharsets.ISO_8859_1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "UTF-16", "UTF-16LE", "windows-1252", "UTF-32" })
	void decodesBodiesInCharsetsThatAreNotAsciiCompatible(String charsetName) {
		Charset charset = Charset.forName(charsetName);
		String escapedEuro = "%" + String.format("%02X", "€".getBytes(charset)[0] & 0xFF);
		byte[] body = ("a=€ +x&b=" + escapedEuro + "&c").getBytes(charset);
		FormParameters form = FormParameters.parse(body, charset, 1000);
		assertThat(form.getFirst("a")).isEqualTo("€  x");
		assertThat(form.getAll("c")).containsExactly((String) null);
		assertThat(form.size()).isEqualTo(3);
	}

	@Test
	void decodesEscapesOfAsciiCharactersInUtf16AsPairsOfBytes() {
		byte[] body = "a=%00%2B%D8%34%DD%1E".getBytes(StandardCharsets.UTF_16);
		assertThat(FormParameters.parse(body, StandardCharsets.UTF_16, 1000).getFirst("a")).isEqualTo("+𝄞");
	}

	@Test
	void rejectsABodyInvalidInACharsetThatIsReEncoded() {
		byte[] body = { 0, 'a', 0, '=', (byte) 0xD8, 0 };
		assertThatExceptionOfType(MalformedFormDataException.class)
			.isThrownBy(() -> FormParameters.parse(body, StandardCharsets.UTF_16BE, 1000))
			.withMessageContaining("UTF-16BE");
	}

	@ParameterizedTest
	@ValueSource(strings = { "x=%G1", "x=%", "x=%4", "x=ab%", "x=%4&y=1", "x=%%41", "x=%+1", "x=%-1", "x=%4 " })
	void rejectsMalformedEscapesInValuesNamingTheField(String body) {
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> parse(body))
			.withMessageContaining("'x'")
			.satisfies((ex) -> assertThat(ex.getFieldName()).isEqualTo("x"))
			.satisfies((ex) -> assertThat(ex.getStatusCode().value()).isEqualTo(400));
	}

	@Test
	void rejectsMalformedEscapesInNamesNamingTheRawField() {
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> parse("ok=1&b%Zd=2"))
			.satisfies((ex) -> assertThat(ex.getFieldName()).isEqualTo("b"));
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> parse("n%41me%"))
			.satisfies((ex) -> assertThat(ex.getFieldName()).isEqualTo("n%41me"));
	}

	@Test
	void rejectsBytesInvalidInTheCharsetWhenTheFieldIsRead() {
		FormParameters form = parse("good=1&bad=%C3%28&raw=x");
		assertThat(form.getFirst("good")).isEqualTo("1");
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> form.getFirst("bad"))
			.withMessage("400 BAD_REQUEST \"Form field 'bad' is not valid UTF-8\"")
			.satisfies((ex) -> assertThat(ex.getFieldName()).isEqualTo("bad"));
	}

	@Test
	void rejectsInvalidRawBytesInNamesWhenTheyAreCompared() {
		byte[] body = { 'a', '=', '1', '&', (byte) 0xFF, '=', '2' };
		FormParameters form = FormParameters.parse(body, StandardCharsets.UTF_8, 1000);
		assertThat(form.getFirst("a")).isEqualTo("1");
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> form.getFirst("b"));
	}

	@Test
	void rejectsAnEscapedMultiByteCharacterCutByLiteralText() {
		// Stock decodes each run of escapes on its own, so this is two U+FFFD there
		FormParameters form = parse("x=%C3+%A9");
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> form.getFirst("x"));
	}

	@Test
	void rejectsNonAsciiBytesInAnAsciiForm() {
		FormParameters form = FormParameters.parse("x=%E9".getBytes(StandardCharsets.US_ASCII),
				StandardCharsets.US_ASCII, 1000);
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> form.getFirst("x"))
			.withMessageContaining("US-ASCII");
	}

	@Test
	void acceptsExactlyTheFieldLimit() {
		assertThat(FormParameters.parse("a=1&b=2&&c".getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8, 3)
			.size()).isEqualTo(3);
	}

	@Test
	void rejectsMoreFieldsThanTheLimit() {
		assertThatExceptionOfType(TooManyFormFieldsException.class)
			.isThrownBy(() -> FormParameters.parse("a=1&b=2&c&d".getBytes(StandardCharsets.UTF_8),
					StandardCharsets.UTF_8, 3))
			.withMessageContaining("more than 3 fields")
			.satisfies((ex) -> assertThat(ex.getStatusCode().value()).isEqualTo(413))
			.satisfies((ex) -> assertThat(ex.getMaxFields()).isEqualTo(3));
	}

	@Test
	void doesNotCountEmptyFieldsAgainstTheLimit() {
		byte[] body = "&&&&&&&&&&a=1&&&&&&&& &&".getBytes(StandardCharsets.UTF_8);
		assertThat(FormParameters.parse(body, StandardCharsets.UTF_8, 1).getFirst("a")).isEqualTo("1");
	}

	@Test
	void parsesAnEmptyBodyAsAnEmptyForm() {
		FormParameters form = parse("");
		assertThat(form.isEmpty()).isTrue();
		assertThat(form.names()).isEmpty();
		assertThat(form.toMultiValueMap()).isEmpty();
		assertThat(FormParameters.empty().isEmpty()).isTrue();
	}

	@Test
	void buildsTheSameMultiValueMapAsStockOnceAndReadOnly() {
		FormParameters form = parse("a=1&b&a=%20&c=");
		MultiValueMap<String, String> expected = new LinkedMultiValueMap<>();
		expected.add("a", "1");
		expected.add("b", null);
		expected.add("a", " ");
		expected.add("c", "");
		assertThat(form.toMultiValueMap()).isEqualTo(expected);
		assertThat(form.toMultiValueMap().keySet()).containsExactly("a", "b", "c");
		assertThat(form.toMultiValueMap()).isSameAs(form.toMultiValueMap());
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> form.toMultiValueMap().add("d", "4"));
	}

	@Test
	void seesAnyMultiValueMapAsTheSameFields() {
		MultiValueMap<String, String> map = new LinkedMultiValueMap<>();
		map.add("a b", "1+2=3&");
		map.add("", "");
		map.add("flag", null);
		map.add(" x ", " é ");
		map.add("a b", "%");
		FormParameters form = FormParameters.of(map);
		assertThat(form.toMultiValueMap()).isEqualTo(map);
		assertThat(form.getAll("a b")).containsExactly("1+2=3&", "%");
		assertThat(FormParameters.of(new LinkedMultiValueMap<>())).isSameAs(FormParameters.empty());
	}

	@Test
	void seesTheFormOfAnExchangeOnceHoweverOftenAsked() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body("a=1&b=%202"));
		FormParameters form = FormParameters.from(exchange).block();
		assertThat(form.getFirst("b")).isEqualTo(" 2");
		assertThat(FormParameters.from(exchange).block()).isSameAs(form);
	}

	@Test
	void returnsTheParametersBehindAFormDataMap() {
		FormParameters form = parse("a=1");
		assertThat(FormParameters.of(new FormDataMap(form))).isSameAs(form);
	}

	@Test
	void rejectsPositionsOutsideTheForm() {
		FormParameters form = parse("a=1");
		assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> form.getName(1));
		assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> form.getValue(-1));
	}

	@Test
	void listsValuesThatCannotBeModified() {
		List<String> values = parse("a=1&a=2").getAll("a");
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> values.add("3"));
	}

	@Test
	void handlesManyFields() {
		StringBuilder body = new StringBuilder();
		for (int i = 0; i < 1000; i++) {
			body.append("f").append(i % 100).append('=').append(i).append('&');
		}
		FormParameters form = parse(body.toString());
		assertThat(form.size()).isEqualTo(1000);
		assertThat(form.getAll("f7")).hasSize(10).startsWith("7", "107");
		assertThat(form.names()).hasSize(100);
	}

	@Test
	void describesItselfByItsNames() {
		assertThat(parse("a=1&b=2&a=3")).hasToString("FormParameters[a, b]");
	}

	@Test
	void rejectsANegativeLimitOnTheDecorator() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LazyFormDecoding(-1));
	}

	@Test
	void toStringShowsNamesInvalidInTheCharsetWithoutThrowing() {
		FormParameters form = FormParameters.parse("q=2&%FF=1".getBytes(StandardCharsets.US_ASCII),
				StandardCharsets.UTF_8, 1000);
		assertThat(form).hasToString("FormParameters[q, \uFFFD]");
		assertThat(form.getFirst("q")).isEqualTo("2");
	}

}
