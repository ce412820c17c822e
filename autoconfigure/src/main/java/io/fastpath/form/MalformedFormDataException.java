package io.fastpath.form;

import org.jspecify.annotations.Nullable;

import org.springframework.web.server.ServerWebInputException;

/**
 * A form body that cannot be decoded: a malformed percent-escape ({@code %G1}, a lone
 * {@code %} at the end) or bytes that are not valid in the request's charset. Answered
 * with 400 Bad Request. Stock Spring lets {@code URLDecoder}'s
 * {@code IllegalArgumentException} out for the former (a 500) and replaces the latter with
 * U+FFFD.
 *
 * @author Fastpath
 */
@SuppressWarnings("serial")
public class MalformedFormDataException extends ServerWebInputException {

	private final @Nullable String fieldName;

	/**
	 * Create an exception for the given field.
	 * @param reason what is wrong, naming the field
	 * @param fieldName the field, as far as it could be decoded, or {@code null} when the
	 * problem is not in one field
	 */
	public MalformedFormDataException(String reason, @Nullable String fieldName) {
		super(reason);
		this.fieldName = fieldName;
	}

	/**
	 * Return the name of the field that could not be decoded, as far as it could be
	 * decoded itself, or {@code null} when the problem is not in one field.
	 * @return the field name
	 */
	public @Nullable String getFieldName() {
		return this.fieldName;
	}

}
