package io.fastpath.json.write;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Signal;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

/**
 * What a writer wrote: the bytes of the body, in the buffers it came in, and the error
 * that ended it, if any. Every buffer is read and released as it is collected.
 *
 * @param bytes the body
 * @param buffers how many buffers the body came in
 * @param error the error that ended the body, or {@code null} when it completed
 * @param contentLength the {@code Content-Length} the writer set, or -1
 */
record WrittenBody(byte[] bytes, int buffers, @Nullable Throwable error, long contentLength) {

	/** Write the values with the writer into a mock response, and collect its body. */
	static WrittenBody write(HttpMessageWriter<?> writer, Publisher<?> values, ResolvableType elementType,
			MediaType mediaType, DataBufferFactory factory, Map<String, Object> hints) {
		MockServerHttpResponse response = new MockServerHttpResponse(factory);
		@SuppressWarnings("unchecked")
		HttpMessageWriter<Object> objectWriter = (HttpMessageWriter<Object>) writer;
		Throwable writeError = objectWriter.write(values, elementType, mediaType, response, hints)
			.materialize()
			.block()
			.getThrowable();
		WrittenBody body = collect(response.getBody());
		return new WrittenBody(body.bytes(), body.buffers(), (writeError != null) ? writeError : body.error(),
				response.getHeaders().getContentLength());
	}

	/** Read and release every buffer of the body. */
	static WrittenBody collect(Publisher<DataBuffer> body) {
		List<Signal<DataBuffer>> signals = Flux.from(body).materialize().collectList().block();
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		List<Throwable> errors = new ArrayList<>();
		int buffers = 0;
		for (Signal<DataBuffer> signal : signals) {
			DataBuffer buffer = signal.get();
			if (buffer != null) {
				byte[] read = new byte[buffer.readableByteCount()];
				buffer.read(read);
				bytes.writeBytes(read);
				DataBufferUtils.release(buffer);
				buffers++;
			}
			if (signal.getThrowable() != null) {
				errors.add(signal.getThrowable());
			}
		}
		return new WrittenBody(bytes.toByteArray(), buffers, errors.isEmpty() ? null : errors.get(0), -1);
	}

}
