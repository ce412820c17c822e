package io.fastpath.multipart;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBufferFactory;

import io.fastpath.multipart.RandomMultipart.BoundaryShape;
import io.fastpath.multipart.RandomMultipart.Hostile;
import io.fastpath.multipart.RandomMultipart.Hostility;
import io.fastpath.multipart.scan.MultipartScanner;
import io.fastpath.multipart.scan.PartHeaders;
import io.fastpath.test.TestSeed;
import io.fastpath.test.WithoutNioView;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The work of {@link MultipartScanner} over bodies made to be read over and over
 * ({@link Hostility}), counted as the bytes it reads from the body's buffers: Netty
 * buffers that count every byte read from them ({@link CountingBuffer}), which the
 * scanner reads through {@code ByteBuf.getByte}, {@code getBytes} and {@code indexOf} (a
 * word at a time, counted as eight bytes), and through Netty's loop where they offer no
 * NIO view. Reactor Netty's buffers are read through their {@code ByteBuffer} view, which
 * cannot be counted, in a loop that hands the processor each byte of the range it is
 * given once, until it stops ({@code BufferBytesTests}); the search calls it over the
 * same ranges, and so does the same work, over either. Each shape is scanned at several
 * sizes and boundary lengths, whole and cut into buffers four ways ({@link Split}), and
 * must take at most
 * <pre>2 × the body's bytes + 3 × the delimiter's length × (buffers + parts + 1)</pre>
 * reads, {@code m} being the delimiter's length: a search reads at most twice the bytes
 * it moves over and {@code 2m} (it compares up to the bytes it moved over and {@code m},
 * and one comparison more, before it reads each byte once; the tail of a buffer that may
 * start a delimiter is shorter than {@code m}); carrying a delimiter begun in the buffers
 * before reads less than {@code m}; a part's headers are read twice at most, to find
 * their end and to copy them. There is a search for each buffer, and one after each
 * delimiter found: the first boundary and one after each part. A search whose work grows
 * with the delimiter's length at every position is past the bound with the longer
 * boundaries here, on every shape whose bodies are not only short searches.
 */
class MultipartScannerWorkTests {

	/** The most work a shape took: at INFO, which a green build does not show (see logback-test.xml). */
	private static final Log logger = LogFactory.getLog(MultipartScannerWorkTests.class);

	private static final int MAX_HEADERS_SIZE = 10 * 1024;

	private static final int[] SIZES = { 16 * 1024, 256 * 1024 };

	/** How a body is cut into buffers. */
	enum Split {

		/** One buffer. */
		WHOLE,

		/** Random cuts, buffers of 1 byte to 16 KB. */
		RANDOM,

		/** Buffers of 1 byte to the delimiter's length. */
		SMALL,

		/** Each buffer ends where a look-alike of the delimiter does, held for the next. */
		AT_LOOK_ALIKES;

		List<Integer> cuts(Random random, Hostile hostile, int delimiterLength) {
			int length = hostile.body().body().length;
			TreeSet<Integer> cuts = new TreeSet<>();
			switch (this) {
				case WHOLE -> {
				}
				case RANDOM -> {
					for (int at = 1 + random.nextInt(16 * 1024); at < length; at += 1 + random.nextInt(16 * 1024)) {
						cuts.add(at);
					}
				}
				case SMALL -> {
					for (int at = 1 + random.nextInt(delimiterLength); at < length;
							at += 1 + random.nextInt(delimiterLength)) {
						cuts.add(at);
					}
				}
				case AT_LOOK_ALIKES -> {
					for (int end : hostile.lookAlikeEnds()) {
						if (end > 0 && end < length) {
							cuts.add(end);
						}
					}
				}
			}
			return new ArrayList<>(cuts);
		}

	}

	@ParameterizedTest
	@EnumSource(Hostility.class)
	void aHostileBodyIsScannedInWorkLinearInItsBytes(Hostility shape) {
		Random random = TestSeed.random("MultipartScannerWork." + shape);
		double mostPerByte = 0;
		for (BoundaryShape boundaryShape : BoundaryShape.values()) {
			for (int boundaryLength : new int[] { 1 + random.nextInt(70), 700, 4000 }) {
				for (int size : SIZES) {
					String boundary = boundaryShape.boundary(random, boundaryLength);
					Hostile hostile = shape.body(random, size, boundary, MAX_HEADERS_SIZE);
					byte[] body = hostile.body().body();
					int delimiterLength = 4 + boundary.length();
					for (Split split : Split.values()) {
						List<Integer> cuts = split.cuts(random, hostile, delimiterLength);
						String description = "[seed=" + TestSeed.SEED + " " + shape + " " + body.length
								+ " bytes, boundary " + boundaryShape + " of " + boundaryLength + ", " + split + ", "
								+ (cuts.size() + 1) + " buffers]";
						Scan scan = scan(hostile, cuts);
						long bound = 2L * body.length
								+ 3L * delimiterLength * (cuts.size() + 1 + hostile.parts() + 1);
						assertThat(scan.parts).as(description + " parts found").isEqualTo(hostile.parts());
						assertThat(scan.reads).as(description + " bytes read, bound " + bound)
							.isLessThanOrEqualTo(bound);
						mostPerByte = Math.max(mostPerByte, (double) scan.reads / body.length);
					}
				}
			}
		}
		logger.info(String.format("%s read at most %.2f bytes per byte of the body (seed %d)", shape, mostPerByte,
				TestSeed.SEED));
	}

