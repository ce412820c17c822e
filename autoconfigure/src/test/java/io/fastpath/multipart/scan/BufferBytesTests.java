package io.fastpath.multipart.scan;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Function;

import io.fastpath.test.TestSeed;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.core.io.buffer.NettyDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bytes a Netty buffer hands a processor, from its read position, in order, until the
 * processor stops: whichever loop reads them (the scanner's own over a direct buffer's
 * memory, Netty's over others), against the bytes the buffer was filled with.
 */
@ExtendWith(TestSeed.class)
class BufferBytesTests {

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "pooled direct", "unpooled direct", "heap", "composite of two direct" })
	void aProcessorGetsTheBytesOfTheRangeInOrderUntilItStops(String kind) {
		Random random = TestSeed.random("bufferBytes" + kind);
		Function<byte[], ByteBuf> buffers = buffers(kind);
		for (int round = 0; round < 500; round++) {
			byte[] bytes = new byte[random.nextInt(1, 3000)];
			random.nextBytes(bytes);
			ByteBuf buffer = buffers.apply(bytes);
			try {
				int readerIndex = random.nextInt(bytes.length);
				buffer.readerIndex(readerIndex);
				int readable = bytes.length - readerIndex;
				int from = random.nextInt(readable + 1);
				int to = from + random.nextInt(readable - from + 1);
				int stopAfter = random.nextInt(to - from + 2);
				ByteArrayOutputStream seen = new ByteArrayOutputStream();
				BufferBytes netty = BufferBytes.netty();
				assertThat(netty).isNotNull();
				assertThat(((BufferBytes.Netty) netty).point(new NettyDataBufferFactory(buffer.alloc()).wrap(buffer)))
					.isTrue();
				netty.forEachByte(from, to, (value) -> {
					seen.write(value);
					return seen.size() < stopAfter;
				});
				int end = Math.min(to, from + Math.max(stopAfter, 1));
				assertThat(seen.toByteArray()).as("round %d: bytes %d to %d, stopping after %d", round, from, to,
						stopAfter)
					.isEqualTo(Arrays.copyOfRange(bytes, readerIndex + from, readerIndex + end));
			}
			finally {
				buffer.release();
			}
		}
	}

	private static Function<byte[], ByteBuf> buffers(String kind) {
		return switch (kind) {
			case "pooled direct" -> (bytes) -> PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
			case "unpooled direct" -> (bytes) -> UnpooledByteBufAllocator.DEFAULT.directBuffer(bytes.length)
				.writeBytes(bytes);
			case "heap" -> Unpooled::copiedBuffer;
			default -> (bytes) -> {
				int half = bytes.length / 2;
				CompositeByteBuf composite = Unpooled.compositeBuffer();
				composite.addComponent(true, Unpooled.directBuffer(half).writeBytes(bytes, 0, half));
				composite.addComponent(true,
						Unpooled.directBuffer(bytes.length - half).writeBytes(bytes, half, bytes.length - half));
				return composite;
			};
		};
	}

}
