package io.fastpath.test;

import java.nio.ByteBuffer;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;

/**
 * A Netty heap buffer that says it has no NIO view ({@code nioBufferCount} of -1) and
 * hands none out, nor its array: a reader must go through its own methods, as it must
 * through a buffer of a kind that has no NIO view.
 */
public class WithoutNioView extends UnpooledHeapByteBuf {

	public WithoutNioView(byte[] bytes) {
		super(UnpooledByteBufAllocator.DEFAULT, bytes, bytes.length);
	}

	@Override
	public boolean hasArray() {
		return false;
	}

	@Override
	public byte[] array() {
		throw new UnsupportedOperationException("No array");
	}

	@Override
	public int nioBufferCount() {
		return -1;
	}

	@Override
	public ByteBuffer nioBuffer(int index, int length) {
		throw new UnsupportedOperationException("No NIO view");
	}

	@Override
	public ByteBuffer internalNioBuffer(int index, int length) {
		throw new UnsupportedOperationException("No NIO view");
	}

}
