package io.fastpath.multipart;

import java.util.function.IntFunction;

/**
 * The most parts a form's map of parts may hold, and the error of the part past it. The
 * limit is the form's field limit and its error the form's ({@code io.fastpath.form}
 * gives both), which this package raises without depending on that package.
 *
 * @param maxParts the most parts allowed
 * @param tooManyParts makes the error of a form past the limit, given the limit
 * @author Fastpath
 */
record PartLimit(int maxParts, IntFunction<? extends RuntimeException> tooManyParts) {

	/**
	 * Return whether a form may have the given number of parts.
	 * @param count the parts counted so far, the one just counted included
	 * @return whether that many are allowed
	 */
	boolean allows(int count) {
		return count <= this.maxParts;
	}

	/**
	 * Return the error of a form past the limit.
	 * @return the error
	 */
	RuntimeException exceeded() {
		return this.tooManyParts.apply(this.maxParts);
	}

}
