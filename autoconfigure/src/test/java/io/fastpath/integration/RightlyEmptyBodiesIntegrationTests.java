package io.fastpath.integration;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

import io.fastpath.integration.FastpathTestApplication.Person;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Responses whose {@code Content-Length} describes a body that is not sent (RFC 9110,
 * section 8.6): the answer to a {@code HEAD}, a 304 and a 204, each announcing 2,000,000
 * bytes, over the 1 MB limit. Stock reads them as empty, and so must Fastpath (it once
 * failed them with {@code DataBufferLimitException} before reading). Each call is made by
 * a client from Boot's {@code WebClient.Builder} (Fastpath, whose path must be taken) and
 * by a stock client, on the same bytes from a plain socket server.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.http.codecs.max-in-memory-size=1MB")
abstract class RightlyEmptyBodiesIntegrationTests extends RealServerTests {

	private static final ParameterizedTypeReference<List<Person>> PEOPLE = new ParameterizedTypeReference<>() {
	};

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final Map<String, String> STATUS_LINES = Map.of("/ok", "200 OK", "/not-modified",
			"304 Not Modified", "/no-content", "204 No Content");

	private ServerSocket downstream;

	private CompletableFuture<Void> serving;

	@BeforeEach
	void startDownstream() throws IOException {
		this.downstream = new ServerSocket(0);
		this.serving = CompletableFuture.runAsync(() -> answerWithoutBodies(this.downstream));
	}

	@AfterEach
	void stopDownstream() throws Exception {
		this.downstream.close();
		this.serving.get(10, TimeUnit.SECONDS);
	}

	static Stream<Arguments> responses() {
		return Stream.of(Arguments.of(HttpMethod.HEAD, "/ok"), Arguments.of(HttpMethod.GET, "/not-modified"),
				Arguments.of(HttpMethod.GET, "/no-content"), Arguments.of(HttpMethod.HEAD, "/not-modified"));
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("responses")
	void bodyToMonoStringIsEmptyAsWithStock(HttpMethod method, String path) {
		assertSameAsStock((client) -> client.method(method).uri(path).retrieve().bodyToMono(String.class));
		assertThat(this.recorder.reads()).containsExactly("client:StringDecoder");
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("responses")
	void bodyToMonoBytesIsEmptyAsWithStock(HttpMethod method, String path) {
		assertSameAsStock((client) -> client.method(method).uri(path).retrieve().bodyToMono(byte[].class));
		assertThat(this.recorder.reads()).containsExactly("client:ByteArrayDecoder");
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("responses")
	void bodyToMonoListIsEmptyAsWithStock(HttpMethod method, String path) {
		assertSameAsStock((client) -> client.method(method).uri(path).retrieve().bodyToMono(PEOPLE));
		assertThat(this.recorder.reads()).containsExactly("client:FastpathJsonDecoder");
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("responses")
	void toEntityHasNoBodyAsWithStock(HttpMethod method, String path) {
		assertSameAsStock((client) -> client.method(method)
			.uri(path)
			.retrieve()
			.toEntity(String.class)
			.map((entity) -> List.of(entity.getStatusCode().value(), String.valueOf(entity.getBody()),
					entity.getHeaders().getContentLength())));
		assertThat(this.recorder.reads()).containsExactly("client:StringDecoder");
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("responses")
	void exchangeBodyToMonoIsEmptyAsWithStock(HttpMethod method, String path) {
		assertSameAsStock((client) -> client.method(method)
			.uri(path)
			.exchangeToMono((response) -> response.bodyToMono(String.class)
				.map((body) -> "body: " + body)
				.defaultIfEmpty("empty, status " + response.statusCode().value())));
		assertThat(this.recorder.reads()).containsExactly("client:StringDecoder");
	}

	private void assertSameAsStock(Function<WebClient, Mono<?>> call) {
		String baseUrl = "http://localhost:" + this.downstream.getLocalPort();
		WebClient stock = WebClient.builder()
			.baseUrl(baseUrl)
			.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(1024 * 1024))
			.build();
		Outcome expected = outcome(call.apply(stock));
		this.recorder.clear();
		Outcome fastpath = outcome(call.apply(this.client.mutate().baseUrl(baseUrl).build()));
		assertThat(expected.error()).as("stock's outcome").isNull();
		assertThat(fastpath).isEqualTo(expected);
	}

	private static Outcome outcome(Mono<?> call) {
		try {
			Object value = call.block(TIMEOUT);
			// Arrays compare by identity: compare their content.
			return new Outcome((value instanceof byte[] bytes) ? List.of(new String(bytes, StandardCharsets.UTF_8))
					: value, null);
		}
		catch (RuntimeException ex) {
			return new Outcome(null, ex.getClass().getName() + ": " + ex.getMessage());
		}
	}

	/**
	 * Answer every request with the status its path names and a Content-Length of 2,000,000
	 * bytes, sending no body (none can follow a HEAD, 204 or 304), then close.
	 */
	private static void answerWithoutBodies(ServerSocket server) {
		while (!server.isClosed()) {
			try (Socket socket = server.accept()) {
				String requestLine = readHead(socket.getInputStream());
				String path = requestLine.split(" ")[1];
				String head = "HTTP/1.1 " + STATUS_LINES.getOrDefault(path, "404 Not Found") + "\r\n"
						+ "Content-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n";
				socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
				socket.getOutputStream().flush();
			}
			catch (IOException ex) {
				// closed by the test
			}
		}
	}

	/** Read a request head (requests here have no body) and return its first line. */
	private static String readHead(InputStream in) throws IOException {
		ByteArrayOutputStream head = new ByteArrayOutputStream();
		int matched = 0;
		byte[] end = { '\r', '\n', '\r', '\n' };
		for (int b = in.read(); b != -1; b = in.read()) {
			head.write(b);
			matched = (b == end[matched]) ? matched + 1 : ((b == '\r') ? 1 : 0);
			if (matched == end.length) {
				break;
			}
		}
		return head.toString(StandardCharsets.US_ASCII).lines().findFirst().orElse("");
	}

	record Outcome(@Nullable Object value, @Nullable String error) {

	}

}
