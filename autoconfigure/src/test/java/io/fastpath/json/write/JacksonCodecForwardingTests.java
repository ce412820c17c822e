package io.fastpath.json.write;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.fastpath.codec.WriteListener;
import io.fastpath.json.FastpathJsonDecoder;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fastpath's JSON codecs are a {@link JacksonJsonEncoder} and a {@link JacksonJsonDecoder}
 * (so that code which looks for those among a configurer's writers and readers finds
 * them) and forward every public method of those classes to the stock codec they
 * decorate, which keeps the configuration: when Spring adds a public method, this fails
 * until it is forwarded (inherited, it would configure the Fastpath codec's own, unused
 * state). What is configured on either codec is seen by both as they write and read: a
 * mapper registered for a type (which names properties in snake case here, where the
 * codecs' own mapper keeps the camel case of the getters), and the decoder's limit.
 */
class JacksonCodecForwardingTests {

	private static final JsonMapper SNAKE_CASE = JsonMapper.builder()
		.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
		.build();

	@Test
	void theBatchingEncoderForwardsEveryPublicMethodOfTheJacksonJsonEncoder() {
		assertThat(notForwarded(JacksonJsonEncoder.class, BatchingJsonEncoder.class)).isEmpty();
	}

	@Test
	void fastpathsDecoderForwardsEveryPublicMethodOfTheJacksonJsonDecoder() {
		assertThat(notForwarded(JacksonJsonDecoder.class, FastpathJsonDecoder.class)).isEmpty();
	}

	@Test
	void aMethodNotForwardedIsReported() {
		// The check itself, on a planted gap: a subclass that declares nothing.
		class Gap extends JacksonJsonDecoder {

		}
		assertThat(notForwarded(JacksonJsonDecoder.class, Gap.class))
			.contains("JacksonCodecSupport#registerMappersForType", "AbstractJacksonDecoder#setMaxInMemorySize");
	}

	@Test
	void streamingTypesSetOnTheBatchingEncoderAreTheStockEncoders() {
		JacksonJsonEncoder stock = new JacksonJsonEncoder();
		BatchingJsonEncoder batching = new BatchingJsonEncoder(stock, JsonBatchEncoding.DEFAULT_CAP, null,
				WriteListener.NONE);
		MediaType jsonLines = MediaType.parseMediaType("application/jsonl");
		batching.setStreamingMediaTypes(List.of(MediaType.APPLICATION_NDJSON, jsonLines));
		assertThat(stock.getStreamingMediaTypes()).containsExactly(MediaType.APPLICATION_NDJSON, jsonLines);
		assertThat(batching.getStreamingMediaTypes()).containsExactly(MediaType.APPLICATION_NDJSON, jsonLines);
	}

	@Test
	void aMapperRegisteredOnTheBatchingEncoderWritesBatchesAndSingleValues() {
		JacksonJsonEncoder stock = new JacksonJsonEncoder();
		BatchingJsonEncoder batching = new BatchingJsonEncoder(stock, JsonBatchEncoding.DEFAULT_CAP, null,
				WriteListener.NONE);
		assertThat(encode(batching, Flux.just(new Named("a"), new Named("b"))))
			.isEqualTo("[{\"fullName\":\"a\"},{\"fullName\":\"b\"}]");
		batching.registerMappersForType(Named.class, (mappers) -> mappers.put(MediaType.APPLICATION_JSON, SNAKE_CASE));
		assertThat(encode(batching, Flux.just(new Named("a"), new Named("b"))))
			.isEqualTo("[{\"full_name\":\"a\"},{\"full_name\":\"b\"}]");
		assertThat(encode(stock, Mono.just(new Named("a")))).isEqualTo("{\"full_name\":\"a\"}");
	}

	@Test
	void aMapperRegisteredOnTheStockEncoderLaterWritesTheBatches() {
		JacksonJsonEncoder stock = new JacksonJsonEncoder();
		BatchingJsonEncoder batching = new BatchingJsonEncoder(stock, JsonBatchEncoding.DEFAULT_CAP, null,
				WriteListener.NONE);
		stock.registerMappersForType(Named.class, (mappers) -> mappers.put(MediaType.APPLICATION_JSON, SNAKE_CASE));
		assertThat(encode(batching, Flux.just(new Named("a"), new Named("b"))))
			.isEqualTo("[{\"full_name\":\"a\"},{\"full_name\":\"b\"}]");
		assertThat(encode(batching, Mono.just(new Named("a")))).isEqualTo("{\"full_name\":\"a\"}");
	}

	@Test
	void aMapperRegisteredOnFastpathsDecoderReadsWithTheStockDecoder() {
		JacksonJsonDecoder stock = new JacksonJsonDecoder();
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(stock);
		assertThat(decode(stock, "{\"full_name\":\"a\"}").getFullName()).isNull();
		fastpath.registerMappersForType(Named.class, (mappers) -> mappers.put(MediaType.APPLICATION_JSON, SNAKE_CASE));
		assertThat(decode(stock, "{\"full_name\":\"a\"}").getFullName()).isEqualTo("a");
		assertThat(decode(fastpath, "{\"full_name\":\"a\"}").getFullName()).isEqualTo("a");
	}

	@Test
	void aMapperRegisteredOnTheStockDecoderLaterReadsWithFastpathsDecoder() {
		JacksonJsonDecoder stock = new JacksonJsonDecoder();
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(stock);
		assertThat(decode(fastpath, "{\"full_name\":\"a\"}").getFullName()).isNull();
		stock.registerMappersForType(Named.class, (mappers) -> mappers.put(MediaType.APPLICATION_JSON, SNAKE_CASE));
		assertThat(decode(fastpath, "{\"full_name\":\"a\"}").getFullName()).isEqualTo("a");
	}

	@Test
	void aLimitSetOnEitherDecoderLimitsBoth() {
		String json = "{\"fullName\":\"" + "a".repeat(100) + "\"}";
		JacksonJsonDecoder stock = new JacksonJsonDecoder();
		FastpathJsonDecoder fastpath = FastpathJsonDecoder.from(stock);
		fastpath.setMaxInMemorySize(64);
		assertTooLarge(stock, json);
		stock.setMaxInMemorySize(1024);
		assertThat(decode(fastpath, json).getFullName()).hasSize(100);
		stock.setMaxInMemorySize(64);
		assertTooLarge(fastpath, json);
	}

	private static String encode(JacksonJsonEncoder encoder, Publisher<Named> values) {
		DataBuffer body = DataBufferUtils.join(encoder.encode(values, DefaultDataBufferFactory.sharedInstance,
				ResolvableType.forClass(Named.class), MediaType.APPLICATION_JSON, Map.of()))
			.block();
		assertThat(body).isNotNull();
		return body.toString(StandardCharsets.UTF_8);
	}

	private static Named decode(JacksonJsonDecoder decoder, String json) {
		Named named = (Named) decoder.decodeToMono(Mono.just(buffer(json)), ResolvableType.forClass(Named.class),
				MediaType.APPLICATION_JSON, Map.of())
			.block();
		assertThat(named).isNotNull();
		return named;
	}

	/** A body of one buffer, given as a {@code Flux}: a {@code Mono} is taken as aggregated already. */
	private static void assertTooLarge(JacksonJsonDecoder decoder, String json) {
		StepVerifier
			.create(decoder.decodeToMono(Flux.just(buffer(json)), ResolvableType.forClass(Named.class),
					MediaType.APPLICATION_JSON, Map.of()))
			.expectError(DataBufferLimitException.class)
			.verify();
	}

	private static DataBuffer buffer(String json) {
		return DefaultDataBufferFactory.sharedInstance.wrap(json.getBytes(StandardCharsets.UTF_8));
	}

	/** The class's public methods, inherited ones included, that the subclass does not declare. */
	private static List<String> notForwarded(Class<?> stock, Class<?> forwarding) {
		return Arrays.stream(stock.getMethods())
			.filter((method) -> !Modifier.isStatic(method.getModifiers()))
			.filter((method) -> method.getDeclaringClass() != Object.class)
			.filter((method) -> !declares(forwarding, method))
			.map((method) -> method.getDeclaringClass().getSimpleName() + "#" + method.getName())
			.distinct()
			.sorted()
			.toList();
	}

	private static boolean declares(Class<?> type, Method method) {
		try {
			Method declared = type.getDeclaredMethod(method.getName(), method.getParameterTypes());
			return !declared.isSynthetic();
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
	}

	/** A value with one property whose name has two words. */
	static final class Named {

		private @Nullable String fullName;

		Named() {
		}

		Named(String fullName) {
			this.fullName = fullName;
		}

		public @Nullable String getFullName() {
			return this.fullName;
		}

		public void setFullName(String fullName) {
			this.fullName = fullName;
		}

	}

}
