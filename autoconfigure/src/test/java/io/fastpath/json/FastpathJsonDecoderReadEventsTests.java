package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.util.MimeType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests that {@link FastpathJsonDecoder} tells its {@link ReadListener} which way each body
 * went. The expected event follows from the input (a {@code Flux} of lists must go to
 * stock as "flux-of-collections"), and each case also checks that the values or the error
 * are those of the stock decoder on the same input, so that an event cannot be right
 * while the decoding is wrong.
 */
class FastpathJsonDecoderReadEventsTests {

	private static final MediaType JSON = MediaType.APPLICATION_JSON;

	private static final ResolvableType MAP = ResolvableType.forClassWithGenerics(Map.class, String.class,
			Object.class);

	private static final ResolvableType LIST_OF_STRINGS = ResolvableType.forClassWithGenerics(List.class,
			String.class);

	private static final LeakTrackingDataBufferFactory NETTY = LeakTrackingDataBufferFactory.nettyPooled();

	private final LeakTrackingDataBufferFactory heap = LeakTrackingDataBufferFactory.heap();

	private final List<ReadEvent> events = new CopyOnWriteArrayList<>();

	@AfterEach
	void everyBufferIsReleased() {
		this.heap.assertNoLeaks();
	}

	@AfterAll
	static void everyPooledBufferIsReleased() {
		NETTY.assertNoLeaks();
	}

