package io.fastpath.form;

import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoOperator;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBuffer;
import org.springframework.core.log.LogFormatUtils;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.Assert;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ContentTooLargeException;

import io.fastpath.buffer.DataBufferAggregator;
import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

/**
 * Reads {@code application/x-www-form-urlencoded} request bodies into
 * {@link FormParameters}: the body is joined (a single buffer without copying, the size
 * limit checked against Content-Length before anything is read), copied once into an
 * array, scanned once, and handed out as a map whose lookups decode only the fields asked
 * for. Takes the place of a stock {@link FormHttpMessageReader} and reads its settings
 * (default charset, {@code maxInMemorySize}, logging of request details) on every call, so
 * it behaves as the stock reader was configured.
 * <p>Errors are answered as a server should answer them, since
 * {@code ServerWebExchange.getFormData()} does not translate them: a body over the size
 * limit is a {@link ContentTooLargeException} (413) rather than a raw
 * {@link DataBufferLimitException}, too many fields a {@link TooManyFormFieldsException}
 * (413), a malformed body a {@link MalformedFormDataException} (400). Forms read by a
 * client ({@code WebClient} responses) are left to the stock reader, whose exceptions
 * client code expects.
 *
 * @author Fastpath
 * @see LazyFormDecoding
 */
final class LazyFormHttpMessageReader implements HttpMessageReader<MultiValueMap<String, String>> {

	private static final Log logger = LogFactory.getLog(FormHttpMessageReader.class);

	private final FormHttpMessageReader stock;

	private final int maxFields;

	private final ReadListener listener;

	/**
	 * Create a reader in place of the given stock reader.
	 * @param stock the reader whose settings to follow, and which reads client responses
	 * @param maxFields the most fields a form may have
	 */
	LazyFormHttpMessageReader(FormHttpMessageReader stock, int maxFields) {
		this(stock, maxFields, ReadListener.NONE);
	}

	/**
	 * Create a reader in place of the given stock reader that tells the given listener
	 * which way each form goes.
	 * @param stock the reader whose settings to follow, and which reads client responses
	 * @param maxFields the most fields a form may have
	 * @param listener the listener to tell
	 */
	LazyFormHttpMessageReader(FormHttpMessageReader stock, int maxFields, ReadListener listener) {
		Assert.notNull(stock, "Stock reader must not be null");
		Assert.isTrue(maxFields >= 0, "Maximum number of fields must not be negative");
		Assert.notNull(listener, "'listener' must not be null");
		this.stock = stock;
		this.maxFields = maxFields;
		this.listener = listener;
	}

	/**
	 * Return the stock reader this one takes the place of.
	 * @return the stock reader
	 */
	FormHttpMessageReader getStockReader() {
		return this.stock;
	}

	/**
	 * Return the most fields a form may have.
	 * @return the field limit
	 */
	int getMaxFields() {
		return this.maxFields;
	}

	@Override
	public List<MediaType> getReadableMediaTypes() {
		return this.stock.getReadableMediaTypes();
	}

	@Override
	public boolean canRead(ResolvableType elementType, @Nullable MediaType mediaType) {
		return this.stock.canRead(elementType, mediaType);
	}

	@Override
	public Flux<MultiValueMap<String, String>> read(ResolvableType elementType, ReactiveHttpInputMessage message,
			Map<String, Object> hints) {

		return Flux.from(readMono(elementType, message, hints));
	}

	@Override
	public Mono<MultiValueMap<String, String>> readMono(ResolvableType elementType,
			ReactiveHttpInputMessage message, Map<String, Object> hints) {

		// The listener is told when the body is read, at subscription, not when it is assembled.
		if (!(message instanceof ServerHttpRequest)) {
			return Mono.defer(() -> {
				this.listener.onRead(ReadEvent.FORM_CLIENT_RESPONSE);
				return this.stock.readMono(elementType, message, hints);
			});
		}
		return Mono.defer(() -> {
			this.listener.onRead(ReadEvent.FORM_REQUEST);
			return parse(message, hints);
		});
	}

	private Mono<MultiValueMap<String, String>> parse(ReactiveHttpInputMessage message, Map<String, Object> hints) {
		Charset charset = charset(message.getHeaders().getContentType());
		Mono<DataBuffer> body = DataBufferAggregator.aggregate(message.getBody(), this.stock.getMaxInMemorySize(),
				message.getHeaders().getContentLength());
		return new ParsingMono(body, charset, hints);
	}

