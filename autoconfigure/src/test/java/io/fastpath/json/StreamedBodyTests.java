package io.fastpath.json;

import java.util.List;
import java.util.Random;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StreamedBody} counts bytes eight at a time: every byte value, at every offset
 * and length around the word size, in one Netty direct buffer and in a composite of
 * several, against a count of one byte at a time.
 */
class StreamedBodyTests {

	private final LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();

	@AfterEach
	void everyPooledBufferIsReleased() {
		this.netty.assertNoLeaks();
	}

	@Test
	void zeroBytesMarksExactlyTheBytesThatAreZero() {
		for (int b = 0; b < 256; b++) {
			for (int position = 0; position < Long.BYTES; position++) {
				long word = ((long) b << (position * 8)) | (position == 0 ? 0 : 0x01L);
				long expected = 0;
				for (int k = 0; k < Long.BYTES; k++) {
					if (((word >>> (k * 8)) & 0xFF) == 0) {
						expected |= 0x80L << (k * 8);
					}
				}
				assertThat(StreamedBody.zeroBytes(word)).as("byte %d at %d", b, position).isEqualTo(expected);
			}
		}
	}

	@Test
	void countsEveryByteValueAsOneByteAtATimeDoes() {
		long seed = TestSeed.SEED;
		Random random = new Random(seed);
		for (int length = 0; length <= 40; length++) {
			byte[] bytes = new byte[length];
			random.nextBytes(bytes);
			for (int i = 0; i < length; i += 3) {
				bytes[i] = ',';
			}
			for (int value : new int[] { ',', 0, 0x80, 0xFF, bytes.length > 0 ? bytes[length / 2] : 1 }) {
				long expected = countOneAtATime(bytes, (byte) value);
				DataBuffer buffer = this.netty.bufferOf(bytes);
				try {
					assertThat(new StreamedBody(buffer).count((byte) value))
						.as("seed %d, length %d, byte %d", seed, length, value)
						.isEqualTo(expected);
				}
				finally {
					DataBufferUtils.release(buffer);
				}
			}
		}
	}

	@Test
	void countsAcrossTheComponentsOfAJoinedBodyFromWhereItIsRead() {
		DataBuffer joined = this.netty.join(List.of(this.netty.bufferOf("xx,a,b,c,,".getBytes()),
				this.netty.bufferOf(",,,".getBytes()), this.netty.bufferOf("d,e,f,g,h,i,j,k,l,".getBytes())));
		try {
			joined.readPosition(3);
			assertThat(new StreamedBody(joined).count((byte) ',')).isEqualTo(16);
		}
		finally {
			DataBufferUtils.release(joined);
		}
	}

	private static long countOneAtATime(byte[] bytes, byte value) {
		long count = 0;
		for (byte b : bytes) {
			if (b == value) {
				count++;
			}
		}
		return count;
	}

}