	/**
	 * The shape a sender picks to defeat a search that compares from the delimiter's last
	 * byte: a boundary of one byte repeated over a preamble and a part of that byte, in
	 * buffers of 8 KB as Reactor Netty hands them, each shorter than two boundaries. The
	 * search may compare a delimiter's length more than it moves over once per search,
	 * not once per buffer: a search that started over in every buffer compared about two
	 * delimiter lengths in each before reading on byte by byte, about two reads per byte
	 * of this body.
	 */
	@Test
	void aBodyOfItsBoundarysByteCostsTheSearchItsBudgetOncePerSearchNotOncePerBuffer() {
		String boundary = "a".repeat(4000);
		String filler = "a".repeat(512 * 1024);
		byte[] body = (filler + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n" + filler
				+ "\r\n--" + boundary + "--\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		List<Integer> cuts = new ArrayList<>();
		for (int at = 8 * 1024; at < body.length; at += 8 * 1024) {
			cuts.add(at);
		}
		Scan scan = scan(new Hostile(new RandomMultipart.Body(boundary, body), 1, List.of()), cuts);
		int delimiterLength = 4 + boundary.length();
		// the first boundary's search, the part's, and the closing hyphens, each with a
		// budget of compares, a buffer's tail and a carry into the next buffer
		long bound = body.length + 3L * delimiterLength * 4;
		assertThat(scan.parts).isEqualTo(1);
		// every byte is read once at least: the count sees what the search reads
		assertThat(scan.reads).as("bytes read of %d in %d buffers", body.length, cuts.size() + 1)
			.isBetween((long) body.length, bound);
	}

	/** Scan the body cut at the given positions; every buffer must be released. */
	private static Scan scan(Hostile hostile, List<Integer> cuts) {
		byte[] body = hostile.body().body();
		String boundary = hostile.body().boundary();
		byte[] delimiter = MultipartScanner.delimiter(boundary, 0, boundary.length(), StandardCharsets.UTF_8);
		Scan scan = new Scan();
		MultipartScanner scanner = new MultipartScanner(delimiter, MAX_HEADERS_SIZE, StandardCharsets.UTF_8, scan);
		NettyDataBufferFactory factory = new NettyDataBufferFactory(UnpooledByteBufAllocator.DEFAULT);
		List<CountingBuffer> buffers = new ArrayList<>();
		long[] reads = new long[1];
		int start = 0;
		List<Integer> ends = new ArrayList<>(cuts);
		ends.add(body.length);
		for (int end : ends) {
			byte[] chunk = new byte[end - start];
			System.arraycopy(body, start, chunk, 0, chunk.length);
			CountingBuffer buffer = new CountingBuffer(chunk, reads);
			buffers.add(buffer);
			scanner.feed(factory.wrap(buffer));
			start = end;
		}
		scanner.complete();
		scanner.dispose();
		assertThat(scanner.isDone()).as("the closing boundary read").isTrue();
		assertThat(buffers).as("buffers released").allMatch((buffer) -> buffer.refCnt() == 0);
		scan.reads = reads[0];
		return scan;
	}

	/** Counts the parts, and releases what it is handed without reading it. */
	private static final class Scan implements MultipartScanner.Parts {

		int parts;

		long reads;

		@Override
		public void headers(PartHeaders headers) {
			this.parts++;
		}

		@Override
		public void content(DataBuffer piece) {
			DataBufferUtils.release(piece);
		}

		@Override
		public void end() {
		}

	}

	/**
	 * A Netty heap buffer that adds every byte read from it to a count: one by one
	 * ({@code getByte} and the wider gets, which all go through the methods here, also
	 * from its slices) or in bulk ({@code getBytes}). Its array is not handed out, so that
	 * nothing reads around the count.
	 */
	private static final class CountingBuffer extends WithoutNioView {

		private final long[] reads;

		CountingBuffer(byte[] bytes, long[] reads) {
			super(bytes);
			this.reads = reads;
		}

		@Override
		protected byte _getByte(int index) {
			this.reads[0]++;
			return super._getByte(index);
		}

		@Override
		protected short _getShort(int index) {
			this.reads[0] += 2;
			return super._getShort(index);
		}

		@Override
		protected short _getShortLE(int index) {
			this.reads[0] += 2;
			return super._getShortLE(index);
		}

		@Override
		protected int _getUnsignedMedium(int index) {
			this.reads[0] += 3;
			return super._getUnsignedMedium(index);
		}

		@Override
		protected int _getUnsignedMediumLE(int index) {
			this.reads[0] += 3;
			return super._getUnsignedMediumLE(index);
		}

		@Override
		protected int _getInt(int index) {
			this.reads[0] += 4;
			return super._getInt(index);
		}

		@Override
		protected int _getIntLE(int index) {
			this.reads[0] += 4;
			return super._getIntLE(index);
		}

		@Override
		protected long _getLong(int index) {
			this.reads[0] += 8;
			return super._getLong(index);
		}

		@Override
		protected long _getLongLE(int index) {
			this.reads[0] += 8;
			return super._getLongLE(index);
		}

		@Override
		public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
			this.reads[0] += length;
			return super.getBytes(index, dst, dstIndex, length);
		}

		@Override
		public ByteBuf getBytes(int index, ByteBuffer dst) {
			this.reads[0] += dst.remaining();
			return super.getBytes(index, dst);
		}

		@Override
		public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
			this.reads[0] += length;
			return super.getBytes(index, dst, dstIndex, length);
		}

	}

}
