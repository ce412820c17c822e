package io.fastpath.json.write;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.ReactiveHttpOutputMessage;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;

import io.fastpath.buffer.NettyBuffers;

/**
 * Whether the batches of a body are paced by what its transport has sent, and the
 * batches that tell when it has. Reactor Netty asks a body for 128 buffers ahead of
 * writing ({@code MonoSendMany}): a value each from stock's encoder, a batch of up to the
 * cap each from {@link ReadyBatches}, which would hold megabytes for a slow client and make
 * as many values for one that has left. Demand cannot tell what has gone out; the
 * buffers' release can: Netty releases each once it is written to the socket, or dropped
 * with the connection. A paced body holds at most a budget of memory in batches that are
 * written and not yet released (see {@link ReadyBatches}).
 * <p>Only a body that reaches Reactor Netty as it is written, server response or
 * {@code WebClient} request, is paced: written to Spring's own message, or to a decorator
 * of it that passes the body on untouched (one that sets headers, or traces the
 * exchange). A decorator that writes the body itself may hold the buffers until the body
 * ends (one that joins it to log or sign it), and a body waiting for their release would
 * never end. Servlet containers ask for one buffer at a time, once the one before is
 * written ({@code AbstractListenerWriteProcessor}), which paces them already, and their
 * heap buffers need no release at all.
 * <p>The writers say so in the subscriber's {@code Context}, which reaches the body
 * through Spring's and Reactor Netty's operators whichever writer made it, the SSE
 * writer's own batches as those of the encoder that the JSON writer calls.
 *
 * @author Fastpath
 */
final class SendPacing {

	private static final boolean NETTY_PRESENT = NettyBuffers.onClassPath();

	private static final String REACTOR_RESPONSE = "org.springframework.http.server.reactive.ReactorServerHttpResponse";

	private static final String REACTOR_REQUEST = "org.springframework.http.client.reactive.ReactorClientHttpRequest";

