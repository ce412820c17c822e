package io.fastpath.json.write;

import io.fastpath.buffer.NettyBuffers;
import io.netty.buffer.ByteBuf;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.NettyDataBuffer;

/**
 * The capacity a batch grows to when a value does not fit: more than the value needs, so
 * that a budget of memory must count what a batch would grow to, not what it would hold.
 *
 * @author Fastpath
 */
final class BufferGrowth {

	private static final boolean NETTY_PRESENT = NettyBuffers.onClassPath();

	/** Past this capacity Spring's buffers grow by this much, not to a power of two. */
	private static final int THRESHOLD = 4 * 1024 * 1024;

	private BufferGrowth() {
	}

	/**
	 * The capacity the given buffer grows to when a write needs the given capacity: what a
	 * Netty buffer's allocator calculates (a pooled buffer may first take the rest of the
	 * memory it was given, less), else what Spring's {@code DefaultDataBuffer} grows to,
	 * whose calculation is private: the next power of two from 64, then steps of 4 MB.
	 * @param buffer the buffer written into
	 * @param needed the capacity the write needs, more than the buffer has
	 * @return the capacity it grows to, at least the one needed
	 */
	static int grownCapacity(DataBuffer buffer, int needed) {
		if (NETTY_PRESENT && buffer instanceof NettyDataBuffer) {
			return NettyGrowth.grownCapacity(buffer, needed);
		}
		if (needed <= 64) {
			return 64;
		}
		if (needed <= THRESHOLD) {
			return Integer.highestOneBit(needed - 1) << 1;
		}
		long grown = ((long) needed / THRESHOLD + 1) * THRESHOLD;
		return (int) Math.min(grown, Integer.MAX_VALUE);
	}

	/** Netty's types, loaded only when Netty is present. */
	private static final class NettyGrowth {

		static int grownCapacity(DataBuffer buffer, int needed) {
			ByteBuf bytes = ((NettyDataBuffer) buffer).getNativeBuffer();
			return bytes.alloc().calculateNewCapacity(needed, bytes.maxCapacity());
		}

	}

}
