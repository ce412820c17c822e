package io.fastpath.multipart.scan;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import io.fastpath.test.TestSeed;
import io.fastpath.test.WithoutNioView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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

	static Stream<String> bufferKinds() {
		return Stream.of("Spring heap", "Netty pooled direct", "Netty unpooled direct", "Netty pooled heap",
				"Netty unpooled heap", "Netty slice of pooled direct", "Netty composite of two direct",
				"Netty without a NIO view");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("bufferKinds")
	void aProcessorGetsTheBytesOfTheRangeInOrderUntilItStops(String kind) {
		forEachRange(kind, "bufferBytes", (random) -> {
			byte[] bytes = new byte[random.nextInt(1, 3000)];
			random.nextBytes(bytes);
			return bytes;
		}, (range) -> {
			int stopAfter = range.random().nextInt(range.to() - range.from() + 2);
			ByteArrayOutputStream seen = new ByteArrayOutputStream();
			range.reader().forEachByte(range.from(), range.to(), (value) -> {
				seen.write(value);
				return seen.size() < stopAfter;
			});
			int end = Math.min(range.to(), range.from() + Math.max(stopAfter, 1));
			assertThat(seen.toByteArray()).as("%s, stopping after %d", range, stopAfter)
				.isEqualTo(range.filled(range.from(), end));
		});
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("bufferKinds")
	void aByteIsFoundWhereItFirstStandsInTheRange(String kind) {
		forEachRange(kind, "bufferBytesIndexOf", (random) -> {
			// few distinct bytes, so that a range has the one looked for often, or not at
			// all; from anywhere in -128 to 127, as a word-at-a-time search must find them
			byte[] bytes = new byte[random.nextInt(1, 3000)];
			int distinct = 1 + random.nextInt(64);
			int lowest = random.nextInt(-128, 128 - distinct);
			for (int i = 0; i < bytes.length; i++) {
				bytes[i] = (byte) (lowest + random.nextInt(distinct));
			}
			return bytes;
		}, (range) -> {
			// mostly a byte of the buffer, in the range or not; at times any byte
			Random random = range.random();
			byte value = (random.nextInt(8) == 0) ? (byte) random.nextInt(256)
					: range.bytes()[random.nextInt(range.bytes().length)];
			byte[] filled = range.filled(range.from(), range.to());
			int expected = range.to();
			for (int i = 0; i < filled.length; i++) {
				if (filled[i] == value) {
					expected = range.from() + i;
					break;
				}
			}
			assertThat(range.reader().indexOf(value, range.from(), range.to())).as("%s, %d", range, value)
				.isEqualTo(expected);
		});
	}

	/**
	 * Run a check over 500 ranges of seeded random buffers of a kind: each buffer filled
	 * with the bytes made, its read position moved, a range of its readable bytes drawn
	 * (empty every tenth round, else by chance), the buffer released after the check.
	 */
	private static void forEachRange(String kind, String seedName, Function<Random, byte[]> fill,
			Consumer<Range> check) {

		Random random = TestSeed.random(seedName + kind);
		Function<byte[], DataBuffer> buffers = buffers(kind);
		BufferBytes.Nio nio = new BufferBytes.Nio();
		BufferBytes netty = BufferBytes.netty();
		for (int round = 0; round < 500; round++) {
			byte[] bytes = fill.apply(random);
			DataBuffer buffer = buffers.apply(bytes);
			try {
				int readPosition = random.nextInt(bytes.length);
				buffer.readPosition(readPosition);
				int readable = bytes.length - readPosition;
				int from = random.nextInt(readable + 1);
				int to = (round % 10 == 0) ? from : from + random.nextInt(readable - from + 1);
				check.accept(new Range(round, random, BufferBytes.of(buffer, nio, netty), bytes, readPosition, from,
						to));
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}
	}

	/** A range of a buffer's readable bytes, from its read position, and the bytes it was filled with. */
	private record Range(int round, Random random, BufferBytes reader, byte[] bytes, int readPosition, int from,
			int to) {

		byte[] filled(int start, int end) {
			return Arrays.copyOfRange(this.bytes, this.readPosition + start, this.readPosition + end);
		}

		@Override
		public String toString() {
			return "round " + this.round + ": bytes " + this.from + " to " + this.to + " from read position "
					+ this.readPosition;
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
