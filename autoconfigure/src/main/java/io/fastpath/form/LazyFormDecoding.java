package io.fastpath.form;

import java.util.ArrayList;
import java.util.List;

import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.util.Assert;

import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import io.fastpath.multipart.MultipartReaders;

/**
 * Puts a lazy form reader in place of the stock {@link FormHttpMessageReader} (exactly
 * that class: a subclass may customize reading), in the same position. It scans the body
 * once and decodes a field only when it is asked for ({@link FormParameters}), and fails
 * a form of more fields than the limit with {@link TooManyFormFieldsException}. It
 * follows the settings of the stock reader it replaces (default charset, in-memory
 * limit), and leaves client responses to it. Replacing it matters: {@code DefaultServerWebExchange} reads the form
 * with the <em>last</em> reader that can, so a reader merely added beside the stock one
 * would lose to it, and {@code getFormData()}, {@code ServerRequest.formData()} and
 * {@code @ModelAttribute} binding would all stay on the stock path.
 * <p>The stock {@link MultipartHttpMessageReader} (exactly that class) is replaced by one
 * over the same part reader, with the same limit on the number of parts as on form
 * fields: {@code getMultipartData()} and {@code @FormParam} on a multipart form then fail
 * with 413 at the first part too many. Unless told otherwise, its part reader, if it is
 * Spring's {@code DefaultPartHttpMessageReader} (exactly that class), is replaced by
 * Fastpath's with the same settings: one scan of the body, parts read from the request
 * buffers; the map of parts is then read by Fastpath's reader, which puts them in the map
 * as they are scanned. So is Spring's {@link PartEventHttpMessageReader} (exactly that
 * class; {@code Flux<PartEvent>} arguments), by Fastpath's with its settings
 * ({@link MultipartReaders}). A standalone part
 * reader ({@code Flux<Part>} arguments) stays stock. The replacements read server
 * requests only: a client's response (the decorator also decorates {@code WebClient}'s
 * readers) is read by the stock reader each replaced, with a client's errors and limits.
 * The {@link ReadListener} is told of urlencoded and multipart forms and of part events
 * alike: read, left to stock, or refused.
 *
 * @author Fastpath
 */
public final class LazyFormDecoding implements HttpMessageReaderDecorator {

	/** Tomcat's, Jetty's and Undertow's default limit on form fields. */
	public static final int DEFAULT_MAX_FIELDS = 1000;

	private final int maxFields;

	private final boolean multipart;

	private final ReadListener listener;

	/**
	 * Create a decorator with the default limit of {@value #DEFAULT_MAX_FIELDS} fields.
	 */
	public LazyFormDecoding() {
		this(DEFAULT_MAX_FIELDS);
	}

	/**
	 * Create a decorator with the given limit on form fields.
	 * @param maxFields the most fields a form may have
	 */
	public LazyFormDecoding(int maxFields) {
		this(maxFields, ReadListener.NONE);
	}

	/**
	 * Create a decorator with the given limit on form fields, whose readers tell the given
	 * listener which way each form goes.
	 * @param maxFields the most fields a form may have
	 * @param listener the listener to tell
	 */
	public LazyFormDecoding(int maxFields, ReadListener listener) {
		this(maxFields, true, listener);
	}

	/**
	 * Create a decorator with the given limit on form fields, whose readers tell the given
	 * listener which way each form goes.
	 * @param maxFields the most fields a form may have
	 * @param multipart whether multipart parts are read by Fastpath's readers in place of
	 * Spring's {@code DefaultPartHttpMessageReader} and {@code PartEventHttpMessageReader}
	 * (with their settings)
	 * @param listener the listener to tell
	 */
	public LazyFormDecoding(int maxFields, boolean multipart, ReadListener listener) {
		Assert.isTrue(maxFields >= 0, "Maximum number of fields must not be negative");
		Assert.notNull(listener, "'listener' must not be null");
		this.maxFields = maxFields;
		this.multipart = multipart;
		this.listener = listener;
	}

	/**
	 * Return whether multipart parts are read by Fastpath's reader.
	 * @return whether the stock part reader is replaced
	 */
	public boolean isMultipart() {
		return this.multipart;
	}

	/**
	 * Return the most fields a form may have.
	 * @return the field limit
	 */
	public int getMaxFields() {
		return this.maxFields;
	}

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		List<HttpMessageReader<?>> result = new ArrayList<>(readers.size());
		for (HttpMessageReader<?> reader : readers) {
			if (reader.getClass() == FormHttpMessageReader.class) {
				result.add(new LazyFormHttpMessageReader((FormHttpMessageReader) reader, this.maxFields, this.listener));
			}
			else if (reader.getClass() == MultipartHttpMessageReader.class) {
				result.add(countingParts((MultipartHttpMessageReader) reader));
			}
			else if (reader.getClass() == PartEventHttpMessageReader.class) {
				result.add(partEventReader((PartEventHttpMessageReader) reader));
			}
			else {
				result.add(reader);
			}
		}
		return result;
	}

	private MultipartHttpMessageReader countingParts(MultipartHttpMessageReader stock) {
		return MultipartReaders.countingParts(stock, this.maxFields, this::tooManyFields, this.multipart,
				this.listener);
	}

	/** The error of a multipart form past the limit, told as the urlencoded form's is. */
	private TooManyFormFieldsException tooManyFields(int maxFields) {
		this.listener.onRead(ReadEvent.FORM_TOO_MANY_FIELDS);
		return new TooManyFormFieldsException(maxFields);
	}

	private HttpMessageReader<PartEvent> partEventReader(PartEventHttpMessageReader stock) {
		return this.multipart ? MultipartReaders.partEvents(stock, this.listener) : stock;
	}

}
