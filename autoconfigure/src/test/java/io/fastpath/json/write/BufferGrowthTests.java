package io.fastpath.json.write;

import java.util.Random;
import java.util.function.IntFunction;

import io.fastpath.test.TestSeed;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The capacity a batch grows to, told before it grows, against the capacity that buffers
 * of each factory grow to when written past their capacity.
 */
@ExtendWith(TestSeed.class)
class BufferGrowthTests {

	@Test
	void aHeapBufferGrowsToTheCapacityTold() {
		DefaultDataBufferFactory factory = DefaultDataBufferFactory.sharedInstance;
		assertGrowth("heap", factory::allocateBuffer, true);
	}

	@Test
	void anUnpooledNettyBufferGrowsToTheCapacityTold() {
		NettyDataBufferFactory factory = new NettyDataBufferFactory(new UnpooledByteBufAllocator(true));
		assertGrowth("unpooled", factory::allocateBuffer, true);
	}

	@Test
	void aPooledNettyBufferGrowsAtMostToTheCapacityTold() {
		// A pooled buffer first takes the rest of the memory it was given, which may be less
		NettyDataBufferFactory factory = new NettyDataBufferFactory(new PooledByteBufAllocator(true));
		assertGrowth("pooled", factory::allocateBuffer, false);
	}

	private void assertGrowth(String name, IntFunction<DataBuffer> allocate, boolean exactly) {
		Random random = TestSeed.random("bufferGrowth" + name);
		int[] edges = { 1, 63, 64, 65, 1023, 1024, 1025, 4 * 1024 * 1024, 4 * 1024 * 1024 + 1, 9 * 1024 * 1024 };
		for (int round = 0; round < 300; round++) {
			int capacity = random.nextInt(1, 70_000);
			int needed = (round < edges.length) ? Math.max(capacity + 1, edges[round])
					: capacity + 1 + random.nextInt(70_000);
			DataBuffer buffer = allocate.apply(capacity);
			try {
				int told = BufferGrowth.grownCapacity(buffer, needed);
				buffer.write(new byte[needed]);
				String growth = capacity + " written with " + needed + " bytes";
				if (exactly) {
					assertThat(buffer.capacity()).as(growth).isEqualTo(told);
				}
				else {
					assertThat(buffer.capacity()).as(growth).isBetween(needed, told);
				}
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}
	}

}
