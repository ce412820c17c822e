package io.fastpath.buffer;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JsonView;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.ByteArrayDecoder;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.codec.StringDecoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.MediaType;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.xml.Jaxb2XmlDecoder;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link AggregatingHttpMessageReader}, each against the stock reader it
 * decorates on the same input.
 */
class AggregatingHttpMessageReaderTests {

	private static final JsonMapper mapper = JsonMapper.builder().build();

	private LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	static Stream<LeakTrackingDataBufferFactory> factories() {
		return Stream.of(LeakTrackingDataBufferFactory.heap(), LeakTrackingDataBufferFactory.nettyPooled());
	}

	@AfterEach
	void everyBufferIsReleased() {
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void readsStringsAsStockDoesForRandomSplits(LeakTrackingDataBufferFactory factory) {
		this.factory = factory;
		Random random = TestSeed.random("readsStringsAsStockDoesForRandomSplits");
		for (int i = 0; i < 100; i++) {
			String body = randomText(random, random.nextInt(2000));
			List<String> chunks = split(body, random);
			ResolvableType type = ResolvableType.forClass(String.class);
			String stock = new DecoderHttpMessageReader<>(StringDecoder.allMimeTypes())
				.readMono(type, request(chunks, MediaType.TEXT_PLAIN, body.length()), Collections.emptyMap())
				.block(Duration.ofSeconds(5));
			String fastpath = aggregating(StringDecoder.allMimeTypes())
				.readMono(type, request(chunks, MediaType.TEXT_PLAIN, body.length()), Collections.emptyMap())
				.block(Duration.ofSeconds(5));
			assertThat(fastpath).isEqualTo(stock);
		}
	}

	@ParameterizedTest
	@MethodSource("factories")
	void readsBytesAsStockDoes(LeakTrackingDataBufferFactory factory) {
		this.factory = factory;
		ResolvableType type = ResolvableType.forClass(byte[].class);
		List<String> chunks = List.of("abc", "def", "ghi");
		byte[] stock = new DecoderHttpMessageReader<>(new ByteArrayDecoder())
			.readMono(type, request(chunks, MediaType.APPLICATION_OCTET_STREAM, -1), Collections.emptyMap())
			.block();
		byte[] fastpath = aggregating(new ByteArrayDecoder())
			.readMono(type, request(chunks, MediaType.APPLICATION_OCTET_STREAM, -1), Collections.emptyMap())
			.block();
		assertThat(fastpath).isEqualTo(stock).isEqualTo("abcdefghi".getBytes(StandardCharsets.UTF_8));
	}

	@ParameterizedTest
	@MethodSource("factories")
	void readsJsonObjectsAsStockDoes(LeakTrackingDataBufferFactory factory) {
		this.factory = factory;
		ResolvableType type = ResolvableType.forClass(Person.class);
		List<String> chunks = List.of("{\"name\":\"Ada", " Lovelace\",\"secret\":\"x\",", "\"age\":36}");
		Object stock = new DecoderHttpMessageReader<>(new JacksonJsonDecoder(mapper))
			.readMono(type, request(chunks, MediaType.APPLICATION_JSON, -1), Collections.emptyMap())
			.block();
		Object fastpath = aggregating(new JacksonJsonDecoder(mapper))
			.readMono(type, request(chunks, MediaType.APPLICATION_JSON, -1), Collections.emptyMap())
			.block();
		assertThat(fastpath).isEqualTo(stock).isEqualTo(new Person("Ada Lovelace", "x", 36));
	}

	@Test
	void failsOnMalformedJsonAsStockDoes() {
		ResolvableType type = ResolvableType.forClass(Person.class);
		List<String> chunks = List.of("{\"name\":", "\"Ada\",]");
		StepVerifier.create(new DecoderHttpMessageReader<>(new JacksonJsonDecoder(mapper))
			.readMono(type, request(chunks, MediaType.APPLICATION_JSON, -1), Collections.emptyMap()))
			.expectError(DecodingException.class)
			.verify();
		StepVerifier.create(aggregating(new JacksonJsonDecoder(mapper))
			.readMono(type, request(chunks, MediaType.APPLICATION_JSON, -1), Collections.emptyMap()))
			.expectError(DecodingException.class)
			.verify();
	}

	@Test
	void appliesTheJsonViewOfTheControllerParameterOnTheServer() throws Exception {
		Method handler = getClass().getDeclaredMethod("summaryHandler", Person.class);
		ResolvableType actualType = ResolvableType.forMethodParameter(new MethodParameter(handler, 0));
		ResolvableType elementType = ResolvableType.forClass(Person.class);
		List<String> chunks = List.of("{\"name\":\"Ada\",\"secret\":\"x\",\"age\":36}");
		Object stock = new DecoderHttpMessageReader<>(new JacksonJsonDecoder(mapper))
			.readMono(actualType, elementType, request(chunks, MediaType.APPLICATION_JSON, -1),
					new MockServerHttpResponse(), Collections.emptyMap())
			.block();
		Object fastpath = aggregating(new JacksonJsonDecoder(mapper))
			.readMono(actualType, elementType, request(chunks, MediaType.APPLICATION_JSON, -1),
					new MockServerHttpResponse(), Collections.emptyMap())
			.block();
		assertThat(fastpath).isEqualTo(stock).isEqualTo(new Person("Ada", null, null));
	}

	@Test
	void failsWithTheDecodersLimitLikeStock() {
		StringDecoder decoder = StringDecoder.allMimeTypes();
		decoder.setMaxInMemorySize(5);
		ResolvableType type = ResolvableType.forClass(String.class);
		StepVerifier.create(aggregating(decoder)
			.readMono(type, request(List.of("123", "456"), MediaType.TEXT_PLAIN, -1), Collections.emptyMap()))
			.expectErrorMessage("Exceeded limit on max bytes to buffer : 5")
			.verify();
	}

	@Test
	void failsOnContentLengthAboveLimitWithoutReadingTheBody() {
		StringDecoder decoder = StringDecoder.allMimeTypes();
		decoder.setMaxInMemorySize(5);
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.TEXT_PLAIN)
			.contentLength(6)
			.body(Flux.error(new AssertionError("body must not be read")));
		StepVerifier.create(aggregating(decoder).readMono(ResolvableType.forClass(String.class), request,
				Collections.emptyMap()))
			.expectError(DataBufferLimitException.class)
			.verify();
	}

