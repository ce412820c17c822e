package io.fastpath.test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves that the leak check the whole suite relies on can fail.
 */
class NettyLeakDetectionExtensionTests {

	@Test
	void unreleasedBufferIsReportedAsLeak() throws InterruptedException {
		NettyLeakDetectionExtension.quiet = true;
		try {
			leakOneBuffer();
			assertThat(NettyLeakDetectionExtension.collectLeaks()).isNotEmpty()
				.anySatisfy((leak) -> assertThat(leak).contains("ByteBuf"));
		}
		finally {
			NettyLeakDetectionExtension.quiet = false;
		}
	}

	@Test
	void releasedBufferIsNotReported() throws InterruptedException {
		ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(16);
		buffer.writeInt(42);
		buffer.release();
		assertThat(NettyLeakDetectionExtension.collectLeaks()).isEmpty();
	}

	private static void leakOneBuffer() {
		ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(16);
		buffer.writeInt(42);
	}

}
