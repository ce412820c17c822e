package io.fastpath.form;

import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
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
public final class LazyFormHttpMessageReader implements HttpMessageReader<MultiValueMap<String, String>> {

	private static final Log logger = LogFactory.getLog(FormHttpMessageReader.class);

	private final FormHttpMessageReader stock;

	private final int maxFields;

	/**
	 * Create a reader in place of the given stock reader.
	 * @param stock the reader whose settings to follow, and which reads client responses
	 * @param maxFields the most fields a form may have
	 */
	public LazyFormHttpMessageReader(FormHttpMessageReader stock, int maxFields) {
		Assert.notNull(stock, "Stock reader must not be null");
		Assert.isTrue(maxFields >= 0, "Maximum number of fields must not be negative");
		this.stock = stock;
		this.maxFields = maxFields;
	}

	/**
	 * Return the stock reader this one takes the place of.
	 * @return the stock reader
	 */
	public FormHttpMessageReader getStockReader() {
		return this.stock;
	}

	/**
	 * Return the most fields a form may have.
	 * @return the field limit
	 */
	public int getMaxFields() {
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

		if (!(message instanceof ServerHttpRequest)) {
			return this.stock.readMono(elementType, message, hints);
		}
		Charset charset = charset(message.getHeaders().getContentType());
		int maxFields = this.maxFields;
		return DataBufferAggregator
			.aggregate(message.getBody(), this.stock.getMaxInMemorySize(), message.getHeaders().getContentLength())
			.map(buffer -> {
				byte[] body = new byte[buffer.readableByteCount()];
				try {
					buffer.read(body);
				}
				finally {
					DataBufferUtils.release(buffer);
				}
				FormParameters parameters = FormParameters.parse(body, charset, maxFields);
				logFields(parameters, hints);
				return (MultiValueMap<String, String>) new FormDataMap(parameters);
			})
			.onErrorMap(DataBufferLimitException.class, ContentTooLargeException::new);
	}

	private Charset charset(@Nullable MediaType contentType) {
		Charset charset = (contentType != null ? contentType.getCharset() : null);
		return (charset != null ? charset : this.stock.getDefaultCharset());
	}

	private void logFields(FormParameters parameters, Map<String, Object> hints) {
		if (logger.isDebugEnabled()) {
			LogFormatUtils.traceDebug(logger, traceOn -> Hints.getLogPrefix(hints) + "Read "
					+ (this.stock.isEnableLoggingRequestDetails()
							? LogFormatUtils.formatValue(parameters.toMultiValueMap(), !traceOn)
							: "form fields " + parameters.names() + " (content masked)"));
		}
	}

}
