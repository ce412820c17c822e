package io.fastpath.test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

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
 * otherwise a no-op, behind a reference count.</li>
 * <li>{@link #nettyPooled()}: real Netty pooled direct buffers.</li>
 * </ul>
 */
public interface LeakTrackingDataBufferFactory extends DataBufferFactory {

	/** Fail if any buffer handed out so far is still allocated. */
	void assertNoLeaks();

	static LeakTrackingDataBufferFactory heap() {
		return new Heap();
	}

	static LeakTrackingDataBufferFactory nettyPooled() {
		return new NettyPooled(new PooledByteBufAllocator(true));
	}

	/** A buffer of this factory holding the given bytes. */
	default DataBuffer bufferOf(byte[] bytes) {
		DataBuffer buffer = allocateBuffer(bytes.length);
		buffer.write(bytes);
		return buffer;
	}

	final class NettyPooled extends NettyDataBufferFactory implements LeakTrackingDataBufferFactory {

		private final List<ByteBuf> handedOut = new CopyOnWriteArrayList<>();

		NettyPooled(PooledByteBufAllocator allocator) {
			super(allocator);
		}

		@Override
		public org.springframework.core.io.buffer.NettyDataBuffer wrap(ByteBuf byteBuf) {
			this.handedOut.add(byteBuf);
			return super.wrap(byteBuf);
		}

		@Override
		public void assertNoLeaks() {
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

		private volatile boolean failAllocations;

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
		public DataBuffer allocateBuffer(int initialCapacity) {
			if (this.failAllocations) {
				throw new IllegalStateException("Simulated: no memory for " + initialCapacity + " bytes");
			}
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
			assertThat(this.handedOut).as("heap buffers still allocated")
				.noneMatch(CountedBuffer::isAllocated);
			assertThat(this.handedOut).as("heap buffers released more often than retained")
				.noneMatch(CountedBuffer::isOverReleased);
		}

		@Override
		public String toString() {
			return "Default (heap)";
		}

	}

	/** A heap buffer with a reference count, so that a missing release shows. */
	final class CountedBuffer extends DataBufferWrapper implements PooledDataBuffer {

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
			return this.refCount.get() > 0;
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
