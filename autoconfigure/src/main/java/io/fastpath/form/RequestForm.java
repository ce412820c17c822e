package io.fastpath.form;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;

import io.fastpath.multipart.MultipartReaders;

/**
 * The form of a request in either encoding, read once per request: its text fields as
 * {@link FormParameters}, and, for {@code multipart/form-data}, its parts. An
 * {@code application/x-www-form-urlencoded} body is read through
 * {@code ServerWebExchange.getFormData()}, a multipart body through
 * {@code getMultipartData()}, so both are read by the readers the application configured
 * (with their limits), and other consumers of the exchange see the same form. Errors of
 * the multipart reader, which {@code getMultipartData()} hands out as they are, are
 * answered as a server should ({@link MultipartReaders#translateError}): a part too large
 * or too many parts is 413, a malformed body 400.
 *
 * @author Fastpath
 */
final class RequestForm {

	/** The media types a form may have, for the 415 where a form is required. */
	static final List<MediaType> FORM_TYPES = List.of(MediaType.APPLICATION_FORM_URLENCODED,
			MediaType.MULTIPART_FORM_DATA);

	private static final String EXCHANGE_ATTRIBUTE = RequestForm.class.getName();

	private static final MultiValueMap<String, Part> NO_PARTS = new LinkedMultiValueMap<>(0);

	private final FormParameters fields;

	private final MultiValueMap<String, Part> parts;

	private RequestForm(FormParameters fields, MultiValueMap<String, Part> parts) {
		this.fields = fields;
		this.parts = parts;
	}

	/**
	 * Return the form of the given exchange, read on first subscription and cached on the
	 * exchange: however many arguments ask, the body is read and its fields gathered once.
	 * @param exchange the exchange
	 * @return the form; empty fields and parts if the request is not a form
	 */
	@SuppressWarnings("unchecked")
	static Mono<RequestForm> from(ServerWebExchange exchange) {
		Map<String, Object> attributes = exchange.getAttributes();
		Mono<RequestForm> form = (Mono<RequestForm>) attributes.get(EXCHANGE_ATTRIBUTE);
		if (form == null) {
			form = read(exchange).cache();
			attributes.put(EXCHANGE_ATTRIBUTE, form);
		}
		return form;
	}

	private static Mono<RequestForm> read(ServerWebExchange exchange) {
		if (isMultipartForm(contentType(exchange))) {
			return exchange.getMultipartData()
				.onErrorMap(MultipartReaders::translateError)
				.map((parts) -> new RequestForm(textFields(parts), parts));
		}
		return exchange.getFormData().map((map) -> new RequestForm(FormParameters.of(map), NO_PARTS));
	}

	/**
	 * Return whether the exchange's request declares a form: urlencoded or multipart.
	 * @param exchange the exchange
	 * @return whether its content type is one of {@link #FORM_TYPES}
	 */
	static boolean isForm(ServerWebExchange exchange) {
		MediaType contentType = contentType(exchange);
		return contentType != null && (MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(contentType)
				|| isMultipartForm(contentType));
	}

	static @Nullable MediaType contentType(ServerWebExchange exchange) {
		try {
			return exchange.getRequest().getHeaders().getContentType();
		}
		catch (InvalidMediaTypeException ex) {
			return null;
		}
	}

	private static boolean isMultipartForm(@Nullable MediaType contentType) {
		return contentType != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(contentType);
	}

	/**
	 * The text fields of a multipart form, each the value that Spring's reader decoded in
	 * its part's charset (UTF-8 unless the part says otherwise).
	 */
	private static FormParameters textFields(MultiValueMap<String, Part> parts) {
		MultiValueMap<String, String> fields = new LinkedMultiValueMap<>(parts.size());
		parts.forEach((name, named) -> {
			for (Part part : named) {
				if (part instanceof FormFieldPart field) {
					fields.add(name, field.value());
				}
			}
		});
		return FormParameters.of(fields);
	}

	/**
	 * Return the text fields: every field of a URL-encoded form, the text parts of a
	 * multipart form.
	 * @return the fields
	 */
	FormParameters fields() {
		return this.fields;
	}

	/**
	 * Return the parts with the given name that are of the given type (a {@code FilePart}
	 * argument is not given a text field): one as itself, several as a list.
	 * @param name the part name
	 * @param type the type of part wanted
	 * @return the part or parts, or {@code null} if there is none
	 */
	@Nullable Object partsOf(String name, Class<?> type) {
		List<Part> named = this.parts.get(name);
		if (named == null) {
			return null;
		}
		List<Part> wanted = new ArrayList<>(named.size());
		for (Part part : named) {
			if (type.isInstance(part)) {
				wanted.add(part);
			}
		}
		return switch (wanted.size()) {
			case 0 -> null;
			case 1 -> wanted.get(0);
			default -> wanted;
		};
	}

}
