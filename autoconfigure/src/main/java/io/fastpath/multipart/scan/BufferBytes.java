package io.fastpath.multipart.scan;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferWrapper;
import org.springframework.core.io.buffer.DefaultDataBuffer;
import org.springframework.core.io.buffer.NettyDataBuffer;

import io.fastpath.buffer.NettyBuffers;

/**
 * Reads the readable bytes of a buffer in place, index 0 at its read position, without
 * allocating per byte or per buffer: from a heap buffer's own {@code ByteBuffer} or a
 * Netty buffer's {@code ByteBuf}. {@code DataBuffer#getByte} of a heap buffer boxes the
 * arguments of its index checks on every call, and {@code readableByteBuffers()} makes
 * new views on every call. One instance per reader of a body, pointed at each buffer.
 * Public for the readers of {@code io.fastpath.multipart}, not an API for applications.
 *
 * @author Fastpath
 */
public abstract class BufferBytes {

	private static final boolean NETTY_PRESENT = NettyBuffers.onClassPath();

	/**
	 * Return a reader of the given buffer's bytes, reusing one of the given readers where
	 * the buffer's kind allows.
	 * @param buffer the buffer
	 * @param nio the reader of heap and NIO buffers to reuse
	 * @param netty the reader of Netty buffers to reuse, or {@code null} without Netty
	 * @return the reader, pointed at the buffer
	 */
	static BufferBytes of(DataBuffer buffer, Nio nio, @Nullable BufferBytes netty) {
		DataBuffer unwrapped = unwrap(buffer);
		if (unwrapped instanceof DefaultDataBuffer heap) {
			return nio.point(heap.getNativeBuffer(), buffer.readPosition());
		}
		if (netty != null && ((Netty) netty).point(unwrapped)) {
			return netty;
		}
		// another kind of buffer: a copy of its readable bytes
		int readable = buffer.readableByteCount();
		ByteBuffer copy = ByteBuffer.allocate(readable);
		buffer.toByteBuffer(buffer.readPosition(), copy, 0, readable);
		return nio.point(copy, 0);
	}

	/**
	 * Return whether bytes at the front of the buffer are best handed on as a retained
	 * view of them ({@code retainedSlice}), the buffer read on behind them, rather than
	 * split off: a Netty buffer's {@code split} makes the rest of the buffer a new slice
	 * as well, where its view is one pooled slice; a heap buffer's view costs more than
	 * its split.
	 * @param buffer the buffer
	 * @return whether it is a Netty buffer
	 */
	static boolean viewsCheaply(DataBuffer buffer) {
		return NETTY_PRESENT && Netty.isNetty(unwrap(buffer));
	}

	/**
	 * Retain a Netty buffer in place, for a part that keeps bytes of it and releases it
	 * once with {@code DataBufferUtils.release}: its {@code ByteBuf}, not the
	 * {@code DataBuffer}, whose {@code retain()} makes a new wrapper every time.
	 * @param buffer the buffer
	 * @return whether it was retained: not unless it is a Netty buffer itself, not a
	 * wrapper of one, whose retain and release the wrapper may count
	 */
	public static boolean retainInPlace(DataBuffer buffer) {
		return NETTY_PRESENT && Netty.retainNative(buffer);
	}

	private static DataBuffer unwrap(DataBuffer buffer) {
		DataBuffer unwrapped = buffer;
		while (unwrapped instanceof DataBufferWrapper wrapper) {
			unwrapped = wrapper.dataBuffer();
		}
		return unwrapped;
	}

	/**
	 * A reader of Netty buffers, if Netty is on the class path.
	 * @return the reader, or {@code null}
	 */
	static @Nullable BufferBytes netty() {
		return NETTY_PRESENT ? new Netty() : null;
	}

	/**
	 * Return the byte at the given index.
	 * @param index from the read position
	 * @return the byte
	 */
	abstract byte get(int index);

	/**
	 * Copy bytes out.
	 * @param index from the read position
	 * @param target the array to copy to
	 * @param offset where in the array
	 * @param length how many bytes
	 */
	abstract void copy(int index, byte[] target, int offset, int length);

	/**
	 * Hand bytes to a processor in order, until it returns {@code false} or the bytes end:
	 * a loop over the buffer's memory with one check of the range, where {@link #get(int)}
	 * of a Netty buffer checks each byte's index and the buffer's reference count.
	 * @param from the first byte, from the read position
	 * @param to the end of the bytes, exclusive
	 * @param processor the processor
	 */
	abstract void forEachByte(int from, int to, DataBuffer.ByteProcessor processor);

	/**
	 * Return where a byte first stands in a range.
	 * @param value the byte
	 * @param from the first byte of the range, from the read position
	 * @param to the end of the range, exclusive
	 * @return its index from the read position, or {@code to} if the range has none
	 */
	abstract int indexOf(byte value, int from, int to);

