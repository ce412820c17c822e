package io.fastpath.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.Encoder;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.util.Assert;

/**
 * A {@link ServerCodecConfigurer} whose {@link #getReaders()} are the delegate's,
 * rewritten by {@link HttpMessageReaderDecorator}s, and whose {@link #getWriters()} are
 * the delegate's, rewritten by {@link HttpMessageWriterDecorator}s. Everything that asks
 * the server's configurer for readers or writers (annotated controllers, functional
 * endpoints, {@code ServerWebExchange#getFormData()}) then sees the decorated lists,
 * while all configuration still goes to, and is kept by, the delegate.
 * <p>The decorated readers (and writers) are built once and handed out until the
 * configuration changes, each time in a new mutable list, as stock hands them out (a
 * caller may sort or add to its copy; the lists are small).
 * {@code ServerWebExchange#getFormData()} asks for the readers on every form request, and
 * the stock configurer rebuilds its list (and applies its default configuration to custom
 * codecs again) on every call: with this configurer, a form request builds no reader at
 * all. A configuration change is seen when it is made through this configurer: every call
 * on {@link #defaultCodecs()}, {@link #customCodecs()} or
 * {@link #registerDefaults(boolean)} makes the next {@link #getReaders()} (and
 * {@link #getWriters()}) ask the delegate again. Not seen are changes made on the
 * {@linkplain #getDelegate() delegate} directly (or through codec configuration objects
 * taken from it) after readers were handed out; changes made to reader or decoder
 * instances themselves are seen, since the list holds those instances.
 * <p>Every method of {@code ServerCodecConfigurer} and of its default and custom codecs
 * is forwarded by hand, default methods included, so that a call configures the delegate
 * rather than running the interface's default on this decorator; a test fails when Spring
 * adds one that is not.
 * <p>Plain Spring WebFlux applications can expose one as their {@code ServerCodecConfigurer}
 * bean; Spring Boot applications get it from Fastpath's auto-configuration.
 *
 * @author Fastpath
 */
public final class DecoratingServerCodecConfigurer implements ServerCodecConfigurer {

	private final ServerCodecConfigurer delegate;

	private final List<? extends HttpMessageReaderDecorator> decorators;

	private final List<? extends HttpMessageWriterDecorator> writerDecorators;

	private final ServerDefaultCodecs defaultCodecs;

	private final CustomCodecs customCodecs;

	/** Counts the configuration calls made through this configurer. */
	private final AtomicInteger configurationChanges = new AtomicInteger();

	private volatile @Nullable Decorated<HttpMessageReader<?>> readers;

	private volatile @Nullable Decorated<HttpMessageWriter<?>> writers;

	/**
	 * Decorate the given configurer.
	 * @param delegate the configurer that holds the configuration
	 * @param decorators the decorators to apply to its readers, in order
	 */
	public DecoratingServerCodecConfigurer(ServerCodecConfigurer delegate,
			List<? extends HttpMessageReaderDecorator> decorators) {
		this(delegate, decorators, List.of());
	}

	/**
	 * Decorate the given configurer's readers and writers.
	 * @param delegate the configurer that holds the configuration
	 * @param readerDecorators the decorators to apply to its readers, in order
	 * @param writerDecorators the decorators to apply to its writers, in order
	 */
	public DecoratingServerCodecConfigurer(ServerCodecConfigurer delegate,
			List<? extends HttpMessageReaderDecorator> readerDecorators,
			List<? extends HttpMessageWriterDecorator> writerDecorators) {
		Assert.notNull(delegate, "'delegate' must not be null");
		Assert.notNull(readerDecorators, "'readerDecorators' must not be null");
		Assert.notNull(writerDecorators, "'writerDecorators' must not be null");
		this.delegate = delegate;
		this.decorators = List.copyOf(readerDecorators);
		this.writerDecorators = List.copyOf(writerDecorators);
		this.defaultCodecs = new ChangeTrackingDefaultCodecs(delegate.defaultCodecs());
		this.customCodecs = new ChangeTrackingCustomCodecs(delegate.customCodecs());
	}

