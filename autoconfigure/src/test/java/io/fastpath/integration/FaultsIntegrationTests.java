package io.fastpath.integration;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.fastpath.test.CapturedLogs;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.adapter.HttpWebHandlerAdapter;

import io.fastpath.integration.FastpathTestApplication.Person;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Faults on real connections: a client that goes away mid-body, bodies that drip in a
 * byte at a time, a {@code Flux} cancelled mid-array on both sides, and a downstream that
 * resets mid-response under {@code WebClient}. Each must end cleanly (an answer or an
 * error, never a hang), leave the server serving, and leak nothing (Netty's paranoid
 * detector, see NettyLeakDetectionExtension).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.http.codecs.max-in-memory-size=1MB")
abstract class FaultsIntegrationTests extends RealServerTests {

	private static final ParameterizedTypeReference<List<Person>> PEOPLE = new ParameterizedTypeReference<>() {
	};

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@LocalServerPort
	private int port;

	@Autowired
	private ServerReads serverReads;

	@Autowired
	private ExchangeEnds exchangeEnds;

	/**
	 * The server must be done with each request (its handling ended, so the readers have
	 * released what they held) before it is asked to serve again: awaited, not slept on.
	 */
	@Test
	void clientThatGoesAwayMidBodyLeavesTheServerServing() throws Exception {
		assumeTrue(seesServerReads(), "ServerReads counts the bytes the server read on Reactor Netty only: "
				+ "elsewhere nothing shows that the body was cut after the server had a part of it");
		List<String> faults = new ArrayList<>();
		try (CapturedLogs serverLog = CapturedLogs.of(HttpWebHandlerAdapter.class)) {
			goAwayMidBody(faults);
			for (String fault : faults) {
				assertThat(this.exchangeEnds.awaitEnd(fault, TIMEOUT)).as(fault).isNotNull();
			}
			// WebFlux logs each request whose client left as a server error, on its own thread
			Awaitility.await()
				.atMost(TIMEOUT)
				.untilAsserted(() -> assertThat(serverLog.lines()).hasSize(faults.size()));
			assertThat(serverLog.lines()).allMatch((line) -> line.contains("500 Server Error for HTTP POST")
					&& line.contains("?fault=gone-"));
		}
		assertServerServes();
	}

	private void goAwayMidBody(List<String> faults) throws Exception {
		for (String path : new String[] { "/json/people", "/json/people/count", "/form/first", "/echo/string" }) {
			String fault = "gone-" + faults.size();
			faults.add(fault);
			try (RawHttpConnection connection = new RawHttpConnection(this.port)) {
				String type = path.startsWith("/form") ? "application/x-www-form-urlencoded"
						: path.startsWith("/echo") ? "text/plain" : "application/json";
				int head = connection.writeHead("POST", path + "?fault=" + fault, type, 30_000);
				byte[] part = "[{\"name\":\"Ada\"},{\"name\":\"Al".getBytes(StandardCharsets.UTF_8);
				connection.write(part);
				// The server has the part before the client goes: the body is cut mid-way.
				this.serverReads.awaitBytesRead(connection.localPort(), head + part.length, TIMEOUT);
			}
		}
	}

	@Test
	void jsonArrayDrippingInAByteAtATimeIsReadWhole() throws Exception {
		String body = "[{\"name\":\"Ada é\",\"secret\":\"s\",\"age\":36},{\"name\":\"Alan\",\"secret\":null,\"age\":41}]";
		for (String path : new String[] { "/json/people", "/json/people/count" }) {
			try (RawHttpConnection connection = new RawHttpConnection(this.port)) {
				byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
				int head = connection.writeHead("POST", path, "application/json", bytes.length);
				drip(connection, head, bytes);
				RawHttpConnection.Response response = connection.readResponse();
				assertThat(response.status()).isEqualTo(200);
				assertThat(response.body()).isEqualTo(path.endsWith("count") ? "2" : body);
			}
		}
	}

	@Test
	void formDrippingInAByteAtATimeIsReadWhole() throws Exception {
		try (RawHttpConnection connection = new RawHttpConnection(this.port)) {
			byte[] bytes = "p=1&q=caf%C3%A9+au+lait".getBytes(StandardCharsets.US_ASCII);
			int head = connection.writeHead("POST", "/form/first", "application/x-www-form-urlencoded", bytes.length);
			drip(connection, head, bytes);
			RawHttpConnection.Response response = connection.readResponse();
			assertThat(response.status()).isEqualTo(200);
			assertThat(response.body()).isEqualTo("café au lait");
		}
	}

