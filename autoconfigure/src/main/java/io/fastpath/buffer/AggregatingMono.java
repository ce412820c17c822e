package io.fastpath.buffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBuffer;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

/**
 * The operator behind {@link DataBufferAggregator#aggregate}: one {@code Mono} and one
 * subscriber per body, holding the single buffer received or the buffer it joins into.
 * A hand-written subscriber rather than {@code collect}/{@code reduce}, because the point
 * is to allocate nothing per body beyond these two objects on the one-buffer path.
 * <p>How several buffers are joined depends on where they come from:
 * <ul>
 * <li>Netty buffers are gathered, without a copy, into a {@code CompositeByteBuf}, as
 * stock does: readers of direct memory copy it out anyway, so a contiguous copy would
 * only add one (it cost throughput: figures in docs/how-it-works.md, "Measurements behind the design"). Past
 * {@value #MAX_COMPOSITE_COMPONENTS} pieces, a body that trickles in is moved once into
 * one contiguous buffer, so that the component count does not grow with the number of
 * pieces.</li>
 * <li>Other buffers (heap buffers of {@code DefaultDataBufferFactory}) are copied into
 * one contiguous buffer of their factory, which grows with what has arrived (to at most
 * twice it), up to the expected length: a body whose first two pieces hold half of it or
 * more is copied once; stock copies each piece twice.</li>
 * </ul>
 *
 * @author Fastpath
 */
final class AggregatingMono extends Mono<DataBuffer> {

	private static final boolean NETTY_PRESENT = NettyBuffers.onClassPath();

	/**
	 * Most pieces a Netty body is gathered from before it is moved into one buffer: only a
	 * trickle of small pieces gets there. Not Netty's default of 16: a 200 KB response
	 * arrives in more pieces than that, and moving it into one direct buffer cost a
	 * {@code bodyToMono(String)} throughput against stock, which never moves it (figures in
	 * docs/how-it-works.md, "Measurements behind the design").
	 */
	static final int MAX_COMPOSITE_COMPONENTS = 1024;

	private final Publisher<? extends DataBuffer> source;

	private final int maxByteCount;

	private final long expectedLength;

	private final Runnable limitExceeded;

	AggregatingMono(Publisher<? extends DataBuffer> source, int maxByteCount, long expectedLength,
			Runnable limitExceeded) {
		this.source = source;
		this.maxByteCount = maxByteCount;
		this.expectedLength = expectedLength;
		this.limitExceeded = limitExceeded;
	}

	@Override
	public void subscribe(CoreSubscriber<? super DataBuffer> actual) {
		this.source.subscribe(
				new AggregatingSubscriber(actual, this.maxByteCount, this.expectedLength, this.limitExceeded));
	}

	static final class AggregatingSubscriber extends BodyBufferingSubscriber<DataBuffer> {

		private final int maxByteCount;

		private final long expectedLength;

		private final Runnable limitExceeded;

		/**
		 * The first buffer received while it is the only one, then the buffer that the body
		 * is joined into. Guarded by {@code this}: onNext runs on the upstream thread, cancel
		 * may run on any thread, and whichever comes second must release what the other holds.
		 */
		private @Nullable DataBuffer held;

		/** Whether {@link #held} is our own joined buffer rather than the first buffer received. */
		private boolean joined;

		/** Pieces gathered in {@link #held} while it is a Netty composite, else 0. */
		private int components;

		private long byteCount;

		AggregatingSubscriber(CoreSubscriber<? super DataBuffer> actual, int maxByteCount, long expectedLength,
				Runnable limitExceeded) {
			super(actual);
			this.maxByteCount = maxByteCount;
			this.expectedLength = expectedLength;
			this.limitExceeded = limitExceeded;
		}