	@Test
	void fluxOfObjectsIsReadBySplittingElements() {
		List<Object> values = decodeFlux(JsonMapper.shared(), MAP, JSON, "[{\"a\":1},{\"b\":2}]");
		assertThat(values).containsExactly(Map.of("a", 1), Map.of("b", 2))
			.isEqualTo(stockFlux(JsonMapper.shared(), MAP, JSON, "[{\"a\":1},{\"b\":2}]"));
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX);
	}

	@Test
	void listenerIsToldWhenAStreamIsReadNotWhenItIsAssembled() {
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(new JacksonJsonDecoder(JsonMapper.shared()),
				this.events::add);
		Flux<Object> fast = decoder.decode(Flux.defer(() -> Flux.just(this.heap.bufferOf("[{\"a\":1}]".getBytes()))),
				MAP, JSON, null);
		Flux<Object> stock = decoder.decode(Flux.defer(() -> Flux.just(this.heap.bufferOf("[\"a\"]".getBytes()))),
				LIST_OF_STRINGS, JSON, null);
		assertThat(this.events).isEmpty();
		fast.blockLast();
		stock.blockLast();
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX, ReadEvent.JSON_FLUX_OF_COLLECTIONS);
	}

	@Test
	void fluxOfListsIsHandedToStockAsFluxOfCollections() {
		// Stock reads each top-level value whole: the array is one list, not two strings.
		String body = "[\"a\",\"b\"]";
		List<Object> values = decodeFlux(JsonMapper.shared(), LIST_OF_STRINGS, JSON, body);
		assertThat(values).containsExactly(List.of("a", "b"))
			.isEqualTo(stockFlux(JsonMapper.shared(), LIST_OF_STRINGS, JSON, body));
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX_OF_COLLECTIONS);
		assertThat(this.events.get(0).getReason()).isEqualTo("flux-of-collections");
	}

	@Test
	void fluxOfArraysIsHandedToStockAsFluxOfCollections() {
		ResolvableType strings = ResolvableType.forClass(String[].class);
		List<Object> values = decodeFlux(JsonMapper.shared(), strings, JSON, "[\"a\",\"b\"]");
		assertThat(values).hasSize(1).first().isEqualTo(new String[] { "a", "b" });
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX_OF_COLLECTIONS);
	}

	@Test
	void fluxInAnotherCharsetIsHandedToStock() {
		MimeType latin1 = new MimeType("application", "json", StandardCharsets.ISO_8859_1);
		String body = "[{\"name\":\"caf\u00e9\"}]";
		List<Object> values = decode(JsonMapper.shared(), MAP, latin1, body.getBytes(StandardCharsets.ISO_8859_1));
		assertThat(values).containsExactly(Map.of("name", "caf\u00e9"));
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX_CHARSET);
	}

	@Test
	void fluxOfAMapperWithNonStandardSyntaxIsHandedToStock() {
		JsonMapper comments = JsonMapper.builder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).build();
		String body = "[{\"a\":1} /* one */, {\"b\":2}]";
		assertThat(decodeFlux(comments, MAP, JSON, body)).isEqualTo(stockFlux(comments, MAP, JSON, body))
			.hasSize(2);
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX_MAPPER_SYNTAX);
	}

	@Test
	void fluxOfAMapperThatDecoratesItsInputIsHandedToStock() {
		JsonMapper decorating = JsonMapper
			.builder(JsonFactory.builder().inputDecorator(new FastpathJsonDecoderTests.XToYDecorator()).build())
			.build();
		decodeFlux(decorating, MAP, JSON, "[{\"a\":1}]");
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX_INPUT_DECORATOR);
	}

	@Test
	void fluxOfATypeWithPerTypeMappersButNoneForTheContentTypeIsHandedToStock() {
		JacksonJsonDecoder stock = new JacksonJsonDecoder(JsonMapper.shared());
		stock.registerMappersForType(Map.class, (mappers) -> mappers.put(MediaType.APPLICATION_NDJSON,
				JsonMapper.shared()));
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(stock, this.events::add);
		// Stock has no mapper for the type and content type either, and says so before
		// subscribing: the body is made only when subscribed, so that nothing is left held.
		assertThatIllegalStateException().isThrownBy(() -> decoder
			.decode(Flux.defer(() -> Flux.just(heapBuffer("[{\"a\":1}]"))), MAP, JSON, null)
			.collectList()
			.block()).withMessageStartingWith("No ObjectMapper for");
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX_NO_MAPPER);
	}

	@Test
	void wholeValueOnTheHeapIsParsedInPlace() {
		assertThat(decodeMono(MAP, heapBuffer("{\"a\":[1,2]}"))).isEqualTo(Map.of("a", List.of(1, 2)));
		assertThat(this.events).containsExactly(ReadEvent.JSON_VALUE);
	}

	@Test
	void primitiveArrayIsFilledFromItsTokens() {
		assertThat(decodeMono(ResolvableType.forClass(long[].class), heapBuffer("[1,2,40]")))
			.isEqualTo(new long[] { 1, 2, 40 });
		assertThat(this.events).containsExactly(ReadEvent.JSON_PRIMITIVE_ARRAY);
	}

	@Test
	void primitiveArrayInDirectMemoryIsFilledFromItsTokens() {
		// Longer than the parser's buffer: it is streamed to the parser in several reads.
		long[] values = LongStream.range(0, 5000).map((i) -> i * 7919).toArray();
		String json = LongStream.of(values).mapToObj(Long::toString).collect(Collectors.joining(",", "[", "]"));
		DataBuffer direct = NETTY.bufferOf(json.getBytes(StandardCharsets.UTF_8));
		assertThat(decodeMono(ResolvableType.forClass(long[].class), direct)).isEqualTo(values);
		assertThat(this.events).containsExactly(ReadEvent.JSON_PRIMITIVE_ARRAY);
	}

	@Test
	void primitiveArrayInDirectMemoryThatTheTokensCannotFillIsStreamedToDatabind() {
		DataBuffer direct = NETTY.bufferOf("[1,\"2\",40]".getBytes(StandardCharsets.UTF_8));
		assertThat(decodeMono(ResolvableType.forClass(long[].class), direct)).isEqualTo(new long[] { 1, 2, 40 });
		assertThat(this.events).containsExactly(ReadEvent.JSON_VALUE_STREAMED);
	}

	@Test
	void wholeValueInDirectMemoryIsStreamed() {
		DataBuffer direct = NETTY.bufferOf("{\"a\":true}".getBytes(StandardCharsets.UTF_8));
		assertThat(decodeMono(MAP, direct)).isEqualTo(Map.of("a", true));
		assertThat(this.events).containsExactly(ReadEvent.JSON_VALUE_STREAMED);
	}

	@Test
	void malformedWholeValueIsRejectedAsMalformed() {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> decodeMono(MAP, heapBuffer("{\"a\":}")));
		assertThat(this.events).containsExactly(ReadEvent.JSON_VALUE, ReadEvent.JSON_MALFORMED);
	}

	@Test
	void valueOfTheWrongTypeIsRejectedAsInvalid() {
		assertThatExceptionOfType(DecodingException.class)
			.isThrownBy(() -> decodeMono(ResolvableType.forClass(Integer.class), heapBuffer("{\"a\":1}")));
		assertThat(this.events).containsExactly(ReadEvent.JSON_VALUE, ReadEvent.JSON_INVALID);
	}

	@Test
	void numberOutOfRangeForItsTypeIsRejectedAsInvalidNotMalformed() {
		ResolvableType integer = ResolvableType.forClass(Integer.class);
		assertThatExceptionOfType(DecodingException.class)
			.isThrownBy(() -> decode(JsonMapper.shared(), integer, JSON, "[99999999999]".getBytes()));
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX, ReadEvent.JSON_INVALID);
	}

	@Test
	void streamWithABrokenStructureIsRejectedAsMalformed() {
		assertThatExceptionOfType(DecodingException.class)
			.isThrownBy(() -> decodeFlux(JsonMapper.shared(), MAP, JSON, "[{\"a\":1} {\"b\":2}]"));
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX, ReadEvent.JSON_MALFORMED);
	}

	@Test
	void streamCutShortIsRejectedAsMalformedAtItsEnd() {
		assertThatExceptionOfType(DecodingException.class)
			.isThrownBy(() -> decodeFlux(JsonMapper.shared(), MAP, JSON, "[{\"a\":1},"));
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX, ReadEvent.JSON_MALFORMED);
	}

	@Test
	void streamElementOverTheLimitIsRejectedAsTooLarge() {
		JacksonJsonDecoder stock = new JacksonJsonDecoder(JsonMapper.shared());
		stock.setMaxInMemorySize(16);
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(stock, this.events::add);
		// An element is held, and limited, when a chunk cuts it: as stock's tokenizer.
		Flux<DataBuffer> chunks = Flux.just("[{\"a\":\"0123456789", "abcdef\"}]").map(this::heapBuffer);
		assertThatExceptionOfType(DataBufferLimitException.class)
			.isThrownBy(() -> decoder.decode(chunks, MAP, JSON, null).collectList().block());
		assertThatExceptionOfType(DataBufferLimitException.class).isThrownBy(() -> stock
			.decode(Flux.just("[{\"a\":\"0123456789", "abcdef\"}]").map(this::stockHeapBuffer), MAP, JSON, null)
			.collectList()
			.block());
		assertThat(this.events).containsExactly(ReadEvent.JSON_FLUX, ReadEvent.JSON_TOO_LARGE);
	}

	@Test
	void wholeBodyOverTheLimitIsRejectedAsTooLarge() {
		JacksonJsonDecoder stock = new JacksonJsonDecoder(JsonMapper.shared());
		stock.setMaxInMemorySize(16);
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(stock, this.events::add);
		assertThatExceptionOfType(DataBufferLimitException.class).isThrownBy(() -> decoder
			.decodeToMono(Flux.just("{\"a\":\"0123", "456789abcdef\"}").map(this::heapBuffer), MAP, JSON, null)
			.block());
		assertThatExceptionOfType(DataBufferLimitException.class).isThrownBy(() -> stock
			.decodeToMono(Flux.just("{\"a\":\"0123", "456789abcdef\"}").map(this::stockHeapBuffer), MAP, JSON,
					null)
			.block());
		assertThat(this.events).containsExactly(ReadEvent.JSON_TOO_LARGE);
	}

	@Test
	void valuePastTheMappersConstraintsIsRejectedAsConstraint() {
		JsonMapper shallow = JsonMapper
			.builder(JsonFactory.builder()
				.streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(2).build())
				.build())
			.build();
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(new JacksonJsonDecoder(shallow), this.events::add);
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> decoder
			.decodeToMono(Mono.just(heapBuffer("{\"a\":{\"b\":{\"c\":1}}}")), MAP, JSON, null)
			.block());
		assertThat(this.events).containsExactly(ReadEvent.JSON_VALUE, ReadEvent.JSON_CONSTRAINT);
	}

	@Test
	void typeDefinitionErrorIsTheApplicationsAndNoRejection() {
		ResolvableType abstractType = ResolvableType.forClass(Runnable.class);
		assertThatExceptionOfType(CodecException.class).isThrownBy(() -> decodeMono(abstractType, heapBuffer("{}")))
			.isNotInstanceOf(DecodingException.class);
		assertThat(this.events).containsExactly(ReadEvent.JSON_VALUE);
	}

	@Test
	void decoderWithoutAListenerTellsNobody() {
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(new JacksonJsonDecoder(JsonMapper.shared()));
		assertThat(decoder.decodeToMono(Mono.just(heapBuffer("{}")), MAP, JSON, null).block()).isEqualTo(Map.of());
		assertThat(this.events).isEmpty();
	}

	private Object decodeMono(ResolvableType type, DataBuffer buffer) {
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(new JacksonJsonDecoder(JsonMapper.shared()),
				this.events::add);
		return decoder.decodeToMono(Mono.just(buffer), type, JSON, null).block();
	}

	private List<Object> decodeFlux(JsonMapper mapper, ResolvableType type, MimeType mimeType, String body) {
		return decode(mapper, type, mimeType, body.getBytes(StandardCharsets.UTF_8));
	}

	private List<Object> decode(JsonMapper mapper, ResolvableType type, MimeType mimeType, byte[] body) {
		FastpathJsonDecoder decoder = FastpathJsonDecoder.from(new JacksonJsonDecoder(mapper), this.events::add);
		return decoder.decode(Flux.just(this.heap.bufferOf(body)), type, mimeType, null).collectList().block();
	}

	private List<Object> stockFlux(JsonMapper mapper, ResolvableType type, MimeType mimeType, String body) {
		return new ArrayList<>(new JacksonJsonDecoder(mapper)
			.decode(Flux.just(this.heap.forStock().bufferOf(body.getBytes(StandardCharsets.UTF_8))), type, mimeType,
					null)
			.collectList()
			.block());
	}

	private DataBuffer heapBuffer(String json) {
		return this.heap.bufferOf(json.getBytes(StandardCharsets.UTF_8));
	}

	/** For the stock decoder, which releases an input buffer twice when decoding fails. */
	private DataBuffer stockHeapBuffer(String json) {
		return this.heap.forStock().bufferOf(json.getBytes(StandardCharsets.UTF_8));
	}

}
