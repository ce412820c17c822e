package io.fastpath.json;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferWrapper;
import org.springframework.core.io.buffer.DefaultDataBuffer;
import org.springframework.core.io.buffer.NettyDataBuffer;

import io.fastpath.buffer.NettyBuffers;

/**
 * The readable bytes of a buffer as a slice of one heap array, when they are, so that a
 * parser can read them in place. {@code DataBuffer#readableByteBuffers()} cannot tell:
 * it hands out read-only views, which hide their array.
 *
 * @param array the array
 * @param offset where the readable bytes start
 * @param length how many there are
 * @author Fastpath
 */
record HeapBytes(byte[] array, int offset, int length) {

	private static final boolean NETTY_PRESENT = NettyBuffers.onClassPath();

	/**
	 * The heap bytes of a buffer, or {@code null} if they are not one heap array.
	 * @param buffer the buffer
	 * @return the bytes, or {@code null}
	 */
	static @Nullable HeapBytes of(DataBuffer buffer) {
		DataBuffer unwrapped = buffer;
		while (unwrapped instanceof DataBufferWrapper wrapper) {
			unwrapped = wrapper.dataBuffer();
		}
		if (unwrapped instanceof DefaultDataBuffer defaultBuffer) {
			ByteBuffer bytes = defaultBuffer.getNativeBuffer();
			if (bytes.hasArray()) {
				return new HeapBytes(bytes.array(), bytes.arrayOffset() + buffer.readPosition(),
						buffer.readableByteCount());
			}
			return null;
		}
		return NETTY_PRESENT ? ofNetty(unwrapped) : null;
	}

	private static @Nullable HeapBytes ofNetty(DataBuffer buffer) {
		if (buffer instanceof NettyDataBuffer nettyBuffer) {
			ByteBuf bytes = nettyBuffer.getNativeBuffer();
			if (bytes.hasArray()) {
				return new HeapBytes(bytes.array(), bytes.arrayOffset() + bytes.readerIndex(), bytes.readableBytes());
			}
		}
		return null;
	}

}
