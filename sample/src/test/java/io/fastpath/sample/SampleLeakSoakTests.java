package io.fastpath.sample;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leak soak: the sample under a bounded concurrent load on loopback, good requests to
 * every endpoint mixed with bad ones (malformed JSON and forms, too many fields, too large
 * bodies, wrong content types), with Netty's leak detector at paranoid (the build's
 * setting, and NettyLeakDetectionExtension from the autoconfigure module's test jar, which
 * fails the class on any LEAK report). Prints the count of requests by endpoint and status;
 * fails on any 5xx, on any request without an answer within 10 seconds (counted as
 * status -1) and on any answer other than the expected one. Runs 15 seconds in a
 * build; longer with {@code -Dfastpath.soak.seconds=<n>}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleLeakSoakTests {

	/**
	 * The requests by status at INFO, which a green build does not show (see
	 * logback-test.xml); a request that got no answer at WARN, which it does.
	 */
	private static final Log logger = LogFactory.getLog(SampleLeakSoakTests.class);

	private static final int CONCURRENCY = 16;

	private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);

	/** The status counted for a request that got no answer (an error or a hang). */
	private static final int NO_ANSWER = -1;

	private static final List<String> NO_ANSWERS = new CopyOnWriteArrayList<>();

	private static final String JSON = "application/json";

	private static final String FORM = "application/x-www-form-urlencoded";

	private static final String MULTIPART = "multipart/form-data; boundary=b";

	@LocalServerPort
	private int port;

	@Test
	void soakAnswersEveryRequestAsExpectedAndLeaksNothing() {
		String orders = orders(100);
		List<Request> requests = List.of(new Request("POST", "/orders/batch", JSON, orders, 200),
				new Request("POST", "/orders/stream", JSON, orders, 200),
				new Request("POST", "/orders/ids", JSON, "[1,2,3,4,5,6,7,8,9,10]", 200),
				new Request("GET", "/catalog/summary?count=50", null, null, 200),
				new Request("GET", "/orders/recent?count=200", null, null, 200),
				new Request("GET", "/catalog/entity-summary?count=50", null, null, 200),
				new Request("POST", "/signup", FORM, "email=a%40b.io&seats=2&tag=x&tag=y", 200),
				new Request("POST", "/search?q=tea", FORM, "q=cake&size=10", 200),
				new Request("POST", "/feedback", FORM, "rating=5&comment=ok", 200),
				new Request("POST", "/support", MULTIPART, part("subject", null, "help") + part("attachment", "a.txt",
						"x".repeat(300_000)) + "--b--\r\n", 200),
				new Request("POST", "/support", MULTIPART, part("subject", null, "cut") + part("attachment", "a.txt",
						"x".repeat(1000)), 400),
				new Request("POST", "/echo", "text/plain", "hello", 200),
				new Request("POST", "/orders/batch", JSON, orders.substring(0, orders.length() / 2), 400),
				new Request("POST", "/orders/stream", JSON, "[{\"id\":\"o-1\"},{x}]", 400),
				new Request("POST", "/orders/ids", JSON, "[1,\"two\"]", 400),
				new Request("POST", "/signup", FORM, "email=a%G1", 400),
				new Request("POST", "/signup", FORM, "seats=2", 400),
				new Request("POST", "/feedback", FORM, "rating=%C3%28", 400),
				new Request("POST", "/search", FORM, "f=1&".repeat(1001), 413),
				new Request("POST", "/orders/batch", JSON, orders(4000), 413),
				new Request("POST", "/orders/batch", "text/plain", orders, 415));
		WebClient client = WebClient.builder().baseUrl("http://localhost:" + this.port).build();
		Map<String, Map<Integer, AtomicLong>> counts = new ConcurrentHashMap<>();
		long deadline = System.nanoTime() + Duration.ofSeconds(Long.getLong("fastpath.soak.seconds", 15)).toNanos();
		Flux.range(0, Integer.MAX_VALUE)
			.takeWhile((i) -> System.nanoTime() < deadline)
			.flatMap((i) -> send(client, requests.get(i % requests.size()), counts), CONCURRENCY)
			.blockLast(Duration.ofMinutes(30));
		Map<String, Map<Integer, AtomicLong>> sorted = new TreeMap<>(counts);
		StringBuilder byEndpoint = new StringBuilder("requests by endpoint and status");
		sorted.forEach((request, byStatus) -> byEndpoint.append(String.format("%n  %-60s %s", request, byStatus)));
		logger.info(byEndpoint);
		NO_ANSWERS.forEach((failure) -> logger.warn("no answer: " + failure));
		sorted.forEach((request, byStatus) -> {
			assertThat(byStatus.keySet()).as(request + ": answered").doesNotContain(NO_ANSWER);
			assertThat(byStatus.keySet()).as(request).allMatch((status) -> status < 500);
			assertThat(byStatus.keySet()).as(request).containsExactly(Integer.parseInt(request.split("-> ")[1]));
		});
		assertThat(sorted).hasSize(requests.size());
	}

	private static Mono<Integer> send(WebClient client, Request request, Map<String, Map<Integer, AtomicLong>> counts) {
		// One connection per request: on a reused keep-alive connection Reactor Netty's client
		// and server race when the server answers before reading a body, and a request now
		// and then gets no answer or a premature close, with stock Spring as well.
		WebClient.RequestBodySpec spec = client.method(HttpMethod.valueOf(request.method()))
			.uri(request.uri())
			.header("Connection", "close");
		if (request.body() != null) {
			spec.header("Content-Type", request.contentType());
			spec.bodyValue(request.body().getBytes(StandardCharsets.UTF_8));
		}
		return spec.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))
			.timeout(ANSWER_TIMEOUT)
			.onErrorResume((ex) -> {
				NO_ANSWERS.add(request.describe() + ": " + ex);
				return Mono.just(NO_ANSWER);
			})
			.doOnNext((status) -> counts.computeIfAbsent(request.describe(), (key) -> new ConcurrentHashMap<>())
				.computeIfAbsent(status, (key) -> new AtomicLong())
				.incrementAndGet());
	}

	private static String orders(int count) {
		StringBuilder json = new StringBuilder("[");
		for (int i = 0; i < count; i++) {
			json.append((i > 0) ? "," : "")
				.append("{\"id\":\"o-").append(i)
				.append("\",\"customer\":\"Ada\",\"lines\":[{\"sku\":\"tea\",\"quantity\":2,\"unitPrice\":3.50}]}");
		}
		return json.append(']').toString();
	}

	private record Request(String method, String uri, String contentType, String body, int expectedStatus) {

		String describe() {
			String kind = (this.body == null) ? "" : " " + this.contentType + " " + this.body.length() + "B";
			return this.method + " " + this.uri + kind + " -> " + this.expectedStatus;
		}

	}

	/** A part of a {@link #MULTIPART} body, without the closing boundary. */
	private static String part(String name, String filename, String content) {
		return "--b\r\nContent-Disposition: form-data; name=\"" + name + "\""
				+ ((filename != null) ? "; filename=\"" + filename + "\"" : "") + "\r\n\r\n" + content + "\r\n";
	}

}