	@Test
	void serverFluxCancelledMidArrayAnswersAndKeepsTheConnection() throws Exception {
		StringBuilder people = new StringBuilder("[");
		for (int i = 0; i < 2000; i++) {
			people.append((i > 0) ? "," : "").append("{\"name\":\"person-").append(i).append("\"}");
		}
		byte[] body = people.append(']').toString().getBytes(StandardCharsets.UTF_8);
		RawHttpConnection connection = new RawHttpConnection(this.port);
		try {
			for (boolean chunked : new boolean[] { false, true }) {
				RawHttpConnection.Response response;
				try {
					response = connection.exchange("POST", "/json/people/first", "application/json", body, chunked);
				}
				catch (IOException ex) {
					// Tomcat and Jetty may close a connection whose body the application stopped
					// reading before it had all arrived (stock readers alike); Reactor Netty keeps
					// it. Elsewhere a new connection must be served.
					assertThat(server()).as("connection closed: " + ex.getMessage()).isNotEqualTo("Netty");
					connection.close();
					connection = new RawHttpConnection(this.port);
					response = connection.exchange("POST", "/json/people/first", "application/json", body, chunked);
				}
				assertThat(response.status()).isEqualTo(200);
				assertThat(response.body()).isEqualTo("person-0");
			}
		}
		finally {
			connection.close();
		}
		assertServerServes();
	}

	@Test
	void clientFluxCancelledMidArrayReleasesTheRest() {
		for (boolean chunked : new boolean[] { false, true }) {
			List<Person> first = this.client.get()
				.uri("/client/people?count=5000&chunked=" + chunked)
				.retrieve()
				.bodyToFlux(Person.class)
				.take(3)
				.collectList()
				.block(TIMEOUT);
			assertThat(first).extracting(Person::name).containsExactly("person-0-ü", "person-1-ü", "person-2-ü");
		}
		assertServerServes();
	}

	@Test
	void downstreamThatResetsMidResponseFailsEveryClientCallCleanly() throws Exception {
		CompletableFuture<Void> serving;
		try (ServerSocket downstream = new ServerSocket(0)) {
			serving = CompletableFuture.runAsync(() -> resetMidResponse(downstream));
			WebClient client = this.client.mutate().baseUrl("http://localhost:" + downstream.getLocalPort()).build();
			List<Mono<?>> calls = List.of(client.get().retrieve().bodyToMono(PEOPLE),
					client.get().retrieve().toEntityList(Person.class), client.get().retrieve().bodyToMono(String.class),
					client.get().retrieve().bodyToMono(byte[].class),
					client.get().retrieve().bodyToFlux(Person.class).collectList(),
					client.get().retrieve().toEntity(String.class));
			for (Mono<?> call : calls) {
				assertThatException().isThrownBy(() -> call.block(TIMEOUT))
					.satisfies((ex) -> assertThat(ex).hasMessageNotContaining("Timeout on blocking read"));
			}
		}
		serving.get(10, TimeUnit.SECONDS);
		assertServerServes();
	}

	/** Answer every request with part of a JSON body, then reset the connection; until closed. */
	private static void resetMidResponse(ServerSocket server) {
		byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		byte[] part = "[{\"name\":\"Ada\",\"age\":36},{\"name\":\"Al".getBytes(StandardCharsets.UTF_8);
		while (!server.isClosed()) {
			try (Socket socket = server.accept()) {
				socket.getInputStream().read(new byte[8192]);
				OutputStream out = socket.getOutputStream();
				out.write(head);
				out.write(part);
				out.flush();
				socket.setSoLinger(true, 0);
			}
			catch (IOException ex) {
				// closed by the test, or the client went first
			}
		}
	}

	/**
	 * Write the body a byte at a time, each once the server has read all before it: every
	 * byte reaches the server in a read of its own, however the network would batch them.
	 */
	private void drip(RawHttpConnection connection, int headLength, byte[] bytes) throws Exception {
		if (seesServerReads()) {
			this.serverReads.awaitBytesRead(connection.localPort(), headLength, TIMEOUT);
		}
		for (int i = 0; i < bytes.length; i++) {
			connection.write(new byte[] { bytes[i] });
			if (seesServerReads()) {
				this.serverReads.awaitBytesRead(connection.localPort(), headLength + i + 1, TIMEOUT);
			}
		}
	}

	/**
	 * Whether {@link ServerReads} can tell what the server has read: on Reactor Netty only.
	 * On Tomcat and Jetty a dripped body is written a byte per write and flush, which the
	 * network may still batch into fewer reads.
	 */
	private boolean seesServerReads() {
		return "Netty".equals(server());
	}

	private void assertServerServes() {
		List<Person> people = this.client.post()
			.uri("/json/people")
			.bodyValue(List.of(new Person("Ada", "s", 36)))
			.retrieve()
			.bodyToMono(PEOPLE)
			.block(TIMEOUT);
		assertThat(people).containsExactly(new Person("Ada", "s", 36));
	}

}
