package io.fastpath.benchmarks;

import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import reactor.core.publisher.Flux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

/**
 * A body cut into roughly equal slices, handed out for each operation as buffers of one of
 * {@link BufferFactories}: heap slices wrapped, not copied; or Netty pooled direct buffers
 * filled once and handed out as retained duplicates (own indexes, shared memory), which the
 * reader releases, as it releases Reactor Netty's. Either way the allocation measured is
 * the reader's own, not the body's.
 */
final class BodyBuffers {

	private final byte[][] slices;

	private final ByteBuf[] direct;

	private final NettyDataBufferFactory nettyFactory = new NettyDataBufferFactory(PooledByteBufAllocator.DEFAULT);

	private BodyBuffers(byte[][] slices, ByteBuf[] direct) {
		this.slices = slices;
		this.direct = direct;
	}

	static BodyBuffers of(String factory, byte[] body, int buffers) {
		byte[][] slices = new byte[buffers][];
		for (int i = 0; i < buffers; i++) {
			// long: a 4 MB body in 512 buffers overflows int
			slices[i] = Arrays.copyOfRange(body, (int) ((long) i * body.length / buffers),
					(int) ((long) (i + 1) * body.length / buffers));
		}
		ByteBuf[] direct = switch (factory) {
			case BufferFactories.HEAP -> new ByteBuf[0];
			case BufferFactories.NETTY_DIRECT -> Arrays.stream(slices)
				.map((slice) -> PooledByteBufAllocator.DEFAULT.directBuffer(slice.length).writeBytes(slice))
				.toArray(ByteBuf[]::new);
			default -> throw new IllegalArgumentException("Unknown buffer factory " + factory);
		};
		return new BodyBuffers(slices, direct);
	}

	/** The body's buffers for one operation. */
	Flux<DataBuffer> flux() {
		if (this.slices.length == 1) {
			return Flux.just(buffer(0));
		}
		DataBuffer[] body = new DataBuffer[this.slices.length];
		for (int i = 0; i < body.length; i++) {
			body[i] = buffer(i);
		}
		return Flux.fromArray(body);
	}

	private DataBuffer buffer(int index) {
		return (this.direct.length == 0) ? DefaultDataBufferFactory.sharedInstance.wrap(this.slices[index])
				: this.nettyFactory.wrap(this.direct[index].retainedDuplicate());
	}

	/** Release the direct buffers filled for the trial. */
	void release() {
		for (ByteBuf buffer : this.direct) {
			buffer.release();
		}
	}

}
