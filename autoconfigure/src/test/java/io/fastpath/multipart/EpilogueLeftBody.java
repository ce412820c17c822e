package io.fastpath.multipart;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

/**
 * The body of a client that left in its epilogue: a field and a file, the closing
 * boundary, an epilogue sent in several buffers, and then nothing, not even the body's
 * end, as a server that is never told the client left gives it (Tomcat, the client gone
 * five bytes before the end). Each buffer is made when it is asked for, as a server
 * receives them; the body counts the buffers asked for and sees whether it was cancelled,
 * for a test to compare Fastpath's readers with stock's, which hands out the parts at the
 * closing boundary and cancels the body there.
 */
final class EpilogueLeftBody {

	static final String BOUNDARY = "xYz";

	private static final List<String> CHUNKS = List.of(
			"--xYz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--xYz\r\n"
					+ "Content-Disposition: form-data; name=\"f\"; filename=\"f.bin\"\r\n"
					+ "Content-Type: application/octet-stream\r\n\r\n" + "content of a file ".repeat(10),
			"the file's last bytes\r\n--xYz--\r\nthe start of an epilogue, ",
			"an epilogue that goes on ", "in buffer after buffer ", "and whose end never comes");

	private final AtomicInteger asked = new AtomicInteger();

	private final AtomicBoolean cancelled = new AtomicBoolean();

	private final MockServerHttpRequest request;

	/**
	 * The body in buffers of the given factory.
	 * @param factory the factory
	 */
	EpilogueLeftBody(DataBufferFactory factory) {
		Flux<DataBuffer> chunks = Flux.fromIterable(CHUNKS).map((chunk) -> {
			this.asked.incrementAndGet();
			byte[] bytes = chunk.getBytes(StandardCharsets.US_ASCII);
			// not allocateBuffer(n).write(bytes): a wrapper returns its delegate from write
			DataBuffer buffer = factory.allocateBuffer(bytes.length);
			buffer.write(bytes);
			return buffer;
		});
		Flux<DataBuffer> body = Flux.concat(chunks, Flux.<DataBuffer>never())
			.doOnCancel(() -> this.cancelled.set(true));
		this.request = MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", BOUNDARY)))
			.body(body);
	}

	MockServerHttpRequest request() {
		return this.request;
	}

	/**
	 * What became of the body: how many of its buffers were asked for, and whether it was
	 * cancelled.
	 * @return a description to compare
	 */
	String fate() {
		return this.asked.get() + " of " + CHUNKS.size() + " buffers asked for, "
				+ (this.cancelled.get() ? "cancelled" : "not cancelled");
	}

}
