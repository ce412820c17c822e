package io.fastpath.form;

import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

/**
 * A form body with more fields than allowed: answered with 413 Content Too Large, like
 * servlet containers do past their own field limits (1000 by default in Tomcat, Jetty and
 * Undertow).
 *
 * @author Fastpath
 */
@SuppressWarnings("serial")
public class TooManyFormFieldsException extends ResponseStatusException {

	private final int maxFields;

	/**
	 * Create an exception for the given limit.
	 * @param maxFields the number of fields allowed
	 */
	public TooManyFormFieldsException(int maxFields) {
		super(HttpStatus.CONTENT_TOO_LARGE, "Form has more than " + maxFields + " fields");
		this.maxFields = maxFields;
	}

	/**
	 * Return the number of fields allowed.
	 * @return the limit that was exceeded
	 */
	public int getMaxFields() {
		return this.maxFields;
	}

}