	/**
	 * The loop of {@link #forEachByte} over a buffer's memory, for heap and Netty buffers
	 * alike: its call of the processor sees the scanner's alone (see {@link Netty}).
	 * @param bytes the memory
	 * @param start the first byte's index in it
	 * @param end the end of the bytes, exclusive
	 * @param processor the processor
	 */
	static void forEachByte(ByteBuffer bytes, int start, int end, DataBuffer.ByteProcessor processor) {
		for (int index = start; index < end; index++) {
			if (!processor.process(bytes.get(index))) {
				return;
			}
		}
	}

	/** Heap and NIO buffers, read with absolute gets. */
	static final class Nio extends BufferBytes {

		/** Until pointed at a buffer: one empty buffer for all, never read. */
		private static final ByteBuffer NONE = ByteBuffer.allocate(0);

		private ByteBuffer buffer = NONE;

		private int base;

		Nio point(ByteBuffer buffer, int base) {
			this.buffer = buffer;
			this.base = base;
			return this;
		}

		@Override
		byte get(int index) {
			return this.buffer.get(this.base + index);
		}

		@Override
		void copy(int index, byte[] target, int offset, int length) {
			this.buffer.get(this.base + index, target, offset, length);
		}

		@Override
		void forEachByte(int from, int to, DataBuffer.ByteProcessor processor) {
			forEachByte(this.buffer, this.base + from, this.base + to, processor);
		}

		@Override
		int indexOf(byte value, int from, int to) {
			ByteBuffer bytes = this.buffer;
			int end = this.base + to;
			for (int index = this.base + from; index < end; index++) {
				if (bytes.get(index) == value) {
					return index - this.base;
				}
			}
			return to;
		}

	}

	/** Netty buffers; loaded only when Netty is on the class path. */
	static final class Netty extends BufferBytes {

		/** Until a read: processes nothing. */
		private static final DataBuffer.ByteProcessor NO_PROCESSOR = (current) -> false;

		/** Netty's processor for Spring's, one per reader: no allocation per read. */
		private final SpringProcessor processor = new SpringProcessor();

		private @Nullable ByteBuf buffer;

		private int base;

		static boolean isNetty(DataBuffer dataBuffer) {
			return dataBuffer instanceof NettyDataBuffer;
		}

		static boolean retainNative(DataBuffer dataBuffer) {
			if (dataBuffer instanceof NettyDataBuffer netty) {
				netty.getNativeBuffer().retain();
				return true;
			}
			return false;
		}

		boolean point(DataBuffer dataBuffer) {
			if (dataBuffer instanceof NettyDataBuffer netty) {
				ByteBuf bytes = netty.getNativeBuffer();
				this.buffer = bytes;
				this.base = bytes.readerIndex();
				return true;
			}
			return false;
		}

		@Override
		byte get(int index) {
			return nativeBuffer().getByte(this.base + index);
		}

		@Override
		void copy(int index, byte[] target, int offset, int length) {
			nativeBuffer().getBytes(this.base + index, target, offset, length);
		}

		/**
		 * Netty's own loop ({@code forEachByte}) calls its processor from one call site for
		 * every {@code ByteProcessor} in the application (Netty's HTTP codec's among them),
		 * which the JIT inlines for the first few types it saw there: in some JVMs not the
		 * scanner's, two virtual calls a byte, several times the scan. A buffer of one
		 * memory region (what Reactor Netty reads into, direct or heap) is read here
		 * instead, through its NIO view (one check of the range and the reference count;
		 * no allocation for the pooled buffers Reactor Netty reads into), in the loop
		 * shared with heap buffers, whose call site sees the scanner's processor alone; a
		 * buffer of several regions, or of none that NIO can view, goes through Netty's
		 * loop.
		 */
		@Override
		void forEachByte(int from, int to, DataBuffer.ByteProcessor processor) {
			ByteBuf bytes = nativeBuffer();
			if (bytes.nioBufferCount() != 1) {
				this.processor.target = processor;
				bytes.forEachByte(this.base + from, to - from, this.processor);
				return;
			}
			ByteBuffer view = bytes.internalNioBuffer(this.base + from, to - from);
			int start = view.position();
			forEachByte(view, start, start + (to - from), processor);
		}

		/** Netty's search, which reads eight bytes at a time where the buffer allows. */
		@Override
		int indexOf(byte value, int from, int to) {
			int found = nativeBuffer().indexOf(this.base + from, this.base + to, value);
			return (found < 0) ? to : found - this.base;
		}

		private ByteBuf nativeBuffer() {
			ByteBuf current = this.buffer;
			if (current == null) {
				throw new IllegalStateException("No buffer");
			}
			return current;
		}

		/** Netty's {@code ByteProcessor} handing each byte to a Spring one. */
		private static final class SpringProcessor implements ByteProcessor {

			private DataBuffer.ByteProcessor target = NO_PROCESSOR;

			@Override
			public boolean process(byte value) {
				return this.target.process(value);
			}

		}

	}

}
