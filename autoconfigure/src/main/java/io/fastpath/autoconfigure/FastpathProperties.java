package io.fastpath.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for Fastpath. Body size limits are not repeated here: every
 * Fastpath path honours {@code spring.http.codecs.max-in-memory-size}.
 *
 * @author Fastpath
 */
@ConfigurationProperties("fastpath")
public class FastpathProperties {

	/**
	 * Whether to enable Fastpath. When false, every feature backs off and the application
	 * runs on the stock Spring codecs and Boot's JsonMapper (with the Blackbird module found
	 * on the class path, as Boot registers it); the @FormParam arguments and the fastpath
	 * endpoint stay.
	 */
	private boolean enabled = true;

	private final Buffer buffer = new Buffer();

	private final Json json = new Json();

	private final Form form = new Form();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Buffer getBuffer() {
		return this.buffer;
	}

	public Json getJson() {
		return this.json;
	}

	public Form getForm() {
		return this.form;
	}

	/**
	 * Whole-body aggregation of data buffers.
	 */
	public static class Buffer {

		/**
		 * Whether whole bodies (@RequestBody, bodyToMono, toEntity) are joined with
		 * Fastpath's aggregator, which passes a single buffer through without copying.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * JSON decoding.
	 */
	public static class Json {

		/**
		 * Whether JSON bodies read with Jackson 3 go through Fastpath's decoder: streamed
		 * arrays (Flux) without per-element token buffers, whole values parsed in place with
		 * cached readers. Backs off when another JSON library is preferred.
		 */
		private boolean enabled = true;

		/**
		 * Whether JSON values are read with a twin of each application mapper that adds
		 * Jackson's Blackbird module (jackson-module-blackbird, brought by the starter), so
		 * that records, @JsonCreator constructors and factories, and setters are called
		 * through generated lambdas rather than reflection. The twin is rebuilt from the
		 * application's mapper (same modules, features, constraints, views) and used for
		 * reading request and WebClient response bodies, and, with
		 * fastpath.json.write.enabled, for writing JSON (getters and fields through
		 * generated lambdas; a type with a mapper registered for it, as Actuator's, is
		 * written with that mapper): the application's JsonMapper bean and application
		 * code keep the mapper as configured. Each type pays a one-time cost on its first
		 * read or write, while Blackbird generates its accessors. Off in a native image; a
		 * mapper that already has Blackbird or Afterburner, or to which Blackbird cannot be
		 * added, is used as it is, and the log says so.
		 * While on, the Blackbird module found on the class path is kept out of the
		 * application's JsonMapper; when off, Boot registers it there, as any module found on
		 * the class path (spring.jackson.find-and-add-modules).
		 */
		private boolean optimizeCreators = true;

		private final Write write = new Write();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isOptimizeCreators() {
			return this.optimizeCreators;
		}

		public void setOptimizeCreators(boolean optimizeCreators) {
			this.optimizeCreators = optimizeCreators;
		}

		public Write getWrite() {
			return this.write;
		}

		/**
		 * JSON writing.
		 */
		public static class Write {

			/**
			 * Whether a Flux (or any publisher of many values) written with Jackson 3 as a
			 * JSON array, a JSON stream (application/x-ndjson) or server-sent events is
			 * written in batches: the values the source has ready in one buffer and one
			 * write, up to the batch size, where stock writes each value on its own. No
			 * value waits for another: a batch goes out as soon as the source has nothing
			 * more ready. Responses and WebClient request bodies alike; the bytes are
			 * stock's. Backs off when another JSON library is preferred.
			 */
			private boolean enabled = true;

			/**
			 * Size a batch is kept within. Each batch is a write, a flush and a wake-up of
			 * the reader: larger batches cost less per byte; smaller ones hold less of a
			 * large body before its first byte goes out, and less memory per response. The
			 * first batch of a JSON array response from a Flux over a collection or a range
			 * may hold twice this (at most 128KB), so that such a body goes out whole,
			 * with its length.
			 */
			// JsonBatchEncoding.DEFAULT_CAP as a literal the configuration processor can read
			// into the metadata's default (FastpathAutoConfigurationTests holds them equal)
			private DataSize batchSize = DataSize.ofKilobytes(64);

			public boolean isEnabled() {
				return this.enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

			public DataSize getBatchSize() {
				return this.batchSize;
			}

			public void setBatchSize(DataSize batchSize) {
				this.batchSize = batchSize;
			}

		}

	}

	/**
	 * Form (application/x-www-form-urlencoded) parameters.
	 */
	public static class Form {

		/**
		 * Whether forms are read lazily by Fastpath (getFormData(), formData(),
		 * @ModelAttribute): one scan of the body, fields decoded only when read. The
		 * @FormParam, FormParameters and RequestParameters arguments work either way.
		 */
		private boolean enabled = true;

		/**
		 * Most fields (or multipart parts) a form may have; a form with more is answered
		 * with 413. The size of the body is limited by
		 * spring.http.codecs.max-in-memory-size.
		 */
		private int maxParameters = 1000;

		private final Multipart multipart = new Multipart();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxParameters() {
			return this.maxParameters;
		}

		public void setMaxParameters(int maxParameters) {
			this.maxParameters = maxParameters;
		}

		public Multipart getMultipart() {
			return this.multipart;
		}

		/**
		 * Fastpath's multipart part reader.
		 */
		public static class Multipart {

			/**
			 * Whether multipart forms (getMultipartData(), @RequestPart, @FormParam) are
			 * read by Fastpath's part reader: one scan of the body, parts read as slices
			 * of the request buffers and copied once as they end, files spooled without
			 * heap copies and deleted when the request ends. It follows
			 * spring.webflux.multipart.* (in-memory and disk limits, parts, headers size
			 * and charset, file storage directory). Flux<PartEvent> bodies are read by
			 * Fastpath's event reader too, content as slices of the request buffers.
			 * Needs fastpath.form.enabled.
			 */
			private boolean enabled = true;

			public boolean isEnabled() {
				return this.enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

}
