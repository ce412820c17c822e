package io.fastpath.multipart;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;

import io.fastpath.codec.ReadListener;
import io.fastpath.multipart.scan.MultipartScanner;

/**
 * Reads the parts of a {@code multipart/form-data} body in one scan, in place of Spring's
 * {@link DefaultPartHttpMessageReader} and with its settings ({@link MultipartSettings}):
 * boundaries are found over the incoming buffers ({@link MultipartScanner}), a part in
 * memory is read as the pieces of those buffers it arrived in and copied out of them once
 * as it ends (a text field decoded then), and a part over the in-memory limit is written
 * to a temporary file from the buffers and read back into buffers of the request's
 * factory ({@link PartAssembly}). A client's response is left to the stock reader. Errors are Spring's: {@link DecodingException} for a malformed
 * body, {@code DataBufferLimitException} over a limit. Every buffer is released, and every
 * file deleted, on error and cancel; no part handed out holds a buffer, and the files of
 * parts handed out are deleted when the request's handling ends by
 * {@link PartFilesWebFilter}, where it is registered, and by {@code getMultipartData()}'s
 * clean-up; else they are the reader's caller's to {@link Part#delete() delete}.
 *
 * @author Fastpath
 */
final class SlicingPartReader extends SlicingMultipartReader<Part> {

	private final MultipartSettings settings;

	/**
	 * Read parts with the given settings.
	 * @param settings the settings of the stock reader replaced
	 * @param clientReader the stock reader replaced, for what is not a server's request
	 */
	SlicingPartReader(MultipartSettings settings, HttpMessageReader<Part> clientReader) {
		// nothing to tell: its parts are a map's, whose reader tells of the form
		super(Part.class, clientReader, ReadListener.NONE);
		this.settings = settings;
	}

	MultipartSettings settings() {
		return this.settings;
	}

	@Override
	Flux<Part> readRequest(ReactiveHttpInputMessage message) {
		return parts(message).doOnDiscard(Object.class, SlicingPartReader::discard);
	}

	/**
	 * The parts of the message's body, for a reader that hands them on or collects them:
	 * the buffers read and the files written are released and deleted when the parts end,
	 * fail or are cancelled; a part handed out and then discarded is the caller's to free
	 * ({@link #discard(Object)} in its {@code doOnDiscard}, downstream of all that holds
	 * parts).
	 * @param message the message
	 * @return the parts, or a {@link DecodingException} if its type has no boundary
	 */
	Flux<Part> parts(ReactiveHttpInputMessage message) {
		return Flux.deferContextual((context) -> withDelimiter(message, this.settings.headersCharset(),
				(delimiter) -> parts(message, delimiter, PartFilesWebFilter.filesOf(context))));
	}

	/**
	 * The parts of the message's body, read with the given delimiter, their files
	 * registered with the given request's files, if any.
	 */
	private Flux<Part> parts(ReactiveHttpInputMessage message, byte[] delimiter,
			Disposable.@Nullable Composite files) {
		PartAssembly assembly = new PartAssembly(delimiter, this.settings, files);
		return message.getBody()
			.takeWhile(assembly::isReading)
			// the parts of each buffer as a Flux, the body ended (cancelled) at its closing
			// boundary, as stock's parser ends it, for the last parts not to wait for the
			// epilogue (MultipartAssembly#isClosed)
			.<Flux<Part>>handle((buffer, sink) -> {
				sink.next(assembly.feed(buffer));
				if (assembly.isClosed()) {
					sink.complete();
				}
			})
			// no prefetch: the next buffer is scanned once the last one's parts went out
			.concatMap(Function.identity(), 0)
			.concatWith(Flux.defer(assembly::finish))
			// before the signal goes on, not after as doFinally: whoever sees the error or
			// the end finds the buffers released and the files deleted
			.doOnTerminate(assembly::dispose)
			.doOnCancel(assembly::dispose);
	}

	/**
	 * Free what a reactive operator discards: a buffer, or a part nobody will read (a file).
	 * @param discarded the discarded object
	 */
	static void discard(Object discarded) {
		if (discarded instanceof DataBuffer buffer) {
			DataBufferUtils.release(buffer);
		}
		else if (discarded instanceof Part part) {
			PartAssembly.free(part);
		}
	}

}
