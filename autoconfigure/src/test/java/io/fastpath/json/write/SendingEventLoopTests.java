package io.fastpath.json.write;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import org.springframework.http.HttpMethod;
import org.springframework.http.ReactiveHttpOutputMessage;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The event loop of a message Reactor Netty sends, found for Spring's own server response
 * and client request over a real connection, and through a decorator of either; none
 * for another server's response or another client's request. Each loop is checked by
 * where its tasks run: at once on the loop itself, on the loop when scheduled from
 * another thread.
 */
class SendingEventLoopTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final CompletableFuture<String> found = new CompletableFuture<>();

	private DisposableServer server;

	@BeforeEach
	void startServer() {
		HttpHandler handler = (request, response) -> {
			ReactiveHttpOutputMessage message = "/decorated".equals(request.getPath().value())
					? new ServerHttpResponseDecorator(response) : response;
			whereTasksRun(message).thenAccept(this.found::complete);
			return response.setComplete();
		};
		this.server = HttpServer.create().port(0).handle(new ReactorHttpHandlerAdapter(handler)).bindNow(TIMEOUT);
	}

	@AfterEach
	void stopServer() {
		this.server.disposeNow(TIMEOUT);
	}

	@Test
	void theEventLoopOfSpringsResponseOnReactorNettyRunsItsTasks() throws Exception {
		get("/");
		assertThat(this.found.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("at once, then on the loop");
	}

	@Test
	void theEventLoopOfSpringsClientRequestOnReactorNettyRunsItsTasks() throws Exception {
		assertThat(whereClientTasksRun((request) -> request)).isEqualTo("at once, then on the loop");
	}

	@Test
	void aDecoratedClientRequestIsSentOnTheEventLoopOfTheRequestItDecorates() throws Exception {
		assertThat(whereClientTasksRun(ClientHttpRequestDecorator::new)).isEqualTo("at once, then on the loop");
	}

	@Test
	void aDecoratedResponseIsSentOnTheEventLoopOfTheResponseItDecorates() throws Exception {
		get("/decorated");
		assertThat(this.found.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("at once, then on the loop");
	}

	@Test
	void aMessageOfAnotherServerOrClientHasNoEventLoop() {
		assertThat(SendingEventLoop.of(new MockServerHttpResponse())).isNull();
		assertThat(SendingEventLoop.of(new ServerHttpResponseDecorator(new MockServerHttpResponse()))).isNull();
		MockClientHttpRequest request = new MockClientHttpRequest(HttpMethod.POST, "/");
		assertThat(SendingEventLoop.of(new ClientHttpRequestDecorator(request))).isNull();
	}

	/** Where the tasks run of the loop found for the given view of a real client request. */
	private String whereClientTasksRun(Function<ClientHttpRequest, ReactiveHttpOutputMessage> view) throws Exception {
		CompletableFuture<String> client = new CompletableFuture<>();
		new ReactorClientHttpConnector()
			.connect(HttpMethod.GET, URI.create("http://localhost:" + this.server.port() + "/"), (request) -> {
				whereTasksRun(view.apply(request)).thenAccept(client::complete);
				return request.setComplete();
			})
			.flatMap((response) -> response.getBody().then())
			.block(TIMEOUT);
		return client.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
	}

	private void get(String path) {
		new ReactorClientHttpConnector()
			.connect(HttpMethod.GET, URI.create("http://localhost:" + this.server.port() + path),
					(request) -> request.setComplete())
			.flatMap((response) -> response.getBody().then())
			.block(TIMEOUT);
	}

	/**
	 * Where the tasks of the message's event loop run, called on that loop: a task
	 * scheduled there runs before {@code schedule} returns, one scheduled from another
	 * thread runs on the loop, once the caller has returned.
	 */
	private static CompletableFuture<String> whereTasksRun(ReactiveHttpOutputMessage message) {
		Scheduler loop = SendingEventLoop.of(message);
		if (loop == null) {
			return CompletableFuture.completedFuture("no loop");
		}
		Thread onLoop = Thread.currentThread();
		CompletableFuture<Thread> atOnce = new CompletableFuture<>();
		loop.schedule(() -> atOnce.complete(Thread.currentThread()));
		if (atOnce.getNow(null) != onLoop) {
			return CompletableFuture.completedFuture("not at once: " + atOnce.getNow(null));
		}
		CompletableFuture<Thread> fromElsewhere = new CompletableFuture<>();
		new Thread(() -> loop.schedule(() -> fromElsewhere.complete(Thread.currentThread()))).start();
		return fromElsewhere.thenApply((thread) -> (thread == onLoop) ? "at once, then on the loop" : "on " + thread);
	}

}
