package io.fastpath.multipart;

import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.web.server.ContentTooLargeException;
import org.springframework.web.server.ServerWebInputException;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

/**
 * The multipart readers Fastpath puts in place of stock ones, and how a multipart read's
 * errors are answered: what {@code LazyFormDecoding} and the form arguments of
 * {@code io.fastpath.form} use of this package, whose readers are otherwise internal.
 * Public for that package; applications install the readers with {@code LazyFormDecoding}.
 *
 * @author Fastpath
 */
public final class MultipartReaders {

	private MultipartReaders() {
	}

	/**
	 * Return a reader of the map of parts in place of the given stock one, limited to the
	 * given number of parts: the part after the last allowed fails the read with the
	 * given error (the form's {@code TooManyFormFieldsException}, 413), and the part
	 * reader's errors are answered with 413 or 400 ({@link #translateError}). Its part
	 * reader is Fastpath's if so asked and the stock one is Spring's
	 * {@link DefaultPartHttpMessageReader} (exactly that class), with its settings; else
	 * the stock one's. A reader this method made is returned as it is. It tells the
	 * listener of each body it reads, by the part reader it reads it with, and of each it
	 * refuses, but for a part past the limit, whose error the caller makes and tells.
	 * @param stock the stock reader of the map of parts
	 * @param maxParts the most parts a request may have
	 * @param tooManyParts makes the error of the part after the last allowed, given the
	 * limit
	 * @param slicing whether to read parts with Fastpath's part reader
	 * @param listener the listener to tell
	 * @return the reader to put in the stock one's place
	 */
	public static MultipartHttpMessageReader countingParts(MultipartHttpMessageReader stock, int maxParts,
			IntFunction<? extends RuntimeException> tooManyParts, boolean slicing, ReadListener listener) {
		if (stock.getPartReader() instanceof PartCountingReader) {
			return stock;
		}
		HttpMessageReader<Part> parts = slicing ? partReader(stock.getPartReader()) : stock.getPartReader();
		return new MultipartDataReader(parts, new PartLimit(maxParts, tooManyParts), stock, listener);
	}

	private static HttpMessageReader<Part> partReader(HttpMessageReader<Part> stock) {
		if (stock.getClass() == DefaultPartHttpMessageReader.class) {
			MultipartSettings settings = MultipartSettings.of((DefaultPartHttpMessageReader) stock);
			if (settings != null) {
				return new SlicingPartReader(settings, stock);
			}
		}
		return stock;
	}

	/**
	 * Return Fastpath's reader of {@link PartEvent}s with the settings of the given stock
	 * one, or the stock one if its settings cannot be read.
	 * @param stock Spring's {@link PartEventHttpMessageReader}
	 * @param listener the listener to tell of each body read or refused
	 * @return the reader to put in its place
	 */
	public static HttpMessageReader<PartEvent> partEvents(PartEventHttpMessageReader stock, ReadListener listener) {
		PartEventSettings settings = PartEventSettings.of(stock);
		return (settings != null) ? new SlicingPartEventReader(settings, stock, listener) : stock;
	}

	/**
	 * The error of a part without a name, which a form's map of parts cannot key. Stock's
	 * map asks each part its name, and Spring's parts answer a part without one with an
	 * {@code IllegalStateException}, which a server answers 500 for a malformed form.
	 * @return the error, a 400 through {@link #translateError}
	 */
	static DecodingException partWithoutAName() {
		return new DecodingException("A part has no name in its Content-Disposition");
	}

	/**
	 * Answer an error of a multipart reader, Fastpath's or Spring's, as a server should.
	 * {@code getMultipartData()} hands them out as they are, a 500.
	 * @param error the error
	 * @return a 413 for limits, a 400 for a malformed body, else the error itself
	 */
	public static Throwable translateError(Throwable error) {
		ReadEvent rejection = rejection(error);
		if (rejection == null) {
			return error;
		}
		return (rejection == ReadEvent.FORM_MALFORMED)
				? new ServerWebInputException("Malformed multipart form: " + error.getMessage(), null, error)
				: new ContentTooLargeException(error);
	}

	/**
	 * Tell the listener of a multipart body refused with the given error, and answer the
	 * error as a server should ({@link #translateError}).
	 * @param listener the listener to tell
	 * @param error the error
	 * @return the error to hand on
	 */
	static Throwable translateError(ReadListener listener, Throwable error) {
		rejected(listener, error);
		return translateError(error);
	}

	/**
	 * Tell the listener of a multipart body refused with the given error of a part reader,
	 * Fastpath's or Spring's: over a limit, too many parts, or malformed. An error that is
	 * not the body's (a failing upstream, for one) is no rejection and is not told, nor
	 * is the form's error of a part past its limit, which the form tells as it makes it.
	 * @param listener the listener to tell
	 * @param error the error
	 */
	static void rejected(ReadListener listener, Throwable error) {
		ReadEvent rejection = rejection(error);
		if (rejection != null) {
			listener.onRead(rejection);
		}
	}

	/**
	 * What the error of a part reader refuses the body for, which decides both what the
	 * listener is told and how the error is answered; {@code null} for an error that is
	 * not the body's.
	 */
	private static @Nullable ReadEvent rejection(Throwable error) {
		if (error instanceof DataBufferLimitException) {
			return ReadEvent.FORM_TOO_LARGE;
		}
		if (error instanceof TooManyPartsException || (error instanceof DecodingException && isStockPartLimit(error))) {
			return ReadEvent.FORM_TOO_MANY_FIELDS;
		}
		if (error instanceof DecodingException) {
			return ReadEvent.FORM_MALFORMED;
		}
		return null;
	}

	/**
	 * Whether the error is the part limit of Spring's own {@code DefaultPartHttpMessageReader}
	 * (in use when {@code fastpath.form.multipart.enabled} is off, or Fastpath is): it raises
	 * a plain {@link DecodingException}, with no type of its own to tell a limit from a
	 * malformed body, so only its message tells. Fastpath's reader raises a
	 * {@link TooManyPartsException}. A test on stock's reader pins the message.
	 */
	private static boolean isStockPartLimit(Throwable error) {
		String message = error.getMessage();
		return message != null && message.startsWith("Too many parts");
	}

}
