package io.fastpath.json.write;

import java.util.function.Predicate;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBuffer.ByteBufferIterator;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.http.ReactiveHttpOutputMessage;
import org.springframework.http.client.reactive.ClientHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;

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

	/**
	 * The {@code Context} key of whether a body is paced: the buffer factory of the message
	 * that Reactor Netty sends (its connection's allocator), or {@code false}.
	 */
	private static final String PACED = SendPacing.class.getName() + ".PACED";

	private SendPacing() {
	}

	/**
	 * Say whether the body of the given write is paced: always, paced or not, so that a
	 * write made inside another (a {@code WebClient} body written from a response's
	 * source) does not inherit the other's pacing from the context it is subscribed in,
	 * and wait for releases its own transport never gives.
	 * @param message the message the body is written to: the body is paced if it hands the
	 * body to Reactor Netty as it is written ({@link #releasesOnceSent})
	 * @param write the write of the body
	 * @return the write, saying so
	 */
	static Mono<Void> pacedIf(ReactiveHttpOutputMessage message, Mono<Void> write) {
		// Every decorator of a message that releases once sent passes the body on
		Object paced = releasesOnceSent(message) ? undecorated(message).bufferFactory() : Boolean.FALSE;
		return write.contextWrite((context) -> context.put(PACED, paced));
	}

	/**
	 * Say that the body of the given write is not paced.
	 * @param write the write of the body
	 * @return the write, saying so
	 */
	static Mono<Void> notPaced(Mono<Void> write) {
		return write.contextWrite((context) -> context.put(PACED, Boolean.FALSE));
	}

	/**
	 * The context of a subscriber whose bodies are paced, sent through a connection whose
	 * allocator is Netty's unpooled one.
	 * @param context the subscriber's context
	 * @return the context that says so
	 */
	static Context paced(Context context) {
		return context.put(PACED, NettyBatches.UNPOOLED);
	}

	/**
	 * Whether the message hands each buffer to Reactor Netty, which releases it once it is
	 * written: Spring's own server response or client request for Reactor Netty, or a
	 * decorator of one that overrides neither {@code writeWith} nor
	 * {@code writeAndFlushWith}, and so hands its delegate the body it is given.
	 */
	static boolean releasesOnceSent(ReactiveHttpOutputMessage message) {
		return sentByReactorNetty(innermost(message, PASSES_BODY_ON::get));
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
		return innermost(message, (decorator) -> true);
	}

	/**
	 * The message that the given one decorates, through each decorator whose class the
	 * predicate accepts: the first decorator it refuses, or the undecorated message.
	 */
	private static ReactiveHttpOutputMessage innermost(ReactiveHttpOutputMessage message,
			Predicate<Class<?>> lookedThrough) {
		ReactiveHttpOutputMessage sent = message;
		ReactiveHttpOutputMessage delegate = delegate(sent);
		while (delegate != null && lookedThrough.test(sent.getClass())) {
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

	/**
	 * The buffer factory of the message that Reactor Netty sends, if the body subscribed
	 * with the given context is paced.
	 * @param context the body's subscriber's context
	 * @return the factory of the connection, or {@code null} if the body is not paced
	 */
	static @Nullable DataBufferFactory pacingTransport(ContextView context) {
		Object paced = context.getOrDefault(PACED, Boolean.FALSE);
		return (paced instanceof DataBufferFactory factory) ? factory : null;
	}

	/**
	 * The given batch as one that tells the listener when it is released. Only a body that
	 * Reactor Netty sends is paced ({@link #releasesOnceSent}), so Netty is present.
	 * @param batch the batch about to be emitted
	 * @param held the bytes to tell the listener of
	 * @param listener told once, with the given bytes, when the batch is released
	 * @param transport the buffer factory of the message Reactor Netty sends
	 * ({@link #pacingTransport})
	 * @return the batch to emit in its place
	 */
	static DataBuffer signalling(DataBuffer batch, int held, Listener listener, DataBufferFactory transport) {
		return NettyBatches.signalling(batch, held, listener, (NettyDataBufferFactory) transport);
	}

	/** Told when an emitted batch is released. */
	interface Listener {

		/**
		 * A batch was released: written, or dropped with the connection.
		 * @param bytes the bytes it was emitted with
		 */
		void released(int bytes);

	}

	/** Netty's types, loaded only when a body is paced. */
	private static final class NettyBatches {

		private static final NettyDataBufferFactory UNPOOLED = new NettyDataBufferFactory(
				UnpooledByteBufAllocator.DEFAULT);

		static DataBuffer signalling(DataBuffer batch, int held, Listener listener, NettyDataBufferFactory transport) {
			if (batch instanceof NettyDataBuffer nettyBatch && nettyBatch.getNativeBuffer().isDirect()) {
				return nettyBatch.factory().wrap(new SignallingByteBuf(nettyBatch.getNativeBuffer(), held, listener));
			}
			// A batch on the heap: Netty copies a heap buffer into a direct one as it writes
			// it, releasing it then, long before it is sent; and one of another factory (a
			// decorator's) Spring would first copy into a heap buffer of Netty's and never
			// release. Copied here into a direct buffer of the connection's allocator, which
			// Netty sends as it is, its release tells when it has gone out; the batch is done
			// with.
			ByteBuf copy = transport.getByteBufAllocator().directBuffer(batch.readableByteCount());
			try (ByteBufferIterator memory = batch.readableByteBuffers()) {
				memory.forEachRemaining(copy::writeBytes);
			}
			catch (RuntimeException | Error ex) {
				copy.release();
				throw ex;
			}
			DataBufferUtils.release(batch);
			return transport.wrap(new SignallingByteBuf(copy, held, listener));
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
