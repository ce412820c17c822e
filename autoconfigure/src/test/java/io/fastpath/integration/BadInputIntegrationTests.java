package io.fastpath.integration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every class of bad input on a real server, through Fastpath's readers: malformed JSON
 * and forms are a 400, too large a 413, a wrong content type a 415, each with Spring
 * Boot's usual error body; and the keep-alive connection stays usable: the next request on
 * it succeeds. Bodies come with a Content-Length or chunked (in 7-byte chunks, sent at
 * once). Two servers close the connection instead, with stock readers too, and then a new
 * connection must succeed: Reactor Netty one whose chunked body was still arriving when
 * the application stopped reading it, Jetty one whose body the application left unread
 * at the size limit, and Tomcat one answered with a 400 or a 413 (it says so with
 * {@code Connection: close}). Netty's paranoid leak detector must report
 * nothing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.http.codecs.max-in-memory-size=4KB", "fastpath.form.max-parameters=20" })
abstract class BadInputIntegrationTests extends RealServerTests {

	private static final String JSON = "application/json";

	private static final String FORM = "application/x-www-form-urlencoded";

	private static final String GOOD_PEOPLE = "[{\"name\":\"Ada\",\"secret\":\"s\",\"age\":36}]";

	@LocalServerPort
	private int port;

	static Stream<Arguments> badInputs() {
		return Stream.of(
				bad("truncated JSON array", "/json/people", JSON, "[{\"name\":\"Ada\",", 400),
				bad("trailing garbage after a JSON array", "/json/people", JSON, "[] x", 400),
				bad("an extra comma in a JSON array", "/json/people", JSON, "[{\"name\":\"a\"},]", 400),
				bad("unbalanced brackets", "/json/people", JSON, "[{\"name\":\"a\"}]]", 400),
				bad("JSON elements of the wrong type", "/json/people", JSON, "[1,2]", 400),
				bad("invalid UTF-8 in a JSON string", "/json/people", JSON,
						new byte[] { '[', '{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xC3, '(', '"', '}', ']' },
						400),
				bad("an empty body for a required JSON body", "/json/people", JSON, "", 400),
				bad("JSON nested past the mapper's depth limit", "/json/people", JSON,
						"[" + "[".repeat(1500) + "]".repeat(1500) + "]", 400),
				bad("a string in a long[]", "/json/longs", JSON, "[1,\"two\"]", 400),
				bad("a bad number in a long[]", "/json/longs", JSON, "[1,01]", 400),
				bad("a number past the mapper's length limit", "/json/longs", JSON, "[" + "9".repeat(1200) + "]",
						400),
				bad("malformed JSON streamed into a Flux", "/json/people/count", JSON, "[{\"name\":\"a\"},{x}]", 400),
				bad("a JSON body over the size limit", "/json/people", JSON, people(200), 413),
				bad("a String body over the size limit", "/echo/string", "text/plain", "x".repeat(5000), 413),
				bad("a content type no reader takes", "/json/people", "text/plain", GOOD_PEOPLE, 415),
				bad("a malformed percent-escape in a form", "/form/first", FORM, "q=1&x=%G1", 400),
				bad("a form field invalid in its charset", "/form/first", FORM, "q=%C3%28", 400),
				bad("more form fields than the limit", "/form/first", FORM, "f=1&".repeat(21), 413),
				bad("a form over the size limit", "/form/first", FORM, "q=" + "x".repeat(5000), 413));
	}

	private static Arguments bad(String name, String path, String contentType, String body, int status) {
		return bad(name, path, contentType, body.getBytes(StandardCharsets.UTF_8), status);
	}

	private static Arguments bad(String name, String path, String contentType, byte[] body, int status) {
		return Arguments.of(name, path, contentType, body, status);
	}

	private static String people(int count) {
		StringBuilder json = new StringBuilder("[");
		for (int i = 0; i < count; i++) {
			json.append((i > 0) ? "," : "").append("{\"name\":\"person-").append(i).append("\",\"age\":").append(i)
				.append('}');
		}
		return json.append(']').toString();
	}

	@ParameterizedTest(name = "{0}, with a Content-Length")
	@MethodSource("badInputs")
	void answersBadInputWithItsStatusAndKeepsTheConnection(String name, String path, String contentType, byte[] body,
			int status) throws Exception {
		answersAndKeepsTheConnection(path, contentType, body, status, false);
	}

	@ParameterizedTest(name = "{0}, chunked")
	@MethodSource("badInputs")
	void answersChunkedBadInputWithItsStatusAndKeepsTheConnection(String name, String path, String contentType,
			byte[] body, int status) throws Exception {
		answersAndKeepsTheConnection(path, contentType, body, status, true);
	}

	@Test
	void streamedElementOverTheSizeLimitInManyChunksIsContentTooLarge() throws Exception {
		// A Flux's limit is per element and counts what is held across chunks, on stock's path
		// and Fastpath's alike: an element that comes whole in one chunk is read.
		byte[] body = ("[{\"name\":\"" + "x".repeat(5000) + "\"}]").getBytes(StandardCharsets.UTF_8);
		answersAndKeepsTheConnection("/json/people/count", JSON, body, 413, true);
	}

	private void answersAndKeepsTheConnection(String path, String contentType, byte[] body, int status,
			boolean chunked) throws Exception {
		try (RawHttpConnection connection = new RawHttpConnection(this.port)) {
			RawHttpConnection.Response response = connection.exchange("POST", path, contentType, body, chunked);
			assertThat(response.status()).as(response.body()).isEqualTo(status);
			assertThat(response.headers().get("Content-Type")).startsWith("application/json");
			assertThat(response.body()).contains("\"status\":" + status, "\"path\":\"" + path + "\"");
			RawHttpConnection.Response next;
			if ("close".equalsIgnoreCase(response.headers().get("Connection"))) {
				// Tomcat closes the connection after a 400 or a 413, and says so
				next = goodRequestOnANewConnection();
			}
			else if ("Jetty".equals(server()) && (status == 413 || status == 415)) {
				// Jetty may keep a connection whose body was left unread and parse the rest of
				// that body as the next request (a 400 "Illegal character"), or close it: no
				// reader reads such a body, stock's alike. The server must serve a new one.
				next = goodRequestOnANewConnection();
			}
			else {
				try {
					next = goodRequest(connection);
				}
				catch (IOException ex) {
					// Reactor Netty closes a connection whose request body the application
					// stopped reading before its last chunk arrived (stock readers alike): only
					// chunked bodies can still be arriving after a body with a Content-Length
					// was read. Jetty closes one whose body the application left unread (a 413
					// at the size limit, a 415 that reads none of it) if the rest had not
					// arrived when the answer was done.
					boolean leftUnread = chunked || ("Jetty".equals(server()) && (status == 413 || status == 415));
					assertThat(leftUnread).as("the connection was closed after a body that was read whole")
						.isTrue();
					next = goodRequestOnANewConnection();
				}
			}
			assertThat(next.status()).as(next.body()).isEqualTo(200);
			assertThat(next.body()).isEqualTo(GOOD_PEOPLE);
		}
	}

	private RawHttpConnection.Response goodRequestOnANewConnection() throws IOException {
		try (RawHttpConnection fresh = new RawHttpConnection(this.port)) {
			return goodRequest(fresh);
		}
	}

	private static RawHttpConnection.Response goodRequest(RawHttpConnection connection) throws IOException {
		return connection.exchange("POST", "/json/people", JSON, GOOD_PEOPLE.getBytes(StandardCharsets.UTF_8), false);
	}

}
