package io.fastpath.test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DataBufferWrapper;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.core.io.buffer.PooledDataBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Buffer factories that account for every buffer they hand out, so a test can assert
 * that all of them were released. Buffers made by code under test from a buffer's
 * {@code factory()} are accounted for too.
 * <ul>
 * <li>{@link #heap()}: {@link DefaultDataBufferFactory} buffers, whose release is
 * otherwise a no-op, behind a reference count that also sees a buffer released more often
 * than retained (see {@link CountedBuffer}), and that records the capacity every
 * allocation asked for.</li>
 * <li>{@link #nettyPooled()}: real Netty pooled direct buffers, every one it makes
 * tracked (allocated, wrapped or joined). A second release of one
 * goes unseen here ({@code DataBufferUtils.release} skips a buffer whose count is zero),
 * so release paths are proven on the heap factory.</li>
 * </ul>
 */
public interface LeakTrackingDataBufferFactory extends DataBufferFactory {

	/**
	 * Most bytes one allocation may ask for: a test that asks for more is refused with an
	 * {@link IllegalStateException} (and the request recorded) rather than given the memory,
	 * so that a test of a sender announcing 2 GB can show the request without making it.
	 */
	int MAX_ALLOCATION = 64 * 1024 * 1024;

	/**
	 * How long {@link #assertNoLeaks()} waits for buffers still allocated to be released.
	 * Some releases come after the terminal signal that a test waits for, on another thread:
	 * {@code DataBufferUtils.readByteChannel} releases the buffer of its last, empty read
	 * after signalling completion (seen: 35 runs in 400 of a spooled-part test under load
	 * found that buffer still allocated). Spring's {@code LeakAwareDataBufferFactory} waits
	 * the same way; a buffer never released still fails, after this long.
	 */
	Duration RELEASE_WAIT = Duration.ofSeconds(2);

	/**
	 * Fail if any buffer handed out so far is still allocated after {@link #RELEASE_WAIT},
	 * or was released too often.
	 */
	void assertNoLeaks();

	/**
	 * Wait until none of the given buffers is allocated, or {@link #RELEASE_WAIT} passed.
	 * @param <B> the type of buffer
	 * @param buffers the buffers handed out
	 * @param allocated whether a buffer is still allocated
	 */
	static <B> void awaitReleases(List<B> buffers, Predicate<B> allocated) {
		long deadline = System.nanoTime() + RELEASE_WAIT.toNanos();
		while (buffers.stream().anyMatch(allocated) && System.nanoTime() < deadline) {
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * A factory for the stock component that a test compares with, whose buffers
	 * {@link #assertNoLeaks()} of this factory checks for leaks but not for double releases:
	 * Spring's own Jackson decoder releases an input buffer twice when decoding fails (the
	 * second release a no-op behind {@code DataBufferUtils.release}'s check), and that is
	 * the reference's doing, not the code under test's.
	 * @return the factory to hand stock its buffers from
	 */
	LeakTrackingDataBufferFactory forStock();

	/**
	 * The capacities that {@code allocateBuffer(int)} was asked for, in order, refused ones
	 * included.
	 * @return the requested capacities
	 */
	List<Integer> requestedCapacities();

	static LeakTrackingDataBufferFactory heap() {
		return new Heap();
	}

	static LeakTrackingDataBufferFactory nettyPooled() {
		return nettyPooled(new PooledByteBufAllocator(true));
	}

	/**
	 * A factory that counts the buffers it hands out from the given allocator: tests that
	 * check many bodies one by one each take a factory of their own, without each creating
	 * (and holding the memory of) an allocator.
	 * @param allocator the allocator
	 * @return the factory
	 */
	static LeakTrackingDataBufferFactory nettyPooled(PooledByteBufAllocator allocator) {
		return new NettyPooled(allocator);
	}

	private static void checkAllocation(int capacity) {
		if (capacity > MAX_ALLOCATION) {
			throw new IllegalStateException("Refused by the test factory: " + capacity + " bytes in one buffer");
		}
	}

	/** A buffer of this factory holding the given bytes. */
	default DataBuffer bufferOf(byte[] bytes) {
		DataBuffer buffer = allocateBuffer(bytes.length);
		buffer.write(bytes);
		return buffer;
	}

	final class NettyPooled extends NettyDataBufferFactory implements LeakTrackingDataBufferFactory {

		private final List<ByteBuf> handedOut = new CopyOnWriteArrayList<>();

		private final List<ByteBuf> allocated = new CopyOnWriteArrayList<>();

		private final List<Integer> requestedCapacities = new CopyOnWriteArrayList<>();

		NettyPooled(PooledByteBufAllocator allocator) {
			super(allocator);
		}

		private <B extends DataBuffer> B track(B buffer) {
			this.handedOut.add(((org.springframework.core.io.buffer.NettyDataBuffer) buffer).getNativeBuffer());
			return buffer;
		}

		@Override
		@Deprecated
		public org.springframework.core.io.buffer.NettyDataBuffer allocateBuffer() {
			return allocated(track(super.allocateBuffer()));
		}

		@Override
		public org.springframework.core.io.buffer.NettyDataBuffer allocateBuffer(int initialCapacity) {
			this.requestedCapacities.add(initialCapacity);
			checkAllocation(initialCapacity);
			return allocated(track(super.allocateBuffer(initialCapacity)));
		}

		private org.springframework.core.io.buffer.NettyDataBuffer allocated(
				org.springframework.core.io.buffer.NettyDataBuffer buffer) {
			this.allocated.add(buffer.getNativeBuffer());
			return buffer;
		}

		/**
		 * The bytes held now: the capacity of every buffer allocated here that still has a
		 * reference, as grown since. Wrapped buffers are left out: a wrapper (a composite
		 * that takes an allocated buffer over) holds the memory of the buffer it wraps,
		 * which would be counted twice.
		 * @return the capacity held
		 */
		public long capacityHeld() {
			return this.allocated.stream().filter((buffer) -> buffer.refCnt() > 0).mapToLong(ByteBuf::capacity).sum();
		}

		@Override
		public org.springframework.core.io.buffer.NettyDataBuffer wrap(ByteBuffer byteBuffer) {
			return track(super.wrap(byteBuffer));
		}

		@Override
		public DataBuffer wrap(byte[] bytes) {
			return track(super.wrap(bytes));
		}

		@Override
		public DataBuffer join(List<? extends DataBuffer> buffers) {
			return track(super.join(buffers));
		}

		@Override
		public List<Integer> requestedCapacities() {
			return List.copyOf(this.requestedCapacities);
		}

		@Override
		public org.springframework.core.io.buffer.NettyDataBuffer wrap(ByteBuf byteBuf) {
			return track(super.wrap(byteBuf));
		}

		/** This factory: a double release of a Netty buffer goes unseen here anyway. */
		@Override
		public LeakTrackingDataBufferFactory forStock() {
			return this;
		}

		@Override
		public void assertNoLeaks() {
			LeakTrackingDataBufferFactory.awaitReleases(this.handedOut, (buffer) -> buffer.refCnt() > 0);
			assertThat(this.handedOut).as("Netty buffers still allocated")
				.allSatisfy((buffer) -> assertThat(buffer.refCnt()).isZero());
		}

		@Override
		public String toString() {
			return "Netty pooled";
		}

	}

	final class Heap implements LeakTrackingDataBufferFactory {

		private final DefaultDataBufferFactory delegate = DefaultDataBufferFactory.sharedInstance;

		private final List<CountedBuffer> handedOut = new CopyOnWriteArrayList<>();

		private final List<Integer> requestedCapacities = new CopyOnWriteArrayList<>();

		private volatile boolean failAllocations;

		private final boolean forStock;

		private @Nullable Heap stockFactory;

		Heap() {
			this(false);
		}

		private Heap(boolean forStock) {
			this.forStock = forStock;
		}

		@Override
		public synchronized LeakTrackingDataBufferFactory forStock() {
			if (this.forStock) {
				return this;
			}
			if (this.stockFactory == null) {
				this.stockFactory = new Heap(true);
			}
			return this.stockFactory;
		}

		/** Make every later allocation fail, as when memory runs out. */
		public void failAllocations() {
			this.failAllocations = true;
		}

		private CountedBuffer track(DataBuffer buffer) {
			CountedBuffer counted = new CountedBuffer(buffer, this);
			this.handedOut.add(counted);
			return counted;
		}

		@Override
		@Deprecated
		public DataBuffer allocateBuffer() {
			return track(this.delegate.allocateBuffer(256));
		}

		@Override
		public List<Integer> requestedCapacities() {
			return List.copyOf(this.requestedCapacities);
		}

		/**
		 * The bytes held now: the capacity of every buffer handed out that still has a
		 * reference, as grown since.
		 * @return the capacity held
		 */
		public long capacityHeld() {
			return this.handedOut.stream()
				.filter((buffer) -> buffer.referenceCount() > 0)
				.mapToLong(DataBuffer::capacity)
				.sum();
		}

		@Override
		public DataBuffer allocateBuffer(int initialCapacity) {
			this.requestedCapacities.add(initialCapacity);
			if (this.failAllocations) {
				throw new IllegalStateException("Simulated: no memory for " + initialCapacity + " bytes");
			}
			checkAllocation(initialCapacity);
			return track(this.delegate.allocateBuffer(initialCapacity));
		}

		@Override
		public DataBuffer wrap(ByteBuffer byteBuffer) {
			return track(this.delegate.wrap(byteBuffer));
		}

		@Override
		public DataBuffer wrap(byte[] bytes) {
			return track(this.delegate.wrap(bytes));
		}

		@Override
		public DataBuffer join(List<? extends DataBuffer> buffers) {
			DataBuffer joined = allocateBuffer(buffers.stream().mapToInt(DataBuffer::readableByteCount).sum());
			buffers.forEach((buffer) -> {
				joined.write(buffer);
				DataBufferUtils.release(buffer);
			});
			return joined;
		}

		@Override
		public boolean isDirect() {
			return false;
		}

		@Override
		public void assertNoLeaks() {
			LeakTrackingDataBufferFactory.awaitReleases(this.handedOut, CountedBuffer::isAllocated);
			assertThat(this.handedOut).as("heap buffers still allocated")
				.noneMatch(CountedBuffer::isAllocated);
			if (!this.forStock) {
				assertThat(this.handedOut).as("heap buffers released more often than retained")
					.noneMatch(CountedBuffer::isOverReleased);
			}
			Heap stock;
			synchronized (this) {
				stock = this.stockFactory;
			}
			if (stock != null) {
				stock.assertNoLeaks();
			}
		}

		@Override
		public String toString() {
			return "Default (heap)";
		}

	}

	/**
	 * A heap buffer with a reference count, so that a missing release shows, and an extra
	 * one. {@code DataBufferUtils.release} (which Reactor's discard hooks and most release
	 * paths call) releases only a buffer that {@link #isAllocated() is allocated}, so a
	 * second release would never reach {@link #release()} and would go unseen: asked by
	 * {@code DataBufferUtils.release}, and only by it, the buffer answers that it is
	 * allocated until it has been released once too often, so that every release is
	 * counted on the buffer itself.
	 */
	final class CountedBuffer extends DataBufferWrapper implements PooledDataBuffer {

		private static final StackWalker CALLERS = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

		private final AtomicInteger refCount = new AtomicInteger(1);

		private final Heap factory;

		CountedBuffer(DataBuffer delegate, Heap factory) {
			super(delegate);
			this.factory = factory;
		}

		@Override
		public DataBufferFactory factory() {
			return this.factory;
		}

		@Override
		public boolean isAllocated() {
			int count = this.refCount.get();
			return count > 0 || (count == 0 && calledByDataBufferUtilsRelease());
		}

		private static boolean calledByDataBufferUtilsRelease() {
			return CALLERS.walk((frames) -> frames.skip(2)
				.findFirst()
				.filter((frame) -> frame.getDeclaringClass() == DataBufferUtils.class
						&& frame.getMethodName().equals("release"))
				.isPresent());
		}

		/**
		 * The references left: 0 once released as often as retained, negative once
		 * released more often.
		 * @return the reference count
		 */
		public int referenceCount() {
			return this.refCount.get();
		}

		@Override
		public PooledDataBuffer retain() {
			this.refCount.incrementAndGet();
			return this;
		}

		@Override
		public PooledDataBuffer touch(Object hint) {
			return this;
		}

		@Override
		public boolean release() {
			int count = this.refCount.decrementAndGet();
			if (count < 0) {
				// Also remembered: a release hook may swallow the exception (Reactor's discard does).
				throw new IllegalStateException("Buffer released more often than retained");
			}
			return count == 0;
		}

		boolean isOverReleased() {
			return this.refCount.get() < 0;
		}

	}

}
