package io.fastpath.json.write;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

/**
 * Which writers {@link JsonBatchEncoding} put in place, for tests outside this package.
 */
public final class BatchingWriters {

	private BatchingWriters() {
	}

	/**
	 * The stock Jackson encoder that a batching JSON writer among the given ones batches.
	 * @param writers the writers to look through
	 * @return the encoder, or {@code null} when no writer batches JSON
	 */
	public static @Nullable JacksonJsonEncoder batchedJsonEncoder(List<HttpMessageWriter<?>> writers) {
		for (HttpMessageWriter<?> writer : writers) {
			if (writer instanceof EncoderHttpMessageWriter<?> encoderWriter
					&& encoderWriter.getEncoder() instanceof BatchingJsonEncoder batching) {
				return batching.getStock();
			}
		}
		return null;
	}

	/**
	 * The stock SSE writer that a batching SSE writer among the given ones batches.
	 * @param writers the writers to look through
	 * @return the writer, or {@code null} when no writer batches events
	 */
	public static @Nullable ServerSentEventHttpMessageWriter batchedEventWriter(List<HttpMessageWriter<?>> writers) {
		for (HttpMessageWriter<?> writer : writers) {
			if (writer instanceof BatchingServerSentEventWriter batching) {
				return batching.getStock();
			}
		}
		return null;
	}

}