	@Test
	void readsEmptyBodyAsEmptyLikeStock() {
		ResolvableType type = ResolvableType.forClass(String.class);
		StepVerifier.create(aggregating(StringDecoder.allMimeTypes())
			.readMono(type, request(List.of(), MediaType.TEXT_PLAIN, 0), Collections.emptyMap()))
			.verifyComplete();
	}

	@Test
	void leavesStreamingReadsToTheStockReader() {
		ResolvableType type = ResolvableType.forClass(String.class);
		StepVerifier.create(aggregating(StringDecoder.allMimeTypes())
			.read(type, request(List.of("a\nb", "c\nd"), MediaType.TEXT_PLAIN, -1), Collections.emptyMap()))
			.expectNext("a", "bc", "d")
			.verifyComplete();
	}

	@Test
	void answersCanReadAndMediaTypesAsTheStockReader() {
		DecoderHttpMessageReader<Object> stock = new DecoderHttpMessageReader<>(new JacksonJsonDecoder(mapper));
		AggregatingHttpMessageReader<Object> fastpath = new AggregatingHttpMessageReader<>(stock);
		assertThat(fastpath.getReadableMediaTypes()).isEqualTo(stock.getReadableMediaTypes());
		assertThat(fastpath.canRead(ResolvableType.forClass(Person.class), MediaType.APPLICATION_JSON)).isTrue();
		assertThat(fastpath.canRead(ResolvableType.forClass(Person.class), MediaType.TEXT_PLAIN)).isFalse();
	}

	@Test
	void rejectsDecodersThatDoNotAggregateWithJoin() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new AggregatingHttpMessageReader<>(new DecoderHttpMessageReader<>(new Jaxb2XmlDecoder())));
	}

	private static <T> AggregatingHttpMessageReader<T> aggregating(Decoder<T> decoder) {
		return new AggregatingHttpMessageReader<>(new DecoderHttpMessageReader<>(decoder));
	}

	private MockServerHttpRequest request(List<String> chunks, MediaType contentType, long contentLength) {
		Flux<DataBuffer> body = Flux.fromIterable(chunks)
			.map((chunk) -> this.factory.bufferOf(chunk.getBytes(StandardCharsets.UTF_8)));
		MockServerHttpRequest.BodyBuilder builder = MockServerHttpRequest.post("/").contentType(contentType);
		if (contentLength >= 0) {
			builder.contentLength(contentLength);
		}
		return builder.body(body);
	}

	private static String randomText(Random random, int length) {
		StringBuilder text = new StringBuilder(length);
		String alphabet = "abc xyz\n\u00e9\u4e2d\ud83d\ude00";
		while (text.length() < length) {
			text.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0, random.nextInt(11))));
		}
		return text.toString();
	}

	/** Split on character boundaries: multi-byte splits are the decoder's business, tested by stock. */
	private static List<String> split(String body, Random random) {
		List<String> chunks = new ArrayList<>();
		int position = 0;
		while (position < body.length()) {
			int end = Math.min(body.length(), position + 1 + random.nextInt(300));
			if (end < body.length() && Character.isHighSurrogate(body.charAt(end - 1))) {
				end++;
			}
			chunks.add(body.substring(position, end));
			position = end;
		}
		return chunks;
	}

	@SuppressWarnings("unused")
	private void summaryHandler(@JsonView(Person.Summary.class) Person person) {
	}

	record Person(@JsonView(Summary.class) String name, String secret, Integer age) {

		interface Summary {

		}

	}

}