	@Override
	public ServerDefaultCodecs defaultCodecs() {
		return this.defaultCodecs;
	}

	@Override
	public CustomCodecs customCodecs() {
		return this.customCodecs;
	}

	@Override
	public void registerDefaults(boolean registerDefaults) {
		this.delegate.registerDefaults(registerDefaults);
		configurationChanged();
	}

	@Override
	public List<HttpMessageReader<?>> getReaders() {
		// Read the count before the delegate's readers: a change made while they are built
		// leaves a list stamped with the count before it, built again on the next call.
		int changes = this.configurationChanges.get();
		Decorated<HttpMessageReader<?>> cached = this.readers;
		if (cached != null && cached.configurationChanges() == changes) {
			return new ArrayList<>(cached.list());
		}
		List<HttpMessageReader<?>> readers = List
			.copyOf(HttpMessageReaderDecorator.decorateAll(this.delegate.getReaders(), this.decorators));
		this.readers = new Decorated<>(changes, readers);
		return new ArrayList<>(readers);
	}

	@Override
	public List<HttpMessageWriter<?>> getWriters() {
		// As for the readers: the count first, then the delegate's list.
		int changes = this.configurationChanges.get();
		Decorated<HttpMessageWriter<?>> cached = this.writers;
		if (cached != null && cached.configurationChanges() == changes) {
			return new ArrayList<>(cached.list());
		}
		List<HttpMessageWriter<?>> writers = List
			.copyOf(HttpMessageWriterDecorator.decorateAll(this.delegate.getWriters(), this.writerDecorators));
		this.writers = new Decorated<>(changes, writers);
		return new ArrayList<>(writers);
	}

	@Override
	public ServerCodecConfigurer clone() {
		return new DecoratingServerCodecConfigurer(this.delegate.clone(), this.decorators, this.writerDecorators);
	}

	/**
	 * Return the configurer that holds the configuration. Configure it through this
	 * configurer instead: changes made on the delegate directly are not seen once readers
	 * have been handed out.
	 * @return the delegate
	 */
	public ServerCodecConfigurer getDelegate() {
		return this.delegate;
	}

	/** Called after a configuration call has been passed to the delegate. */
	private void configurationChanged() {
		this.configurationChanges.incrementAndGet();
	}

	private record Decorated<T>(int configurationChanges, List<T> list) {
	}

	/**
	 * The delegate's default codecs, through which every call counts as a configuration
	 * change, encoders included: stock rebuilds its readers on several of them.
	 */
	private final class ChangeTrackingDefaultCodecs implements ServerDefaultCodecs {

		private final ServerDefaultCodecs codecs;

		ChangeTrackingDefaultCodecs(ServerDefaultCodecs codecs) {
			this.codecs = codecs;
		}

		@Override
		public void jacksonJsonDecoder(Decoder<?> decoder) {
			this.codecs.jacksonJsonDecoder(decoder);
			configurationChanged();
		}

