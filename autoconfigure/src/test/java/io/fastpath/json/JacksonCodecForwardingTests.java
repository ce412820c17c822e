package io.fastpath.json;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import io.fastpath.codec.WriteListener;
import org.junit.jupiter.api.Test;

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
 * state).
 */
class JacksonCodecForwardingTests {

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

}
