package io.fastpath.multipart.scan;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Function;

import io.fastpath.test.TestSeed;
import io.fastpath.test.WithoutNioView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bytes a buffer hands a processor, from its read position, in order, until the
 * processor stops, and where a byte first stands: whichever loop reads them (the one over
 * a heap buffer's or a Netty buffer's single memory region, Netty's over others), against
 * the bytes the buffer was filled with.
 */
@ExtendWith(TestSeed.class)
class BufferBytesTests {

	private static final NettyDataBufferFactory NETTY = new NettyDataBufferFactory(UnpooledByteBufAllocator.DEFAULT);

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "Spring heap", "Netty pooled direct", "Netty unpooled direct", "Netty pooled heap",
			"Netty unpooled heap", "Netty slice of pooled direct", "Netty composite of two direct",
			"Netty without a NIO view" })
	void aProcessorGetsTheBytesOfTheRangeInOrderUntilItStops(String kind) {
		Random random = TestSeed.random("bufferBytes" + kind);
		Function<byte[], DataBuffer> buffers = buffers(kind);
		BufferBytes.Nio nio = new BufferBytes.Nio();
		BufferBytes netty = BufferBytes.netty();
		for (int round = 0; round < 500; round++) {
			byte[] bytes = new byte[random.nextInt(1, 3000)];
			random.nextBytes(bytes);
			DataBuffer buffer = buffers.apply(bytes);
			try {
				int readPosition = random.nextInt(bytes.length);
				buffer.readPosition(readPosition);
				int readable = bytes.length - readPosition;
				int from = random.nextInt(readable + 1);
				int to = from + random.nextInt(readable - from + 1);
				int stopAfter = random.nextInt(to - from + 2);
				ByteArrayOutputStream seen = new ByteArrayOutputStream();
				BufferBytes.of(buffer, nio, netty).forEachByte(from, to, (value) -> {
					seen.write(value);
					return seen.size() < stopAfter;
				});
				int end = Math.min(to, from + Math.max(stopAfter, 1));
				assertThat(seen.toByteArray()).as("round %d: bytes %d to %d, stopping after %d", round, from, to,
						stopAfter)
					.isEqualTo(Arrays.copyOfRange(bytes, readPosition + from, readPosition + end));
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "Spring heap", "Netty pooled direct", "Netty unpooled direct", "Netty pooled heap",
			"Netty unpooled heap", "Netty slice of pooled direct", "Netty composite of two direct",
			"Netty without a NIO view" })
	void aByteIsFoundWhereItFirstStandsInTheRange(String kind) {
		Random random = TestSeed.random("bufferBytesIndexOf" + kind);
		Function<byte[], DataBuffer> buffers = buffers(kind);
		BufferBytes.Nio nio = new BufferBytes.Nio();
		BufferBytes netty = BufferBytes.netty();
		for (int round = 0; round < 500; round++) {
			// few distinct bytes, so that a range has the one looked for often, or not at
			// all; from anywhere in -128 to 127, as a word-at-a-time search must find them
			byte[] bytes = new byte[random.nextInt(1, 3000)];
			int distinct = 1 + random.nextInt(64);
			int lowest = random.nextInt(-128, 128 - distinct);
			for (int i = 0; i < bytes.length; i++) {
				bytes[i] = (byte) (lowest + random.nextInt(distinct));
			}
			byte value = (byte) (lowest + random.nextInt(distinct + 1));
			DataBuffer buffer = buffers.apply(bytes);
			try {
				int readPosition = random.nextInt(bytes.length);
				buffer.readPosition(readPosition);
				int readable = bytes.length - readPosition;
				int from = random.nextInt(readable + 1);
				// an empty range every tenth round, else one by chance only
				int to = (round % 10 == 0) ? from : from + random.nextInt(readable - from + 1);
				int expected = to;
				for (int i = from; i < to; i++) {
					if (bytes[readPosition + i] == value) {
						expected = i;
						break;
					}
				}
				assertThat(BufferBytes.of(buffer, nio, netty).indexOf(value, from, to))
					.as("round %d: %d in bytes %d to %d from %d", round, value, from, to, readPosition)
					.isEqualTo(expected);
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}
	}

	private static Function<byte[], DataBuffer> buffers(String kind) {
		return switch (kind) {
			case "Spring heap" -> DefaultDataBufferFactory.sharedInstance::wrap;
			case "Netty pooled direct" ->
				netty((bytes) -> PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes));
			case "Netty unpooled direct" ->
				netty((bytes) -> UnpooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes));
			case "Netty pooled heap" ->
				netty((bytes) -> PooledByteBufAllocator.DEFAULT.heapBuffer(bytes.length).writeBytes(bytes));
			case "Netty unpooled heap" -> netty(Unpooled::copiedBuffer);
			case "Netty slice of pooled direct" -> netty((bytes) -> {
				// the bytes start 100 bytes into the memory the slice views
				ByteBuf whole = PooledByteBufAllocator.DEFAULT.directBuffer(100 + bytes.length)
					.writeZero(100)
					.writeBytes(bytes);
				ByteBuf slice = whole.retainedSlice(100, bytes.length);
				whole.release();
				return slice;
			});
			case "Netty composite of two direct" -> netty((bytes) -> {
				int half = bytes.length / 2;
				CompositeByteBuf composite = Unpooled.compositeBuffer();
				composite.addComponent(true, Unpooled.directBuffer(half).writeBytes(bytes, 0, half));
				composite.addComponent(true,
						Unpooled.directBuffer(bytes.length - half).writeBytes(bytes, half, bytes.length - half));
				return composite;
			});
			default -> netty(WithoutNioView::new);
		};
	}

	private static Function<byte[], DataBuffer> netty(Function<byte[], ByteBuf> buffers) {
		return (bytes) -> NETTY.wrap(buffers.apply(bytes));
	}

}
