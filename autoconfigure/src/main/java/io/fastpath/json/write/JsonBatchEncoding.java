package io.fastpath.json.write;

import java.util.ArrayList;
import java.util.List;

import io.fastpath.codec.HttpMessageWriterDecorator;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.BlackbirdAvailability;
import io.fastpath.json.BlackbirdTwins;
import org.jspecify.annotations.Nullable;

import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.util.Assert;

/**
 * Puts batching writers in place of the stock Jackson JSON writers, in the same position
 * and with the same encoder instance (its mapper, registrations, MIME types, streaming
 * types): the plain {@link EncoderHttpMessageWriter} of a {@link JacksonJsonEncoder}
 * writes a {@code Flux} (any multi-value publisher) as a JSON array or stream in batches,
 * and the plain {@link ServerSentEventHttpMessageWriter} whose encoder is a
 * {@code JacksonJsonEncoder} writes events in batches. Exactly those classes: a subclass
 * may write otherwise. {@code Mono} and single values are written as stock writes them.
 * <p>A batch holds the values the source has ready, up to {@value #DEFAULT_CAP} bytes
 * (a batch holds whole values: it goes out before a value that could take it past the
 * cap, judged by the largest value of this batch and the one before it, a value larger
 * than the cap set aside, so that batching resumes after one): no value waits for
 * another, and a streaming body is flushed after each batch, where stock flushes after
 * each value. A response holds about two batches of written-but-unsent bytes at most.
 * <p>By default values are written with a twin of the application's mapper that adds
 * Jackson's Blackbird module (as {@link io.fastpath.json.JsonArrayDecoding} reads them), where Blackbird is
 * on the class path and the application does not run in a native image: getters and
 * fields are read through generated lambdas rather than reflection, for {@code Flux}
 * bodies, {@code Mono}s and single values alike. The bytes are those of the application's
 * mapper, which stays as configured; a mapper registered for a type
 * ({@code registerMappersForType}, as Spring Boot registers Actuator's) is used as it is.
 * <p>A {@link WriteListener} given to it is told of each body written in batches, once
 * it has ended (see {@link io.fastpath.codec.WriteEvent}).
 *
 * @author Fastpath
 */
public final class JsonBatchEncoding implements HttpMessageWriterDecorator {

	/**
	 * The size past which a batch is emitted: the order of what Netty writes to a socket
	 * at once, so that a batch costs one write and a large body is not held whole.
	 */
	public static final int DEFAULT_CAP = 64 * 1024;

	private final int cap;

	/** The twins to write with, or {@code null} to write with the application's mappers. */
	private final @Nullable BlackbirdTwins twins;

	private final WriteListener listener;

	/**
	 * Create a decoration with batches of up to {@value #DEFAULT_CAP} bytes.
	 */
	public JsonBatchEncoding() {
		this(DEFAULT_CAP, WriteListener.NONE);
	}

	/**
	 * Create a decoration.
	 * @param cap the size in bytes past which a batch is emitted
	 */
	public JsonBatchEncoding(int cap) {
		this(cap, WriteListener.NONE);
	}

	/**
	 * Create a decoration with batches of up to {@value #DEFAULT_CAP} bytes that tells the
	 * given listener of each body it writes.
	 * @param listener the listener to tell
	 */
	public JsonBatchEncoding(WriteListener listener) {
		this(DEFAULT_CAP, listener);
	}

	/**
	 * Create a decoration that tells the given listener of each body it writes.
	 * @param cap the size in bytes past which a batch is emitted
	 * @param listener the listener to tell
	 */
	public JsonBatchEncoding(int cap, WriteListener listener) {
		this(cap, true, listener);
	}

	/**
	 * Create a decoration that tells the given listener of each body it writes.
	 * @param cap the size in bytes past which a batch is emitted
	 * @param optimizeAccessors whether to write with twins of the application's mappers that
	 * add Jackson's Blackbird module, where it is on the class path and outside a native
	 * image
	 * @param listener the listener to tell
	 */
	public JsonBatchEncoding(int cap, boolean optimizeAccessors, WriteListener listener) {
		Assert.isTrue(cap > 0, "'cap' must be positive");
		Assert.notNull(listener, "'listener' must not be null");
		this.cap = cap;
		this.twins = BlackbirdAvailability.twins(optimizeAccessors, BlackbirdTwins.Use.WRITING);
		this.listener = listener;
	}

	/**
	 * Return the size a batch is kept within.
	 * @return the cap in bytes
	 */
	public int getCap() {
		return this.cap;
	}

	/**
	 * Whether the writers this decoration builds write with twins of the application's
	 * mappers that add Blackbird.
	 * @return whether accessors are optimized
	 */
	public boolean optimizesAccessors() {
		return this.twins != null;
	}

	@Override
	public List<HttpMessageWriter<?>> decorate(List<HttpMessageWriter<?>> writers) {
		List<HttpMessageWriter<?>> result = new ArrayList<>(writers.size());
		for (HttpMessageWriter<?> writer : writers) {
			result.add(decorate(writer));
		}
		return result;
	}

	private HttpMessageWriter<?> decorate(HttpMessageWriter<?> writer) {
		if (writer.getClass() == EncoderHttpMessageWriter.class
				&& ((EncoderHttpMessageWriter<?>) writer).getEncoder().getClass() == JacksonJsonEncoder.class) {
			JacksonJsonEncoder encoder = (JacksonJsonEncoder) ((EncoderHttpMessageWriter<?>) writer).getEncoder();
			return new BatchingJsonWriter(new BatchingJsonEncoder(encoder, this.cap, this.twins, this.listener));
		}
		if (writer.getClass() == ServerSentEventHttpMessageWriter.class
				&& ((ServerSentEventHttpMessageWriter) writer).getEncoder() instanceof JacksonJsonEncoder encoder
				&& encoder.getClass() == JacksonJsonEncoder.class) {
			return new BatchingServerSentEventWriter((ServerSentEventHttpMessageWriter) writer, encoder, this.cap,
					this.twins, this.listener);
		}
		return writer;
	}

}
