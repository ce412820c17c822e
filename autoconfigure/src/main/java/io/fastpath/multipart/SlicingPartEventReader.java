package io.fastpath.multipart;

import java.util.List;
import java.util.function.Function;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import io.fastpath.multipart.scan.MultipartScanner;

/**
 * Reads the {@link PartEvent}s of a {@code multipart/form-data} body in one scan, in place
 * of Spring's {@link PartEventHttpMessageReader} and with its settings
 * ({@link PartEventSettings}): boundaries are found over the incoming buffers
 * ({@link MultipartScanner}) and a part's content is handed on as the pieces of those
 * buffers it arrived in ({@link PartEventAssembly}), where stock's parser compares every
 * byte against the delimiter and queues buffers in a concurrent deque. Events go out as
 * they are requested: the body is read one buffer at a time, the next only once the
 * events of the last were taken. Errors are Spring's: {@link DecodingException} for a
 * malformed body or too many parts, {@code DataBufferLimitException} over a limit. The
 * content of events handed out is the receiver's to release, as with stock; everything
 * else is released on error and cancel. A client's response is left to the stock reader.
 *
 * @author Fastpath
 */
final class SlicingPartEventReader extends SlicingMultipartReader<PartEvent> {

	private final PartEventSettings settings;

	/**
	 * Read events with the given settings.
	 * @param settings the settings of the stock reader replaced
	 * @param clientReader the stock reader replaced, for what is not a server's request
	 * @param listener the listener to tell of each body read, at subscription, and of each
	 * refused
	 */
	SlicingPartEventReader(PartEventSettings settings, HttpMessageReader<PartEvent> clientReader,
			ReadListener listener) {
		super(PartEvent.class, clientReader, listener);
		this.settings = settings;
	}

	PartEventSettings settings() {
		return this.settings;
	}

	@Override
	Flux<PartEvent> readRequest(ReactiveHttpInputMessage message) {
		return Flux.defer(() -> {
			this.listener.onRead(ReadEvent.FORM_PART_EVENTS);
			return withDelimiter(message, this.settings.headersCharset(), (delimiter) -> events(message, delimiter));
		}).doOnError((error) -> MultipartReaders.rejected(this.listener, error));
	}

	/** The events of the message's body, read with the given delimiter. */
	private Flux<PartEvent> events(ReactiveHttpInputMessage message, byte[] delimiter) {
		PartEventAssembly assembly = new PartEventAssembly(delimiter, this.settings);
		// the events of a buffer as one list, not a Flux per buffer: a 100 MB upload is
		// some 12,000 buffers. A failure goes to the sink, not thrown from the list's
		// mapping, where Reactor would discard the buffer the scan already released.
		return message.getBody()
			.takeWhile(assembly::isReading)
			.<List<PartEvent>>handle((buffer, sink) -> {
				try {
					sink.next(assembly.feed(buffer));
				}
				catch (RuntimeException ex) {
					sink.error(ex);
					return;
				}
				// the body ended (cancelled) at its closing boundary, as stock's parser ends it,
				// for the last events not to wait for the epilogue (MultipartAssembly#isClosed)
				if (assembly.isClosed()) {
					sink.complete();
				}
			})
			.concatWith(Mono.fromCallable(assembly::finish))
			// one buffer's events at a time: the next buffer is read once they are taken
			.flatMapIterable(Function.identity(), 1)
			// before the signal goes on, not after as doFinally: whoever sees the error or
			// the end finds the buffers released
			.doOnTerminate(assembly::dispose)
			.doOnCancel(assembly::dispose)
			.doOnDiscard(Object.class, SlicingPartEventReader::discard);
	}

	/** Free what an operator discards: a buffer, an event, or a buffer's list of events. */
	private static void discard(Object discarded) {
		if (discarded instanceof DataBuffer buffer) {
			DataBufferUtils.release(buffer);
		}
		else if (discarded instanceof PartEvent event) {
			PartEventAssembly.free(event);
		}
		else if (discarded instanceof List<?> events) {
			events.forEach(SlicingPartEventReader::discard);
		}
	}

}
