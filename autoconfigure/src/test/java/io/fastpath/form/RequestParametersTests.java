package io.fastpath.form;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RequestParameters}.
 */
class RequestParametersTests {

	private final MultiValueMap<String, String> query = new LinkedMultiValueMap<>();

	private final FormParameters form = FormParameters.parse("b=form&c=3&b=again".getBytes(StandardCharsets.UTF_8),
			StandardCharsets.UTF_8, 1000);

	RequestParametersTests() {
		this.query.add("a", "1");
		this.query.add("b", "query");
	}

	@Test
	void readsTheQueryFirst() {
		RequestParameters parameters = new RequestParameters(this.query, this.form);
		assertThat(parameters.getFirst("a")).isEqualTo("1");
		assertThat(parameters.getFirst("b")).isEqualTo("query");
		assertThat(parameters.getFirst("c")).isEqualTo("3");
		assertThat(parameters.getFirst("d")).isNull();
		assertThat(parameters.getAll("b")).containsExactly("query", "form", "again");
		assertThat(parameters.getAll("a")).containsExactly("1");
		assertThat(parameters.getAll("c")).containsExactly("3");
		assertThat(parameters.getAll("d")).isEmpty();
		assertThat(parameters.names()).containsExactly("a", "b", "c");
		assertThat(parameters.contains("c")).isTrue();
		assertThat(parameters.contains("d")).isFalse();
		assertThat(parameters).hasToString("RequestParameters[a, b, c]");
	}

	@Test
	void copiesNeitherSide() {
		RequestParameters parameters = new RequestParameters(this.query, this.form);
		assertThat(parameters.getQuery()).isSameAs(this.query);
		assertThat(parameters.getForm()).isSameAs(this.form);
		this.query.add("late", "x");
		assertThat(parameters.getFirst("late")).isEqualTo("x");
	}

	@Test
	void readsTheQueryAndTheFormOfAnExchange() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/?a=1&b=q")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body("b=f&c=3"));
		RequestParameters parameters = RequestParameters.from(exchange).block();
		assertThat(parameters.getAll("b")).containsExactly("q", "f");
		assertThat(parameters.names()).containsExactly("a", "b", "c");
	}

	@Test
	void readsOnlyTheQueryOfARequestThatIsNotAForm() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/?a=1")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"b\":2}"));
		RequestParameters parameters = RequestParameters.from(exchange).block();
		assertThat(parameters.names()).containsExactly("a");
		assertThat(parameters.getForm().isEmpty()).isTrue();
	}

}
