package io.fastpath.json.write;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.ReactiveHttpOutputMessage;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

import io.fastpath.test.LeakTrackingDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which messages pace a body by the release of its batches: Spring's own server response
 * and client request on Reactor Netty over a real connection, and a decorator of either
 * that hands its delegate the body as it is given; not a decorator that writes the body
 * itself (which may hold the buffers until the body ends), nor another server's response
 * or another client's request. And the batches that tell of their release, of Netty's
 * factory and of a heap one.
 */
class SendPacingTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	/** Whether each view of a message that Reactor Netty sends is paced, by its name. */
	private static final Map<String, Boolean> ON_REACTOR_NETTY = onReactorNetty();

	private final CompletableFuture<Map<String, Boolean>> responses = new CompletableFuture<>();

	private DisposableServer server;

	/** The allocator of a connection, which counts the buffers it holds. */
	private final UnpooledByteBufAllocator connection = new UnpooledByteBufAllocator(true);

	@BeforeEach
	void startServer() {
		HttpHandler handler = (request, response) -> {
			this.responses.complete(pacedViews(response, new ServerViews()));
			return response.setComplete();
		};
		this.server = HttpServer.create().port(0).handle(new ReactorHttpHandlerAdapter(handler)).bindNow(TIMEOUT);
	}

	@AfterEach
	void stopServer() {
		this.server.disposeNow(TIMEOUT);
	}

	@Test
	void springsResponseOnReactorNettyAndDecoratorsThatPassTheBodyOnArePaced() throws Exception {
		assertThat(responses()).containsExactlyEntriesOf(ON_REACTOR_NETTY);
	}

	@Test
	void springsClientRequestOnReactorNettyAndDecoratorsThatPassTheBodyOnArePaced() throws Exception {
		CompletableFuture<Map<String, Boolean>> requests = new CompletableFuture<>();
		new ReactorClientHttpConnector()
			.connect(HttpMethod.GET, URI.create("http://localhost:" + this.server.port() + "/"), (request) -> {
				requests.complete(pacedViews(request, new ClientViews()));
				return request.setComplete();
			})
			.flatMap((response) -> response.getBody().then())
			.block(TIMEOUT);
		assertThat(requests.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).containsExactlyEntriesOf(ON_REACTOR_NETTY);
	}

	@Test
	void messagesOfOtherServersAndClientsAreNotPacedDecoratedOrNot() {
		MockServerHttpResponse response = new MockServerHttpResponse();
		assertThat(pacedViews(response, new ServerViews())).containsOnlyKeys(ON_REACTOR_NETTY.keySet())
			.doesNotContainValue(true);
		MockClientHttpRequest request = new MockClientHttpRequest(HttpMethod.POST, "/");
		assertThat(pacedViews(request, new ClientViews())).containsOnlyKeys(ON_REACTOR_NETTY.keySet())
			.doesNotContainValue(true);
	}

	@Test
	void aBatchOfNettysIsHandedOnAsItIsAndTellsOfItsReleaseOnce() {
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		DataBuffer batch = netty.allocateBuffer(64);
		batch.write("[1,2]", StandardCharsets.UTF_8);
		List<Integer> released = new ArrayList<>();
		ByteBuf sent = NettyDataBufferFactory
			.toByteBuf(SendPacing.signalling(batch, 64, released::add, new NettyDataBufferFactory(this.connection)));
		assertThat(sent.toString(StandardCharsets.UTF_8)).isEqualTo("[1,2]");
		// Its own memory: a byte changed in the batch is the byte sent
		((NettyDataBuffer) batch).getNativeBuffer().setByte(0, '{');
		assertThat(sent.getByte(0)).isEqualTo((byte) '{');
		assertThat(this.connection.metric().usedDirectMemory()).isZero();
		assertThat(released).isEmpty();
		sent.release();
		assertThat(released).containsExactly(64);
		netty.assertNoLeaks();
	}

	/**
	 * A batch of a decorator's heap factory: handed on, Spring would copy it into a heap
	 * buffer for Reactor Netty and never release it, and Netty would copy that into a
	 * direct one as it writes it, releasing it long before it is sent. Copied once into a
	 * direct buffer of the connection's allocator instead, the batch released at once, the
	 * copy tells of its release.
	 */
	@Test
	void aBatchOfAHeapFactoryIsCopiedOnceIntoADirectBufferOfTheConnectionThatTellsOfItsRelease() {
		LeakTrackingDataBufferFactory.Heap heap = (LeakTrackingDataBufferFactory.Heap) LeakTrackingDataBufferFactory
			.heap();
		DataBuffer batch = heap.allocateBuffer(64);
		batch.write("[1,2]", StandardCharsets.UTF_8);
		List<Integer> released = new ArrayList<>();
		ByteBuf sent = NettyDataBufferFactory
			.toByteBuf(SendPacing.signalling(batch, 64, released::add, new NettyDataBufferFactory(this.connection)));
		heap.assertNoLeaks();
		assertThat(sent.isDirect()).isTrue();
		assertThat(sent.toString(StandardCharsets.UTF_8)).isEqualTo("[1,2]");
		assertThat(this.connection.metric().usedDirectMemory()).isPositive();
		assertThat(released).isEmpty();
		sent.release();
		assertThat(released).containsExactly(64);
		assertThat(this.connection.metric().usedDirectMemory()).isZero();
	}

	@Test
	void aBatchOnTheHeapOfNettysIsCopiedOnceIntoADirectBufferOfTheConnectionToo() {
		UnpooledByteBufAllocator heapAllocator = new UnpooledByteBufAllocator(false);
		DataBuffer batch = new NettyDataBufferFactory(heapAllocator).allocateBuffer(64);
		batch.write("[1,2]", StandardCharsets.UTF_8);
		List<Integer> released = new ArrayList<>();
		ByteBuf sent = NettyDataBufferFactory
			.toByteBuf(SendPacing.signalling(batch, 64, released::add, new NettyDataBufferFactory(this.connection)));
		assertThat(heapAllocator.metric().usedHeapMemory()).isZero();
		assertThat(sent.isDirect()).isTrue();
		assertThat(sent.toString(StandardCharsets.UTF_8)).isEqualTo("[1,2]");
		sent.release();
		assertThat(released).containsExactly(64);
		assertThat(this.connection.metric().usedDirectMemory()).isZero();
	}

	private Map<String, Boolean> responses() throws Exception {
		new ReactorClientHttpConnector()
			.connect(HttpMethod.GET, URI.create("http://localhost:" + this.server.port() + "/"),
					(request) -> request.setComplete())
			.flatMap((response) -> response.getBody().then())
			.block(TIMEOUT);
		return this.responses.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
	}

	private static Map<String, Boolean> onReactorNetty() {
		Map<String, Boolean> paced = new LinkedHashMap<>();
		paced.put("as it is", true);
		paced.put("decorated", true);
		paced.put("decorated for its buffers", true);
		paced.put("decorated twice", true);
		paced.put("decorated, writeWith overridden", false);
		paced.put("decorated, writeAndFlushWith overridden", false);
		paced.put("decorated over one that overrides writeWith", false);
		return paced;
	}

	/** Whether each view of the message is paced, by its name. */
	private static <M extends ReactiveHttpOutputMessage> Map<String, Boolean> pacedViews(M message, Views<M> views) {
		Map<String, Function<M, ReactiveHttpOutputMessage>> named = new LinkedHashMap<>();
		named.put("as it is", (plain) -> plain);
		named.put("decorated", views::passingOn);
		named.put("decorated for its buffers", views::forItsBuffers);
		named.put("decorated twice", (plain) -> views.passingOn(views.cast(views.forItsBuffers(plain))));
		named.put("decorated, writeWith overridden", views::writingItself);
		named.put("decorated, writeAndFlushWith overridden", views::flushingItself);
		named.put("decorated over one that overrides writeWith",
				(plain) -> views.passingOn(views.cast(views.writingItself(plain))));
		Map<String, Boolean> paced = new LinkedHashMap<>();
		named.forEach((name, view) -> paced.put(name, SendPacing.releasesOnceSent(view.apply(message))));
		return paced;
	}

	/** Decorators of one kind of message, as applications write them. */
	private interface Views<M extends ReactiveHttpOutputMessage> {

		M passingOn(M message);

		/**
		 * One that hands out buffers of another factory, and overrides nothing else: its
		 * body is paced until a batch turns out not to be Netty's.
		 */
		M forItsBuffers(M message);

		/** One that logs the body, and so writes it itself. */
		M writingItself(M message);

		/** One that logs each flushed part, and so writes them itself. */
		M flushingItself(M message);

		@SuppressWarnings("unchecked")
		default M cast(ReactiveHttpOutputMessage message) {
			return (M) message;
		}

	}

	private static final class ServerViews implements Views<ServerHttpResponse> {

		@Override
		public ServerHttpResponse passingOn(ServerHttpResponse response) {
			return new ServerHttpResponseDecorator(response);
		}

		@Override
		public ServerHttpResponse forItsBuffers(ServerHttpResponse response) {
			return new ServerHttpResponseDecorator(response) {

				@Override
				public DataBufferFactory bufferFactory() {
					return new DefaultDataBufferFactory();
				}

			};
		}

		@Override
		public ServerHttpResponse writingItself(ServerHttpResponse response) {
			return new ServerHttpResponseDecorator(response) {

				@Override
				public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
					return super.writeWith(Flux.from(body).doOnNext(DataBuffer::readableByteCount));
				}

			};
		}

		@Override
		public ServerHttpResponse flushingItself(ServerHttpResponse response) {
			return new ServerHttpResponseDecorator(response) {

				@Override
				public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
					return super.writeAndFlushWith(Flux.from(body).doOnNext(Object::hashCode));
				}

			};
		}

	}

	private static final class ClientViews implements Views<ClientHttpRequest> {

		@Override
		public ClientHttpRequest passingOn(ClientHttpRequest request) {
			return new ClientHttpRequestDecorator(request);
		}

		@Override
		public ClientHttpRequest forItsBuffers(ClientHttpRequest request) {
			return new ClientHttpRequestDecorator(request) {

				@Override
				public DataBufferFactory bufferFactory() {
					return new DefaultDataBufferFactory();
				}

			};
		}

		@Override
		public ClientHttpRequest writingItself(ClientHttpRequest request) {
			return new ClientHttpRequestDecorator(request) {

				@Override
				public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
					return super.writeWith(Flux.from(body).doOnNext(DataBuffer::readableByteCount));
				}

			};
		}

		@Override
		public ClientHttpRequest flushingItself(ClientHttpRequest request) {
			return new ClientHttpRequestDecorator(request) {

				@Override
				public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
					return super.writeAndFlushWith(Flux.from(body).doOnNext(Object::hashCode));
				}

			};
		}

	}

}