		@Override
		@Deprecated(forRemoval = true)
		@SuppressWarnings("removal")
		public void jackson2JsonDecoder(Decoder<?> decoder) {
			this.codecs.jackson2JsonDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void jacksonJsonEncoder(Encoder<?> encoder) {
			this.codecs.jacksonJsonEncoder(encoder);
			configurationChanged();
		}

		@Override
		@Deprecated(forRemoval = true)
		@SuppressWarnings("removal")
		public void jackson2JsonEncoder(Encoder<?> encoder) {
			this.codecs.jackson2JsonEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void gsonDecoder(Decoder<?> decoder) {
			this.codecs.gsonDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void gsonEncoder(Encoder<?> encoder) {
			this.codecs.gsonEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void jacksonSmileDecoder(Decoder<?> decoder) {
			this.codecs.jacksonSmileDecoder(decoder);
			configurationChanged();
		}

		@Override
		@Deprecated(forRemoval = true)
		@SuppressWarnings("removal")
		public void jackson2SmileDecoder(Decoder<?> decoder) {
			this.codecs.jackson2SmileDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void jacksonSmileEncoder(Encoder<?> encoder) {
			this.codecs.jacksonSmileEncoder(encoder);
			configurationChanged();
		}

		@Override
		@Deprecated(forRemoval = true)
		@SuppressWarnings("removal")
		public void jackson2SmileEncoder(Encoder<?> encoder) {
			this.codecs.jackson2SmileEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void jacksonCborDecoder(Decoder<?> decoder) {
			this.codecs.jacksonCborDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void jacksonCborEncoder(Encoder<?> encoder) {
			this.codecs.jacksonCborEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void jacksonXmlDecoder(Decoder<?> decoder) {
			this.codecs.jacksonXmlDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void jacksonXmlEncoder(Encoder<?> encoder) {
			this.codecs.jacksonXmlEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void protobufDecoder(Decoder<?> decoder) {
			this.codecs.protobufDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void protobufEncoder(Encoder<?> encoder) {
			this.codecs.protobufEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void jaxb2Decoder(Decoder<?> decoder) {
			this.codecs.jaxb2Decoder(decoder);
			configurationChanged();
		}

		@Override
		public void jaxb2Encoder(Encoder<?> encoder) {
			this.codecs.jaxb2Encoder(encoder);
			configurationChanged();
		}

		@Override
		public void kotlinSerializationCborDecoder(Decoder<?> decoder) {
			this.codecs.kotlinSerializationCborDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void kotlinSerializationCborEncoder(Encoder<?> encoder) {
			this.codecs.kotlinSerializationCborEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void kotlinSerializationJsonDecoder(Decoder<?> decoder) {
			this.codecs.kotlinSerializationJsonDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void kotlinSerializationJsonEncoder(Encoder<?> encoder) {
			this.codecs.kotlinSerializationJsonEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void kotlinSerializationProtobufDecoder(Decoder<?> decoder) {
			this.codecs.kotlinSerializationProtobufDecoder(decoder);
			configurationChanged();
		}

		@Override
		public void kotlinSerializationProtobufEncoder(Encoder<?> encoder) {
			this.codecs.kotlinSerializationProtobufEncoder(encoder);
			configurationChanged();
		}

		@Override
		public void configureDefaultCodec(Consumer<Object> codecConsumer) {
			this.codecs.configureDefaultCodec(codecConsumer);
			configurationChanged();
		}

		@Override
		public void maxInMemorySize(int byteCount) {
			this.codecs.maxInMemorySize(byteCount);
			configurationChanged();
		}

		@Override
		public void enableLoggingRequestDetails(boolean enable) {
			this.codecs.enableLoggingRequestDetails(enable);
			configurationChanged();
		}

		@Override
		public MultipartCodecs multipartCodecs() {
			// Multipart codecs are writers (the parts of a multipart body), configured on the
			// object returned: counted when asked for, so the writers are built again after.
			MultipartCodecs multipartCodecs = this.codecs.multipartCodecs();
			configurationChanged();
			return multipartCodecs;
		}

		@Override
		public void multipartReader(HttpMessageReader<?> reader) {
			this.codecs.multipartReader(reader);
			configurationChanged();
		}

		@Override
		public void serverSentEventEncoder(Encoder<?> encoder) {
			this.codecs.serverSentEventEncoder(encoder);
			configurationChanged();
		}

	}

	/** The delegate's custom codecs, through which every registration counts as a change. */
	private final class ChangeTrackingCustomCodecs implements CustomCodecs {

		private final CustomCodecs codecs;

		ChangeTrackingCustomCodecs(CustomCodecs codecs) {
			this.codecs = codecs;
		}

		@Override
		public void register(Object codec) {
			this.codecs.register(codec);
			configurationChanged();
		}

		@Override
		public void registerWithDefaultConfig(Object codec) {
			this.codecs.registerWithDefaultConfig(codec);
			configurationChanged();
		}

		@Override
		public void registerWithDefaultConfig(Object codec, Consumer<DefaultCodecConfig> configConsumer) {
			this.codecs.registerWithDefaultConfig(codec, configConsumer);
			configurationChanged();
		}

	}

}
