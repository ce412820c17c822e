package io.fastpath.codec;

import org.jspecify.annotations.Nullable;

/**
 * The decisions Fastpath's readers take about a body, each with the feature that took it,
 * the path, the outcome and, when handed to stock or rejected, the reason. A closed set,
 * so that each decision can be counted by a counter created up front (one per constant,
 * indexed by {@link #ordinal()}).
 *
 * @author Fastpath
 * @see ReadListener
 */
public enum ReadEvent {

	/** A {@code Flux} over a JSON array or stream, read by splitting elements. */
	JSON_FLUX(Feature.JSON, "flux", Outcome.FAST, null),

	/** A whole JSON value held on the heap, parsed in place with a cached reader. */
	JSON_VALUE(Feature.JSON, "value", Outcome.FAST, null),

	/** A JSON array into {@code long[]}, {@code int[]}, ..., filled straight from its tokens. */
	JSON_PRIMITIVE_ARRAY(Feature.JSON, "primitive-array", Outcome.FAST, null),

	/** A whole JSON value in direct memory, streamed to the parser as stock does. */
	JSON_VALUE_STREAMED(Feature.JSON, "value-streamed", Outcome.FAST, null),

	/** A {@code Flux} of arrays or collections: stock reads each top-level value whole. */
	JSON_FLUX_OF_COLLECTIONS(Feature.JSON, "flux", Outcome.STOCK, "flux-of-collections"),

	/** A {@code Flux} in a charset other than UTF-8 or US-ASCII: stock re-encodes it. */
	JSON_FLUX_CHARSET(Feature.JSON, "flux", Outcome.STOCK, "charset"),

	/** A {@code Flux} read by a mapper that allows non-standard syntax (comments, ...). */
	JSON_FLUX_MAPPER_SYNTAX(Feature.JSON, "flux", Outcome.STOCK, "mapper-syntax"),

	/** A {@code Flux} read by a mapper whose factory decorates its input. */
	JSON_FLUX_INPUT_DECORATOR(Feature.JSON, "flux", Outcome.STOCK, "input-decorator"),

	/** A {@code Flux} of a type with per-type mappers, none for the content type. */
	JSON_FLUX_NO_MAPPER(Feature.JSON, "flux", Outcome.STOCK, "no-mapper"),

	/** JSON that is not well-formed: 400. */
	JSON_MALFORMED(Feature.JSON, null, Outcome.REJECTED, "malformed"),

	/** Well-formed JSON that does not bind to the target type: 400. */
	JSON_INVALID(Feature.JSON, null, Outcome.REJECTED, "invalid"),

	/** JSON past the mapper's {@code StreamReadConstraints} (depth, number or string length): 400. */
	JSON_CONSTRAINT(Feature.JSON, null, Outcome.REJECTED, "constraint"),

	/**
	 * A JSON body over {@code maxInMemorySize}: one element of a stream, or a whole body
	 * that the decoder joins itself (the buffer feature's readers count theirs as
	 * {@link #BUFFER_TOO_LARGE}): 413.
	 */
	JSON_TOO_LARGE(Feature.JSON, null, Outcome.REJECTED, "too-large"),

	/** A whole body joined by the aggregator ({@code @RequestBody}, {@code bodyToMono}, ...). */
	BUFFER_WHOLE_BODY(Feature.BUFFER, "whole-body", Outcome.FAST, null),

	/** A whole body over {@code maxInMemorySize}, by its {@code Content-Length} or as it came: 413. */
	BUFFER_TOO_LARGE(Feature.BUFFER, null, Outcome.REJECTED, "too-large"),

	/** A form request body, parsed once and decoded lazily. */
	FORM_REQUEST(Feature.FORM, "request", Outcome.FAST, null),

	/**
	 * A multipart form read into its map of parts ({@code getMultipartData()},
	 * {@code @RequestPart}, form arguments) by Fastpath's part reader.
	 */
	FORM_MULTIPART(Feature.FORM, "multipart", Outcome.FAST, null),

	/**
	 * A multipart form read into its map of parts by Spring's part reader or the
	 * application's ({@code fastpath.form.multipart.enabled=false}), its parts counted.
	 */
	FORM_MULTIPART_PART_READER(Feature.FORM, "multipart", Outcome.STOCK, "part-reader"),

	/** A multipart body read as {@code Flux<PartEvent>} by Fastpath's reader. */
	FORM_PART_EVENTS(Feature.FORM, "part-events", Outcome.FAST, null),

	/**
	 * A form or a multipart body in a client response: left to the stock reader, whose
	 * exceptions clients expect.
	 */
	FORM_CLIENT_RESPONSE(Feature.FORM, "response", Outcome.STOCK, "client-response"),

	/**
	 * A form body over {@code maxInMemorySize}, or a multipart part or its headers over
	 * their limit: 413.
	 */
	FORM_TOO_LARGE(Feature.FORM, null, Outcome.REJECTED, "too-large"),

	/** A form with more fields than allowed, or a multipart body with more parts: 413. */
	FORM_TOO_MANY_FIELDS(Feature.FORM, null, Outcome.REJECTED, "too-many-fields"),

	/** A form with a malformed escape, or a malformed multipart body: 400. */
	FORM_MALFORMED(Feature.FORM, null, Outcome.REJECTED, "malformed");

	private final Feature feature;

	private final @Nullable String path;

	private final Outcome outcome;

	private final @Nullable String reason;

	ReadEvent(Feature feature, @Nullable String path, Outcome outcome, @Nullable String reason) {
		this.feature = feature;
		this.path = path;
		this.outcome = outcome;
		this.reason = reason;
	}

	/**
	 * Return the feature that took the decision.
	 * @return the feature
	 */
	public Feature getFeature() {
		return this.feature;
	}

	/**
	 * Return the path the body took, for a body that was read.
	 * @return the path ({@code flux}, {@code value}, {@code whole-body}, ...), or
	 * {@code null} for a rejection
	 */
	public @Nullable String getPath() {
		return this.path;
	}

	/**
	 * Return whether the body was read by a fast path, handed to stock, or rejected.
	 * @return the outcome
	 */
	public Outcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Return why the body was handed to stock or rejected.
	 * @return the reason ({@code charset}, {@code too-large}, ...), or {@code null} for a
	 * body read by a fast path
	 */
	public @Nullable String getReason() {
		return this.reason;
	}

	/**
	 * Fastpath's features.
	 */
	public enum Feature {

		/** Whole-body aggregation ({@code fastpath.buffer}). */
		BUFFER("buffer"),

		/** JSON decoding ({@code fastpath.json}). */
		JSON("json"),

		/** Form reading ({@code fastpath.form}). */
		FORM("form");

		private final String tagValue;

		Feature(String tagValue) {
			this.tagValue = tagValue;
		}

		/**
		 * Return the feature's name, as in its properties and meter tags.
		 * @return the name
		 */
		public String tagValue() {
			return this.tagValue;
		}

	}

	/**
	 * What became of a body.
	 */
	public enum Outcome {

		/** Read by one of Fastpath's paths. */
		FAST("fast"),

		/** Handed to the stock reader or decoder. */
		STOCK("stock"),

		/** Refused: answered with 400 or 413. */
		REJECTED("rejected");

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
