package io.fastpath.multipart;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.MultiValueMap;

import io.fastpath.codec.ReadListener;
import io.fastpath.form.TooManyFormFieldsException;
import io.fastpath.test.LeakTrackingDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who owns what Fastpath's part readers hand out. A part that ends in memory is copied
 * out of the request's buffers, as stock's is, so whoever reaches it, on whatever path,
 * owes no release, and it reads the same after it is deleted and after the request; a
 * client's response is left to the stock reader each replaces, with a client's limits.
 * Each test reads the same body with stock for the expected values.
 *
 * @author Fastpath
 */
class PartOwnershipTests {

	private static final ResolvableType MAP = ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class,
			Part.class);

	private static final ResolvableType PART = ResolvableType.forClass(Part.class);

	private static final ResolvableType EVENT = ResolvableType.forClass(PartEvent.class);

	private static final String BOUNDARY = "ownership";

	@Test
	void partsOfTheMapHoldNoRequestBufferSoNobodyHasToDeleteThem() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		byte[] body = body();
		MultiValueMap<String, Part> map = dataReader(2_000).readMono(MAP, request(factory, body, 7, 40, 111), Map.of())
			.block(Duration.ofSeconds(10));
		assertThat(map).isNotNull();
		// nothing deleted: every request buffer is already back
		factory.assertNoLeaks();
		assertThat(contents(map)).isEqualTo(contents(stockMap(body)));
	}

	@Test
	void partsReadOneByOneHoldNoRequestBufferEither() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		byte[] body = body();
		List<Part> parts = partReader().read(PART, request(factory, body, 300), Map.of())
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(parts).isNotNull();
		factory.assertNoLeaks();
		List<Part> stock = new DefaultPartHttpMessageReader().read(PART, request(factory.forStock(), body, 300), Map.of())
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(stock).isNotNull();
		assertThat(contents(parts)).isEqualTo(contents(stock));
	}

	@Test
	void aFieldsValueAndAnInMemoryFilesContentReadTheSameAfterTheyAreDeletedAsStocksDo() {
		byte[] body = body();
		List<MultiValueMap<String, Part>> maps = List.of(stockMap(body),
				dataReader(2_000).readMono(MAP, request(LeakTrackingDataBufferFactory.heap(), body, 64), Map.of())
					.block(Duration.ofSeconds(10)));
		List<Map<String, String>> before = new ArrayList<>();
		List<Map<String, String>> after = new ArrayList<>();
		for (MultiValueMap<String, Part> map : maps) {
			before.add(contents(map));
			map.values().forEach((parts) -> parts.forEach((part) -> part.delete().block(Duration.ofSeconds(10))));
			after.add(contents(map));
		}
		assertThat(after.get(1)).isEqualTo(before.get(1)).isEqualTo(after.get(0));
		FormFieldPart field = (FormFieldPart) maps.get(1).getFirst("greeting");
		assertThat(field).isNotNull();
		assertThat(field.value()).isEqualTo("héllo wörld");
	}

	@Test
	void aClientsResponseIsReadByTheStockReaderWithoutTheServersLimitOnParts() {
		byte[] body = body();
		// two parts at most on the server: the server's request fails, the client's response is read whole
		MultipartDataReader reader = dataReader(2);
		assertThat(reader.readMono(MAP, request(LeakTrackingDataBufferFactory.heap(), body, 50), Map.of())
			.map(Object.class::cast)
			.onErrorResume((error) -> Mono.just(error))
			.block(Duration.ofSeconds(10))).isInstanceOf(TooManyFormFieldsException.class);
		MultiValueMap<String, Part> read = reader.readMono(MAP, response(body), Map.of()).block(Duration.ofSeconds(10));
		assertThat(read).isNotNull();
		assertThat(contents(read)).isEqualTo(contents(stockMap(body)));
	}

	@Test
	void aClientsMalformedResponseFailsAsStocksDoesNotAsAServersBadRequest() {
		byte[] truncated = new String(body(), StandardCharsets.ISO_8859_1).substring(0, 150)
			.getBytes(StandardCharsets.ISO_8859_1);
		// a client's response goes to stock's reader, whose parser drops a second error
		Object failure = StockDroppedErrors.collect(() -> dataReader(2_000).readMono(MAP, response(truncated), Map.of())
			.map(Object.class::cast)
			.onErrorResume((error) -> Mono.just(error))
			.block(Duration.ofSeconds(10)));
		Object stockFailure = StockDroppedErrors
			.collect(() -> new MultipartHttpMessageReader(new DefaultPartHttpMessageReader())
				.readMono(MAP, response(truncated), Map.of())
				.map(Object.class::cast)
				.onErrorResume((error) -> Mono.just(error))
				.block(Duration.ofSeconds(10)));
		assertThat(stockFailure).isInstanceOf(DecodingException.class);
		assertThat(failure).isInstanceOf(DecodingException.class)
			.hasFieldOrPropertyWithValue("message", ((Throwable) stockFailure).getMessage());
	}

	@Test
	void eachPartReaderLeavesAClientsResponseToTheStockReaderItReplaces() {
		byte[] body = body();
		Recording<Part> parts = new Recording<>(new DefaultPartHttpMessageReader());
		Recording<PartEvent> events = new Recording<>(new PartEventHttpMessageReader());
		SlicingPartReader partReader = new SlicingPartReader(settings(), parts);
		PartEventSettings eventSettings = PartEventSettings.of(new PartEventHttpMessageReader());
		assertThat(eventSettings).isNotNull();
		SlicingPartEventReader eventReader = new SlicingPartEventReader(eventSettings, events, ReadListener.NONE);
		partReader.read(PART, request(LeakTrackingDataBufferFactory.heap(), body, 64), Map.of()).blockLast();
		eventReader.read(EVENT, request(LeakTrackingDataBufferFactory.heap(), body, 64), Map.of())
			.doOnNext((event) -> DataBufferUtils.release(event.content()))
			.blockLast();
		assertThat(parts.reads).as("the server's request is Fastpath's").hasValue(0);
		assertThat(events.reads).as("the server's request is Fastpath's").hasValue(0);
		List<Part> read = partReader.read(PART, response(body), Map.of()).collectList().block(Duration.ofSeconds(10));
		assertThat(read).isNotNull();
		assertThat(contents(read)).isEqualTo(contents(stockMap(body)));
		assertThat(eventReader.read(EVENT, response(body), Map.of())
			.doOnNext((event) -> DataBufferUtils.release(event.content()))
			.count()
			.block(Duration.ofSeconds(10))).isPositive();
		assertThat(parts.reads).hasValue(1);
		assertThat(events.reads).hasValue(1);
	}

	/** Three fields, one of them not ASCII, an in-memory file and a part of JSON. */
	private static byte[] body() {
		String body = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"greeting\"\r\n\r\nhéllo wörld\r\n"
				+ "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\n42\r\n"
				+ "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
				+ "Content-Type: text/plain\r\n\r\n" + "line of a file\r\n".repeat(20) + "\r\n"
				+ "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"json\"\r\n"
				+ "Content-Type: application/json\r\n\r\n{\"a\":1}\r\n"
				+ "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n"
				+ "--" + BOUNDARY + "--\r\n";
		return body.getBytes(StandardCharsets.UTF_8);
	}

	private static MultipartSettings settings() {
		DefaultPartHttpMessageReader stock = new DefaultPartHttpMessageReader();
		MultipartSettings settings = MultipartSettings.of(stock);
		assertThat(settings).isNotNull();
		return settings;
	}

	private static SlicingPartReader partReader() {
		return new SlicingPartReader(settings(), new DefaultPartHttpMessageReader());
	}

	private static MultipartDataReader dataReader(int maxParts) {
		return new MultipartDataReader(partReader(), new PartLimit(maxParts, TooManyFormFieldsException::new),
				new MultipartHttpMessageReader(new DefaultPartHttpMessageReader()), ReadListener.NONE);
	}

	private static MultiValueMap<String, Part> stockMap(byte[] body) {
		MultiValueMap<String, Part> map = new MultipartHttpMessageReader(new DefaultPartHttpMessageReader())
			.readMono(MAP, request(LeakTrackingDataBufferFactory.heap(), body, 1000), Map.of())
			.block(Duration.ofSeconds(10));
		assertThat(map).isNotNull();
		return map;
	}

	/** Name, kind and content of every part, in order. */
	private static Map<String, String> contents(MultiValueMap<String, Part> map) {
		return contents(map.values().stream().flatMap(List::stream).toList());
	}

	private static Map<String, String> contents(List<Part> parts) {
		Map<String, String> contents = new LinkedHashMap<>();
		for (Part part : parts) {
			String kind = (part instanceof FormFieldPart field) ? "field " + field.value()
					: (part instanceof FilePart file) ? "file " + file.filename() : "part";
			String content = DataBufferUtils.join(part.content()).map((joined) -> {
				String text = joined.toString(StandardCharsets.UTF_8);
				DataBufferUtils.release(joined);
				return text;
			}).block(Duration.ofSeconds(10));
			contents.put(part.name(), kind + ": " + content);
		}
		return contents;
	}

	/** The body in chunks of the given sizes, the last repeated, from the given factory. */
	private static MockServerHttpRequest request(LeakTrackingDataBufferFactory factory, byte[] body, int... chunks) {
		return MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", BOUNDARY)))
			.body(Flux.defer(() -> Flux.fromIterable(chunks(factory, body, chunks))));
	}

	private static List<DataBuffer> chunks(LeakTrackingDataBufferFactory factory, byte[] body, int... sizes) {
		List<DataBuffer> chunks = new ArrayList<>();
		int at = 0;
		for (int i = 0; at < body.length; i++) {
			int size = Math.min(sizes[Math.min(i, sizes.length - 1)], body.length - at);
			DataBuffer chunk = factory.allocateBuffer(size);
			chunk.write(body, at, size);
			chunks.add(chunk);
			at += size;
		}
		return chunks;
	}

	private static MockClientHttpResponse response(byte[] body) {
		MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
		response.getHeaders()
			.setContentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", BOUNDARY)));
		response.setBody(Flux.defer(() -> Flux.fromIterable(chunks(LeakTrackingDataBufferFactory.heap(), body, 64))));
		return response;
	}

	/** A stock reader that counts what it is asked to read. */
	private static final class Recording<T> implements HttpMessageReader<T> {

		private final HttpMessageReader<T> stock;

		private final AtomicInteger reads = new AtomicInteger();

		Recording(HttpMessageReader<T> stock) {
			this.stock = stock;
		}

		@Override
		public List<MediaType> getReadableMediaTypes() {
			return this.stock.getReadableMediaTypes();
		}

		@Override
		public boolean canRead(ResolvableType elementType, @Nullable MediaType mediaType) {
			return this.stock.canRead(elementType, mediaType);
		}

		@Override
		public Flux<T> read(ResolvableType elementType, ReactiveHttpInputMessage message, Map<String, Object> hints) {
			this.reads.incrementAndGet();
			return this.stock.read(elementType, message, hints);
		}

		@Override
		public Mono<T> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
				Map<String, Object> hints) {
			this.reads.incrementAndGet();
			return this.stock.readMono(elementType, message, hints);
		}

	}

}
