package io.fastpath.multipart;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import io.fastpath.codec.ReadListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the readers of parts and of part events answer as the stock readers they replace
 * do, compared with those readers: the media types they read, what they can read, the
 * error of a single value and of a body without a boundary, and a client's response,
 * which goes to the stock reader.
 */
class SlicingMultipartReaderTests {

	private static final List<@Nullable MediaType> MEDIA_TYPES = Arrays.asList(null,
			MediaType.MULTIPART_FORM_DATA, MediaType.parseMediaType("multipart/form-data;boundary=b"),
			MediaType.MULTIPART_MIXED, MediaType.MULTIPART_RELATED, MediaType.APPLICATION_FORM_URLENCODED,
			MediaType.APPLICATION_JSON, MediaType.ALL, MediaType.parseMediaType("multipart/*"));

	private static final List<Class<?>> TYPES = List.of(Part.class, FilePart.class, FormFieldPart.class,
			PartEvent.class, Object.class, DataBuffer.class);

	static Stream<Arguments> readers() {
		DefaultPartHttpMessageReader parts = new DefaultPartHttpMessageReader();
		PartEventHttpMessageReader events = new PartEventHttpMessageReader();
		return Stream.of(
				Arguments.of("parts", new SlicingPartReader(Objects.requireNonNull(MultipartSettings.of(parts)), parts),
						parts),
				Arguments.of("part events",
						new SlicingPartEventReader(Objects.requireNonNull(PartEventSettings.of(events)), events,
								ReadListener.NONE), events));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("readers")
	void theMediaTypesReadAreStocks(String name, HttpMessageReader<?> reader, HttpMessageReader<?> stock) {
		assertThat(reader.getReadableMediaTypes()).isEqualTo(stock.getReadableMediaTypes());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("readers")
	void whatCanBeReadIsWhatStockCanRead(String name, HttpMessageReader<?> reader, HttpMessageReader<?> stock) {
		for (Class<?> type : TYPES) {
			for (MediaType mediaType : MEDIA_TYPES) {
				ResolvableType elementType = ResolvableType.forClass(type);
				assertThat(reader.canRead(elementType, mediaType)).as("%s as %s", type.getSimpleName(), mediaType)
					.isEqualTo(stock.canRead(elementType, mediaType));
			}
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("readers")
	void aSingleValueFailsAsWithStock(String name, HttpMessageReader<?> reader, HttpMessageReader<?> stock) {
		ResolvableType type = ResolvableType.forClass(name.equals("parts") ? Part.class : PartEvent.class);
		Throwable expected = failure(stock.readMono(type, request("b"), Map.of()));
		Throwable actual = failure(reader.readMono(type, request("b"), Map.of()));
		assertThat(actual).hasSameClassAs(expected).hasMessage(expected.getMessage());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("readers")
	void aBodyWithoutABoundaryFailsAsWithStock(String name, HttpMessageReader<?> reader, HttpMessageReader<?> stock) {
		ResolvableType type = ResolvableType.forClass(name.equals("parts") ? Part.class : PartEvent.class);
		Throwable expected = failure(stock.read(type, request(null), Map.of()).then());
		Throwable actual = failure(reader.read(type, request(null), Map.of()).then());
		assertThat(actual).hasSameClassAs(expected).hasMessage(expected.getMessage());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("readers")
	void aClientsResponseIsReadByStock(String name, HttpMessageReader<?> reader, HttpMessageReader<?> stock) {
		// A response whose body would fail any reading: only the client reader's own error
		// (its own message, raised where it reads) tells which reader read it
		HttpMessageReader<?> withClient = name.equals("parts")
				? new SlicingPartReader(((SlicingPartReader) reader).settings(), failingClientReader())
				: new SlicingPartEventReader(((SlicingPartEventReader) reader).settings(), failingClientReader(),
						ReadListener.NONE);
		MockClientHttpResponse response = new MockClientHttpResponse(200);
		response.getHeaders().setContentType(MediaType.parseMediaType("multipart/form-data;boundary=b"));
		ResolvableType type = ResolvableType.forClass(name.equals("parts") ? Part.class : PartEvent.class);
		assertThat(failure(withClient.read(type, response, Map.of()).then())).hasMessage("read by the client reader");
	}

	private static MockServerHttpRequest request(@Nullable String boundary) {
		return MockServerHttpRequest.post("/")
			.contentType((boundary != null) ? MediaType.parseMediaType("multipart/form-data;boundary=" + boundary)
					: MediaType.MULTIPART_FORM_DATA)
			.body("--b--\r\n");
	}

	private static Throwable failure(Mono<?> result) {
		Throwable error = result.then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block();
		assertThat(error).as("an error").isNotNull();
		return Objects.requireNonNull(error);
	}

	/** A client reader that fails every read with a message of its own. */
	@SuppressWarnings("unchecked")
	private static <T> HttpMessageReader<T> failingClientReader() {
		return (HttpMessageReader<T>) new HttpMessageReader<Object>() {

			@Override
			public List<MediaType> getReadableMediaTypes() {
				return List.of();
			}

			@Override
			public boolean canRead(ResolvableType elementType, @Nullable MediaType mediaType) {
				return true;
			}

			@Override
			public Flux<Object> read(ResolvableType elementType, ReactiveHttpInputMessage message,
					Map<String, Object> hints) {
				return Flux.error(new IllegalStateException("read by the client reader"));
			}

			@Override
			public Mono<Object> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
					Map<String, Object> hints) {
				return Mono.error(new IllegalStateException("read by the client reader"));
			}

		};
	}

}