		@Override
		public void onNext(DataBuffer buffer) {
			if (isDone()) {
				DataBufferUtils.release(buffer);
				return;
			}
			this.byteCount += buffer.readableByteCount();
			// A declared length over the limit fails on the first byte: where it describes a
			// body that is not sent (a response to HEAD, a 204, a 304), no byte comes.
			if (this.maxByteCount >= 0
					&& (this.byteCount > this.maxByteCount || this.expectedLength > this.maxByteCount)) {
				DataBufferUtils.release(buffer);
				cancelUpstream();
				this.limitExceeded.run();
				fail(DataBufferAggregator.limitExceeded(this.maxByteCount));
				return;
			}
			try {
				synchronized (this) {
					if (isCancelled()) {
						DataBufferUtils.release(buffer);
						return;
					}
					DataBuffer held = this.held;
					if (held == null) {
						this.held = buffer;
						return;
					}
					append(held, buffer);
				}
			}
			catch (Throwable ex) {
				// Allocation or copy failed; append left in held only what is still ours.
				cancelUpstream();
				fail(ex);
			}
		}

		/**
		 * Add a buffer to the body held so far ({@code target}, which is {@link #held}).
		 * Every buffer involved ends up in {@link #held} or released, also when this
		 * throws.
		 */
		private void append(DataBuffer target, DataBuffer next) {
			boolean nextTaken = false;
			try {
				if (NETTY_PRESENT && !this.joined) {
					// The composite takes both over, also when it throws.
					this.held = null;
					nextTaken = true;
					DataBuffer composite = NettyJoin.composite(target, next);
					if (composite != null) {
						this.held = composite;
						this.joined = true;
						this.components = 2;
						return;
					}
					nextTaken = false;
					this.held = target;
				}
				else if (this.components > 0 && this.components < MAX_COMPOSITE_COMPONENTS) {
					// The composite takes next over, also when it throws.
					nextTaken = true;
					if (NettyJoin.add(target, next)) {
						this.components++;
						return;
					}
					nextTaken = false;
				}
				if (this.joined && this.components == 0) {
					DataBuffer joinedBuffer = target;
					if (target.writableByteCount() < next.readableByteCount()) {
						this.held = null;
						joinedBuffer = copyIntoOwnBuffer(target);
						this.held = joinedBuffer;
					}
					copy(next, joinedBuffer);
					return;
				}
				// The first buffer is the sender's, or a trickle of Netty pieces was gathered:
				// move the body into one contiguous buffer of our own.
				this.held = null;
				this.joined = true;
				this.components = 0;
				DataBuffer ownBuffer = copyIntoOwnBuffer(target);
				this.held = ownBuffer;
				copy(next, ownBuffer);
			}
			finally {
				if (!nextTaken) {
					DataBufferUtils.release(next);
				}
			}
		}

		/**
		 * Copy into a new contiguous buffer of the same factory, with room for the body
		 * received so far, releasing the original.
		 */
		private DataBuffer copyIntoOwnBuffer(DataBuffer original) {
			try {
				DataBuffer target = original.factory().allocateBuffer(capacityFor(this.byteCount));
				try {
					copy(original, target);
					return target;
				}
				catch (Throwable ex) {
					DataBufferUtils.release(target);
					throw ex;
				}
			}
			finally {
				DataBufferUtils.release(original);
			}
		}

		/**
		 * Copy the readable bytes of source to target, once, leaving the source's read
		 * position alone. Not {@code DataBuffer#write(DataBuffer...)}: {@code DefaultDataBuffer}
		 * implements it by first copying each source into a new {@code ByteBuffer}, and
		 * {@code NettyDataBuffer} consumes its sources. The target has room for them:
		 * {@link #append} made it.
		 */
		private static void copy(DataBuffer source, DataBuffer target) {
			if (NETTY_PRESENT && NettyJoin.copy(source, target)) {
				return;
			}
			try (DataBuffer.ByteBufferIterator readable = source.readableByteBuffers()) {
				while (readable.hasNext()) {
					target.write(readable.next());
				}
			}
		}

