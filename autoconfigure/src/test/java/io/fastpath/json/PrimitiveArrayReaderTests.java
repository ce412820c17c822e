package io.fastpath.json;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.stream.Stream;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What reading a primitive array costs a sender: the array {@link PrimitiveArrayReader}
 * fills grows with the values it reads, so a body that is all commas cannot make the
 * server allocate more than it was sent; on the heap and in Netty's direct memory, where
 * the body is streamed to the parser.
 */
class PrimitiveArrayReaderTests {

	private static final int BODY_LENGTH = 1 << 20;

	private final LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();

	static Stream<Arguments> arrays() {
		return Stream.of("heap", "netty").flatMap((buffers) -> Stream.of(Arguments.of(long[].class, "1", buffers),
				Arguments.of(double[].class, "1.5", buffers), Arguments.of(int[].class, "1", buffers),
				Arguments.of(float[].class, "1.5", buffers), Arguments.of(boolean[].class, "true", buffers)));
	}

	@AfterEach
	void everyPooledBufferIsReleased() {
		this.netty.assertNoLeaks();
	}

	@ParameterizedTest(name = "{0} on {2}")
	@MethodSource("arrays")
	void bodyOfCommasAllocatesLessThanItsOwnLength(Class<?> type, String value, String buffers) {
		byte[] body = ("[" + value + ",".repeat(BODY_LENGTH) + "]").getBytes(StandardCharsets.US_ASCII);
		FastpathJsonDecoder decoder = new FastpathJsonDecoder(JsonMapper.builder().build());
		// Warm up: the first read loads classes and fills Jackson's buffer pools.
		decodeFails(decoder, type, buffer(buffers, body));
		DataBuffer buffer = buffer(buffers, body);
		long allocated = allocatedBytes(() -> decodeFails(decoder, type, buffer));
		// Before: an array of one slot per comma, up front (8 MB for a long[]), then Databind.
		assertThat(allocated).as("bytes allocated reading %d bytes of commas", body.length)
			.isLessThan(BODY_LENGTH / 4);
	}

	@ParameterizedTest(name = "{0} on {2}")
	@MethodSource("arrays")
	void arraysOfEveryLengthAroundTheGrowthStepsDecodeLikeStock(Class<?> type, String value, String buffers) {
		JsonMapper mapper = JsonMapper.builder().build();
		FastpathJsonDecoder fastpath = new FastpathJsonDecoder(mapper);
		JacksonJsonDecoder stock = new JacksonJsonDecoder(mapper);
		for (int length = 0; length <= 70; length++) {
			String json = "[" + String.join(",", Collections.nCopies(length, value)) + "]";
			byte[] body = json.getBytes(StandardCharsets.US_ASCII);
			Object expected = decode(stock, type, buffer(buffers, body));
			Object actual = decode(fastpath, type, buffer(buffers, body));
			assertThat(DecoderOutcome.difference(expected, actual, json)).isNull();
		}
	}

	private DataBuffer buffer(String buffers, byte[] body) {
		return buffers.equals("heap") ? DefaultDataBufferFactory.sharedInstance.wrap(body) : this.netty.bufferOf(body);
	}

	private static void decodeFails(FastpathJsonDecoder decoder, Class<?> type, DataBuffer body) {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> decode(decoder, type, body));
	}

	private static Object decode(Decoder<Object> decoder, Class<?> type, DataBuffer body) {
		return decoder.decode(body, ResolvableType.forClass(type), MediaType.APPLICATION_JSON, null);
	}

	private static long allocatedBytes(Runnable action) {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory
			.getThreadMXBean();
		long before = threads.getCurrentThreadAllocatedBytes();
		action.run();
		return threads.getCurrentThreadAllocatedBytes() - before;
	}

}