	/**
	 * Whether a decorator class hands its delegate the body it is given: it inherits both
	 * body writes of Spring's decorator. Asked once a class.
	 */
	private static final ClassValue<Boolean> PASSES_BODY_ON = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			return inheritsWrite(type, "writeWith") && inheritsWrite(type, "writeAndFlushWith");
		}

		private static boolean inheritsWrite(Class<?> type, String name) {
			try {
				Class<?> declaring = type.getMethod(name, Publisher.class).getDeclaringClass();
				return declaring == ServerHttpResponseDecorator.class || declaring == ClientHttpRequestDecorator.class;
			}
			catch (NoSuchMethodException ex) {
				return false;
			}
		}

	};

	/** The {@code Context} key of whether a body is paced. */
	private static final String PACED = SendPacing.class.getName() + ".PACED";

	private SendPacing() {
	}

	/**
	 * Say whether the body of the given write is paced: always, paced or not, so that a
	 * write made inside another (a {@code WebClient} body written from a response's
	 * source) does not inherit the other's pacing from the context it is subscribed in,
	 * and wait for releases its own transport never gives.
	 * @param paced whether its message hands the body to Reactor Netty as it is written
	 * ({@link #releasesOnceSent})
	 * @param write the write of a body
	 * @return the write, saying so
	 */
	static Mono<Void> pacedIf(boolean paced, Mono<Void> write) {
		return write.contextWrite((context) -> context.put(PACED, paced));
	}

	/**
	 * The context of a subscriber whose bodies are paced.
	 * @param context the subscriber's context
	 * @return the context that says so
	 */
	static Context paced(Context context) {
		return context.put(PACED, Boolean.TRUE);
	}

	/**
	 * Whether the message hands each buffer to Reactor Netty, which releases it once it is
	 * written: Spring's own server response or client request for Reactor Netty, or a
	 * decorator of one that overrides neither {@code writeWith} nor
	 * {@code writeAndFlushWith}, and so hands its delegate the body it is given.
	 */
	static boolean releasesOnceSent(ReactiveHttpOutputMessage message) {
		ReactiveHttpOutputMessage sent = message;
		ReactiveHttpOutputMessage delegate = delegate(sent);
		while (delegate != null && PASSES_BODY_ON.get(sent.getClass())) {
			sent = delegate;
			delegate = delegate(sent);
		}
		return sentByReactorNetty(sent);
	}

	/**
	 * Whether the message is Spring's own server response or client request for Reactor
	 * Netty, not a decorator of one nor a subclass. Both classes are package-private, hence
	 * their names.
	 */
	static boolean sentByReactorNetty(ReactiveHttpOutputMessage message) {
		String type = message.getClass().getName();
		return type.equals(REACTOR_RESPONSE) || type.equals(REACTOR_REQUEST);
	}

	/**
	 * Whether the message is Reactor Netty's, or a decorator of one, whatever the decorator
	 * does with the body: its write ends once Reactor Netty has sent the body or failed to,
	 * where the JDK's and Jetty's connectors end a request's write before they subscribe
	 * to its body.
	 */
	static boolean reachesReactorNetty(ReactiveHttpOutputMessage message) {
		return sentByReactorNetty(undecorated(message));
	}

	/**
	 * The message that the given one decorates (server response, client request) through
	 * every decorator, or the message itself when it decorates none.
	 */
	static ReactiveHttpOutputMessage undecorated(ReactiveHttpOutputMessage message) {
		ReactiveHttpOutputMessage sent = message;
		ReactiveHttpOutputMessage delegate = delegate(sent);
		while (delegate != null) {
			sent = delegate;
			delegate = delegate(sent);
		}
		return sent;
	}

	private static @Nullable ReactiveHttpOutputMessage delegate(ReactiveHttpOutputMessage message) {
		if (message instanceof ServerHttpResponseDecorator decorator) {
			return decorator.getDelegate();
		}
		if (message instanceof ClientHttpRequestDecorator decorator) {
			return decorator.getDelegate();
		}
		return null;
	}

	/** Whether the body subscribed with the given context is paced. */
	static boolean isPaced(ContextView context) {
		return Boolean.TRUE.equals(context.getOrDefault(PACED, Boolean.FALSE));
	}

	/**
	 * The given batch as one that tells the listener when it is released, or {@code null}
	 * when it cannot (not a Netty buffer): the batch is then left as it was.
	 * @param batch the batch about to be emitted
	 * @param held the bytes to tell the listener of
	 * @param listener told once, with the given bytes, when the batch is released
	 * @return the batch to emit in its place, or {@code null}
	 */
	static @Nullable DataBuffer signalling(DataBuffer batch, int held, Listener listener) {
		return NETTY_PRESENT ? NettyBatches.signalling(batch, held, listener) : null;
	}

	/** Told when an emitted batch is released. */
	interface Listener {

		/**
		 * A batch was released: written, or dropped with the connection.
		 * @param bytes the bytes it was emitted with
		 */
		void released(int bytes);

	}

	/** Netty's types, loaded only when Netty is present. */
	private static final class NettyBatches {

		static @Nullable DataBuffer signalling(DataBuffer batch, int held, Listener listener) {
			if (!(batch instanceof NettyDataBuffer nettyBatch)) {
				return null;
			}
			ByteBuf bytes = nettyBatch.getNativeBuffer();
			NettyDataBufferFactory factory = nettyBatch.factory();
			return factory.wrap(new SignallingByteBuf(bytes, held, listener));
		}

	}

	/**
	 * The batch as the one component of a composite whose release tells the listener.
	 * Netty has no release callback on a buffer; a composite is the one public buffer
	 * type whose deallocation can be overridden and that takes another buffer over as it
	 * is, without copying it (Netty writes its one component's memory to the socket).
	 */
	private static final class SignallingByteBuf extends CompositeByteBuf {

		private final int held;

		private final Listener listener;

		SignallingByteBuf(ByteBuf batch, int held, Listener listener) {
			super(batch.alloc(), batch.isDirect(), 1, batch);
			this.held = held;
			this.listener = listener;
		}

		@Override
		protected void deallocate() {
			super.deallocate();
			this.listener.released(this.held);
		}

	}

}