	private MultiValueMap<String, String> parse(DataBuffer buffer, Charset charset, Map<String, Object> hints) {
		byte[] body;
		try {
			body = readableBytes(buffer);
		}
		finally {
			DataBufferUtils.release(buffer);
		}
		FormParameters parameters = FormParameters.parse(body, charset, this.maxFields);
		logFields(parameters, hints);
		return new FormDataMap(parameters);
	}

	/**
	 * Copy the readable bytes out. Not {@code DefaultDataBuffer#read(byte[])} for heap
	 * buffers: it copies through a duplicate {@code ByteBuffer} made for each read, where
	 * an absolute bulk get copies straight from the buffer.
	 */
	private static byte[] readableBytes(DataBuffer buffer) {
		byte[] bytes = new byte[buffer.readableByteCount()];
		if (buffer instanceof DefaultDataBuffer defaultBuffer) {
			defaultBuffer.getNativeBuffer().get(buffer.readPosition(), bytes, 0, bytes.length);
		}
		else {
			buffer.read(bytes);
		}
		return bytes;
	}

	private Charset charset(@Nullable MediaType contentType) {
		Charset charset = (contentType != null ? contentType.getCharset() : null);
		return (charset != null ? charset : this.stock.getDefaultCharset());
	}

	/**
	 * Log what stock logs, decoded for display: at DEBUG as at INFO, a field invalid in
	 * the charset fails the request only if it is read.
	 */
	private void logFields(FormParameters parameters, Map<String, Object> hints) {
		if (logger.isDebugEnabled()) {
			LogFormatUtils.traceDebug(logger, traceOn -> Hints.getLogPrefix(hints) + "Read "
					+ (this.stock.isEnableLoggingRequestDetails()
							? LogFormatUtils.formatValue(parameters.toDisplayMap(), !traceOn)
							: "form fields " + parameters.displayNames() + " (content masked)"));
		}
	}

	/**
	 * Parses the joined body and answers a body over the size limit with 413: what
	 * {@code map} and {@code onErrorMap} would do, in one operator rather than two, since
	 * two cost a noticeable share of reading a small form (figures in
	 * docs/how-it-works.md, "Measurements behind the design").
	 */
	private final class ParsingMono extends MonoOperator<DataBuffer, MultiValueMap<String, String>> {

		private final Charset charset;

		private final Map<String, Object> hints;

		ParsingMono(Mono<DataBuffer> body, Charset charset, Map<String, Object> hints) {
			super(body);
			this.charset = charset;
			this.hints = hints;
		}

		@Override
		public void subscribe(CoreSubscriber<? super MultiValueMap<String, String>> actual) {
			this.source.subscribe(new ParsingSubscriber(actual, this.charset, this.hints));
		}

	}

	private final class ParsingSubscriber implements CoreSubscriber<DataBuffer>, Subscription {

		private final CoreSubscriber<? super MultiValueMap<String, String>> actual;

		private final Charset charset;

		private final Map<String, Object> hints;

		private @Nullable Subscription upstream;

		private boolean done;

		ParsingSubscriber(CoreSubscriber<? super MultiValueMap<String, String>> actual, Charset charset,
				Map<String, Object> hints) {
			this.actual = actual;
			this.charset = charset;
			this.hints = hints;
		}

		@Override
		public Context currentContext() {
			return this.actual.currentContext();
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (Operators.validate(this.upstream, subscription)) {
				this.upstream = subscription;
				this.actual.onSubscribe(this);
			}
		}

		@Override
		public void onNext(DataBuffer buffer) {
			if (this.done) {
				DataBufferUtils.release(buffer);
				return;
			}
			MultiValueMap<String, String> form;
			try {
				form = parse(buffer, this.charset, this.hints);
			}
			catch (Throwable ex) {
				FormReadEvents.rejected(LazyFormHttpMessageReader.this.listener, ex);
				this.done = true;
				cancel();
				this.actual.onError(ex);
				return;
			}
			this.actual.onNext(form);
		}

		@Override
		public void onError(Throwable error) {
			if (this.done) {
				Operators.onErrorDropped(error, currentContext());
				return;
			}
			this.done = true;
			FormReadEvents.rejected(LazyFormHttpMessageReader.this.listener, error);
			this.actual.onError((error instanceof DataBufferLimitException) ? new ContentTooLargeException(error) : error);
		}

		@Override
		public void onComplete() {
			if (!this.done) {
				this.done = true;
				this.actual.onComplete();
			}
		}

		@Override
		public void request(long n) {
			Subscription upstream = this.upstream;
			if (upstream != null) {
				upstream.request(n);
			}
		}

		@Override
		public void cancel() {
			Subscription upstream = this.upstream;
			if (upstream != null) {
				upstream.cancel();
			}
		}

	}

}
