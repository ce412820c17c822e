package io.fastpath.multipart;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import io.fastpath.multipart.scan.PartHeaders;

/**
 * Reads the parts of a multipart form as a server should answer them, as the urlencoded
 * form reader of {@code io.fastpath.form} does for its fields: the number of parts is
 * limited (the part after the last allowed is deleted and the read fails with the form's
 * error, a 413, as it arrives: {@link PartLimit}); a part without a name, which the map
 * cannot key, is deleted and fails the read as a malformed form, 400 (stock's map fails
 * on the part's {@code name()} with an {@code IllegalStateException}, a 500); a part
 * header Spring's reader cannot parse is a malformed form too, 400; and the wrapped
 * reader's errors, which {@code getMultipartData()} hands out as they are (a 500), are
 * answered with 413 for its limits and 400 for a malformed body, whoever reads the form.
 * Wraps the part reader of Spring's {@code MultipartHttpMessageReader}, which deletes the
 * parts it had collected when the read fails; everything else is the wrapped reader's. A
 * {@link ReadListener} is told of each read, by the part reader that reads it, and of
 * each refused ({@link MultipartReaders#rejected}).
 *
 * @author Fastpath
 */
final class PartCountingReader implements HttpMessageReader<Part> {

	private final HttpMessageReader<Part> parts;

	private final PartLimit limit;

	private final ReadListener listener;

	/** What a read is told as: by Fastpath's part reader, or by another. */
	private final ReadEvent read;

	PartCountingReader(HttpMessageReader<Part> parts, PartLimit limit, ReadListener listener) {
		this.parts = parts;
		this.limit = limit;
		this.listener = listener;
		this.read = (parts instanceof SlicingPartReader) ? ReadEvent.FORM_MULTIPART
				: ReadEvent.FORM_MULTIPART_PART_READER;
	}

	HttpMessageReader<Part> parts() {
		return this.parts;
	}

	@Override
	public List<MediaType> getReadableMediaTypes() {
		return this.parts.getReadableMediaTypes();
	}

	@Override
	public List<MediaType> getReadableMediaTypes(ResolvableType elementType) {
		return this.parts.getReadableMediaTypes(elementType);
	}

	@Override
	public boolean canRead(ResolvableType elementType, @Nullable MediaType mediaType) {
		return this.parts.canRead(elementType, mediaType);
	}

	@Override
	public Flux<Part> read(ResolvableType elementType, ReactiveHttpInputMessage message, Map<String, Object> hints) {
		return Flux.defer(() -> {
			this.listener.onRead(this.read);
			int[] count = new int[1];
			return this.parts.read(elementType, message, hints).<Part>handle((part, sink) -> {
				RuntimeException refused = !this.limit.allows(++count[0]) ? this.limit.exceeded()
						: !hasName(part) ? MultipartReaders.partWithoutAName() : null;
				if (refused != null) {
					part.delete().subscribe();
					sink.error(refused);
				}
				else {
					sink.next(part);
				}
			})
				.onErrorMap(this::asMalformedPartHeader)
				.onErrorMap((error) -> MultipartReaders.translateError(this.listener, error));
		});
	}

	/**
	 * Spring's part reader parses each part's {@code Content-Type}, and its
	 * {@code Content-Disposition} when it asks whether the part is a form field or when the
	 * part completes, and fails with the parser's {@code IllegalArgumentException}
	 * ({@code InvalidMediaTypeException} for the type) when one is malformed: the
	 * request's fault, failed here as Fastpath's part reader fails it
	 * ({@link PartHeaders#unparseable}). Only for that reader, exactly that class, whose
	 * only such exceptions are the parser's; another reader's, Fastpath's included, are
	 * left as they are.
	 */
	private Throwable asMalformedPartHeader(Throwable error) {
		return (error instanceof IllegalArgumentException unparseable
				&& this.parts.getClass() == DefaultPartHttpMessageReader.class)
				? PartHeaders.unparseable(unparseable) : error;
	}

	/**
	 * Whether the part has a name, asked as the map asks it: through its {@code name()},
	 * whatever reader made the part.
	 */
	private static boolean hasName(Part part) {
		try {
			part.name();
			return true;
		}
		catch (IllegalStateException ex) {
			return false;
		}
	}

	@Override
	public Mono<Part> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
			Map<String, Object> hints) {

		return this.parts.readMono(elementType, message, hints);
	}

}