		/**
		 * Capacity of a contiguous buffer for a body of which {@code received} bytes have
		 * arrived: twice that, so that a body growing in small pieces is copied a few times
		 * only, but never more than the body can still become, which the declared length
		 * and the limit bound. The declared length is a cap and never a reason to allocate:
		 * a sender can announce any length and then send slowly, or not at all, and must
		 * not make us hold more than about twice what it did send.
		 */
		private int capacityFor(long received) {
			long capacity = Math.min(received * 2, Integer.MAX_VALUE - 8);
			if (this.expectedLength >= received) {
				capacity = Math.min(capacity, this.expectedLength);
			}
			if (this.maxByteCount >= 0) {
				capacity = Math.min(capacity, this.maxByteCount);
			}
			return (int) Math.max(capacity, received);
		}

		@Override
		public void onComplete() {
			if (isDone()) {
				return;
			}
			markDone();
			DataBuffer result;
			synchronized (this) {
				result = this.held;
				this.held = null;
			}
			if (result == null) {
				this.actual.onComplete();
			}
			else {
				// Emits now or on request; a cancel before then goes through discard.
				complete(result);
			}
		}

		@Override
		protected void discard(@Nullable DataBuffer buffer) {
			DataBufferUtils.release(buffer);
		}

		@Override
		protected void releaseHeld() {
			DataBuffer buffer;
			synchronized (this) {
				buffer = this.held;
				this.held = null;
			}
			DataBufferUtils.release(buffer);
		}

	}

	/**
	 * Joining Netty buffers, in a class of its own so that it loads only where Netty is.
	 */
	private static final class NettyJoin {

		/**
		 * Gather two Netty buffers of one factory into a composite that takes over both,
		 * or return {@code null} (owning nothing) if they are not such buffers.
		 */
		static @Nullable DataBuffer composite(DataBuffer first, DataBuffer second) {
			if (first instanceof NettyDataBuffer nettyFirst && second instanceof NettyDataBuffer nettySecond
					&& nettyFirst.factory() == nettySecond.factory()) {
				NettyDataBufferFactory factory = nettyFirst.factory();
				CompositeByteBuf composite;
				try {
					composite = factory.getByteBufAllocator().compositeBuffer(MAX_COMPOSITE_COMPONENTS);
				}
				catch (Throwable ex) {
					DataBufferUtils.release(first);
					DataBufferUtils.release(second);
					throw ex;
				}
				try {
					// Takes over both buffers, also if it fails.
					composite.addComponents(true, nettyFirst.getNativeBuffer(), nettySecond.getNativeBuffer());
				}
				catch (Throwable ex) {
					composite.release();
					throw ex;
				}
				return factory.wrap(composite);
			}
			return null;
		}

		/**
		 * Add a Netty buffer to a composite made by {@link #composite}, which takes it
		 * over (also if it fails), or return {@code false} having taken nothing.
		 */
		static boolean add(DataBuffer composite, DataBuffer next) {
			if (composite instanceof NettyDataBuffer nettyComposite && next instanceof NettyDataBuffer nettyNext
					&& nettyComposite.factory() == nettyNext.factory()) {
				((CompositeByteBuf) nettyComposite.getNativeBuffer()).addComponent(true, nettyNext.getNativeBuffer());
				return true;
			}
			return false;
		}

		/**
		 * Copy with the source's {@code ByteBuf#getBytes(int, ByteBuf, int, int)}: one
		 * memory copy per component and no NIO buffer views. Not the target's
		 * {@code writeBytes}: Netty's pooled buffers implement it by asking the source for
		 * one NIO buffer, which a composite makes by copying all its components into a new
		 * heap buffer first (garbage larger than the body: figures in
		 * docs/how-it-works.md, "Measurements behind the design").
		 */
		static boolean copy(DataBuffer source, DataBuffer target) {
			if (source instanceof NettyDataBuffer nettySource && target instanceof NettyDataBuffer nettyTarget) {
				ByteBuf from = nettySource.getNativeBuffer();
				ByteBuf to = nettyTarget.getNativeBuffer();
				int length = from.readableBytes();
				to.ensureWritable(length);
				from.getBytes(from.readerIndex(), to, to.writerIndex(), length);
				to.writerIndex(to.writerIndex() + length);
				return true;
			}
			return false;
		}

	}

}
