package io.fastpath.benchmarks;

import io.netty.buffer.PooledByteBufAllocator;

import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

/**
 * The buffer factories bodies arrive from: heap buffers as on Servlet and Jetty adapters
 * and in tests, Netty pooled direct buffers as on Reactor Netty.
 */
final class BufferFactories {

	/** Heap buffers, as Servlet and Jetty adapters and tests hand out. */
	static final String HEAP = "heap";

	/** Netty's pooled direct buffers, as Reactor Netty hands out. */
	static final String NETTY_DIRECT = "netty-direct";

	private BufferFactories() {
	}

	static DataBufferFactory named(String name) {
		return switch (name) {
			case HEAP -> DefaultDataBufferFactory.sharedInstance;
			case NETTY_DIRECT -> new NettyDataBufferFactory(PooledByteBufAllocator.DEFAULT);
			default -> throw new IllegalArgumentException("Unknown buffer factory " + name);
		};
	}

}
