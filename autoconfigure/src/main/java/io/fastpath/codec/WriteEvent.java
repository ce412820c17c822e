package io.fastpath.codec;

/**
 * A body that Fastpath's writers wrote in batches, told once it has ended: its kind, how it
 * ended, and what went out: how many values, in how many batches (each one buffer, one
 * write and, for a stream, one flush), of how many bytes. Where the stock writers give
 * each value a write of its own, {@code values / batches} is how many writes batching
 * saved.
 * <p>What went out counts the batches handed to the server or client, and the values and
 * bytes in them: a batch released unsent when the body is cancelled is not counted. The
 * end of a JSON array ({@code ]}) may go out as a batch of its own, with no value.
 *
 * @param kind what the body is written as
 * @param outcome how the body ended
 * @param values the values in the batches that went out
 * @param batches the batches that went out
 * @param bytes the bytes of the batches that went out
 * @author Fastpath
 * @see WriteListener
 */
public record WriteEvent(Kind kind, Outcome outcome, long values, long batches, long bytes) {

	/**
	 * What a body is written as. A closed set, as {@link Outcome}: a counter per pair can be
	 * created up front.
	 */
	public enum Kind {

		/** A JSON array ({@code application/json} and other non-streaming JSON types). */
		JSON_ARRAY("json-array"),

		/** Newline-delimited JSON values (the encoder's streaming types, such as {@code application/x-ndjson}). */
		JSON_STREAM("json-stream"),

		/** Server-sent events ({@code text/event-stream}) with JSON data. */
		SERVER_SENT_EVENTS("sse");

		private final String tagValue;

		Kind(String tagValue) {
			this.tagValue = tagValue;
		}

		/**
		 * Return the kind's name, as in meter tags.
		 * @return the name
		 */
		public String tagValue() {
			return this.tagValue;
		}

	}

	/**
	 * How a body ended.
	 */
	public enum Outcome {

		/** Every value of the source went out, and the end of the body after them. */
		COMPLETE("complete"),

		/**
		 * The source or the writing of a value failed: the values before it went out, then
		 * the error.
		 */
		ERROR("error"),

		/** The server or client cancelled: the connection closed, the exchange was abandoned. */
		CANCEL("cancel");

		private final String tagValue;

		Outcome(String tagValue) {
			this.tagValue = tagValue;
		}

		/**
		 * Return the outcome's name, as in meter tags.
		 * @return the name
		 */
		public String tagValue() {
			return this.tagValue;
		}

	}

}
