package io.fastpath.multipart;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ContentTooLargeException;
import org.springframework.web.server.ServerWebInputException;

import io.fastpath.codec.ReadEvent;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.form.TooManyFormFieldsException;
import io.fastpath.test.LeakTrackingDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the multipart readers {@link LazyFormDecoding} puts in place tell its
 * listener which way each multipart body went, as the urlencoded form reader does: the
 * map of parts read with Fastpath's part reader ({@code fastpath.form.multipart.enabled},
 * the {@code multipart} argument) or with Spring's, {@code Flux<PartEvent>} read by
 * Fastpath, client responses left to stock, and bodies refused with the reason their
 * error names (the 413 or 400 the reader answers with is asserted beside it).
 */
class MultipartReadEventsTests {

	private static final ResolvableType MAP = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, Part.class);

	private static final ResolvableType PART_EVENT = ResolvableType.forClass(PartEvent.class);

	private static final String BOUNDARY = "b0und";

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final List<ReadEvent> events = new CopyOnWriteArrayList<>();

	private final DefaultPartHttpMessageReader stockParts = new DefaultPartHttpMessageReader();

	private final PartEventHttpMessageReader stockEvents = new PartEventHttpMessageReader();

	@AfterEach
	void noLeaks() {
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapOfPartsIsToldByThePartReaderThatReadsIt(boolean slicing) {
		MultiValueMap<String, Part> map = readMap(slicing, 3, body(part("a", "1"), part("b", "2")))
			.block(Duration.ofSeconds(5));
		assertThat(map).containsOnlyKeys("a", "b");
		delete(map);
		assertThat(this.events).containsExactly(readOfMap(slicing));
		assertThat(readOfMap(slicing).getReason()).isEqualTo(slicing ? null : "part-reader");
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void theListenerIsToldWhenTheBodyIsReadNotWhenItIsAssembled(boolean slicing) {
		Mono<MultiValueMap<String, Part>> read = mapReader(slicing, 3).readMono(MAP,
				request(body(part("a", "1"))), Map.of());
		assertThat(this.events).isEmpty();
		delete(read.block(Duration.ofSeconds(5)));
		assertThat(this.events).containsExactly(readOfMap(slicing));
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapWithMorePartsThanTheFormAllowsIsRefusedAsTooManyFields(boolean slicing) {
		assertRefused(readMap(slicing, 2, body(part("a", "1"), part("b", "2"), part("c", "3"))),
				(error) -> assertThat(error).isInstanceOf(TooManyFormFieldsException.class));
		assertThat(this.events).containsExactly(readOfMap(slicing), ReadEvent.FORM_TOO_MANY_FIELDS);
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapWithMorePartsThanThePartReaderAllowsIsRefusedAsTooManyFields(boolean slicing) {
		this.stockParts.setMaxParts(1);
		assertRefused(readMap(slicing, 3, body(part("a", "1"), part("b", "2"))),
				(error) -> assertThat(error).isInstanceOf(ContentTooLargeException.class));
		assertThat(this.events).containsExactly(readOfMap(slicing), ReadEvent.FORM_TOO_MANY_FIELDS);
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapWhosePartHeadersAreOverTheirLimitIsRefusedAsTooLarge(boolean slicing) {
		this.stockParts.setMaxHeadersSize(64);
		assertRefused(readMap(slicing, 3, body(part("a".repeat(100), "1"))),
				(error) -> assertThat(error).isInstanceOf(ContentTooLargeException.class));
		assertThat(this.events).containsExactly(readOfMap(slicing), ReadEvent.FORM_TOO_LARGE);
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapWithoutItsClosingBoundaryIsRefusedAsMalformed(boolean slicing) {
		assertRefused(readMap(slicing, 3, part("a", "1")),
				(error) -> assertThat(error).isInstanceOfSatisfying(ServerWebInputException.class,
					(input) -> assertThat(input.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST)));
		assertThat(this.events).containsExactly(readOfMap(slicing), ReadEvent.FORM_MALFORMED);
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapWithANamelessPartIsRefusedAsMalformed(boolean slicing) {
		String nameless = "--" + BOUNDARY + "\r\nContent-Disposition: form-data\r\n\r\n1\r\n";
		assertRefused(readMap(slicing, 3, body(nameless)),
				(error) -> assertThat(error).isInstanceOf(ServerWebInputException.class));
		assertThat(this.events).containsExactly(readOfMap(slicing), ReadEvent.FORM_MALFORMED);
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapWhoseUpstreamFailsIsNoRejection(boolean slicing) {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.parseMediaType("multipart/form-data; boundary=" + BOUNDARY))
			.body(Flux.error(new IllegalStateException("connection reset")));
		StepVerifier.create(mapReader(slicing, 3).readMono(MAP, request, Map.of()))
			.expectErrorMessage("connection reset")
			.verify(Duration.ofSeconds(5));
		assertThat(this.events).containsExactly(readOfMap(slicing));
	}

	@ParameterizedTest(name = "Fastpath's part reader: {0}")
	@ValueSource(booleans = { true, false })
	void aMapInAClientResponseIsLeftToStock(boolean slicing) {
		MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
		response.getHeaders().setContentType(MediaType.parseMediaType("multipart/form-data; boundary=" + BOUNDARY));
		response.setBody(Flux.just(this.factory.bufferOf(bytes(body(part("a", "1"))))));
		Mono<MultiValueMap<String, Part>> read = mapReader(slicing, 3).readMono(MAP, response, Map.of());
		assertThat(this.events).isEmpty();
		delete(read.block(Duration.ofSeconds(5)));
		assertThat(this.events).containsExactly(ReadEvent.FORM_CLIENT_RESPONSE);
	}

	@Test
	void partEventsAreToldAsReadByFastpath() {
		Flux<PartEvent> read = eventReader().read(PART_EVENT, request(body(part("a", "1"))), Map.of());
		assertThat(this.events).isEmpty();
		assertThat(read.doOnNext((event) -> DataBufferUtils.release(event.content()))
			.map(PartEvent::name)
			.collectList()
			.block(Duration.ofSeconds(5))).containsExactly("a");
		assertThat(this.events).containsExactly(ReadEvent.FORM_PART_EVENTS);
	}

	@Test
	void partEventsWithoutTheirClosingBoundaryAreRefusedAsMalformed() {
		StepVerifier.create(eventReader().read(PART_EVENT, request(part("a", "1")), Map.of())
			.doOnNext((event) -> DataBufferUtils.release(event.content())))
			.thenConsumeWhile((event) -> true)
			.expectErrorMessage("Could not find end of body (␍␊--" + BOUNDARY + ")")
			.verify(Duration.ofSeconds(5));
		assertThat(this.events).containsExactly(ReadEvent.FORM_PART_EVENTS, ReadEvent.FORM_MALFORMED);
	}

	@Test
	void partEventsWithoutABoundaryAreRefusedAsMalformed() {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.MULTIPART_FORM_DATA)
			.body(Flux.just(this.factory.bufferOf(bytes(body(part("a", "1"))))));
		StepVerifier.create(eventReader().read(PART_EVENT, request, Map.of()))
			.expectErrorMessage("No multipart boundary found in Content-Type: \"multipart/form-data\"")
			.verify(Duration.ofSeconds(5));
		DataBufferUtils.release(request.getBody().blockFirst());
		assertThat(this.events).containsExactly(ReadEvent.FORM_PART_EVENTS, ReadEvent.FORM_MALFORMED);
	}

	@Test
	void partEventsWithMorePartsThanAllowedAreRefusedAsTooManyFields() {
		this.stockEvents.setMaxParts(1);
		StepVerifier.create(eventReader().read(PART_EVENT, request(body(part("a", "1"), part("b", "2"))), Map.of())
			.doOnNext((event) -> DataBufferUtils.release(event.content())))
			.thenConsumeWhile((event) -> true)
			.expectErrorMessage("Too many parts (2/1 allowed)")
			.verify(Duration.ofSeconds(5));
		assertThat(this.events).containsExactly(ReadEvent.FORM_PART_EVENTS, ReadEvent.FORM_TOO_MANY_FIELDS);
	}

	@Test
	void partEventsWhosePartHeadersAreOverTheirLimitAreRefusedAsTooLarge() {
		this.stockEvents.setMaxHeadersSize(64);
		StepVerifier.create(eventReader().read(PART_EVENT, request(body(part("a".repeat(100), "1"))), Map.of()))
			.expectErrorMessage("Part headers exceeded the memory usage limit of 64 bytes")
			.verify(Duration.ofSeconds(5));
		assertThat(this.events).containsExactly(ReadEvent.FORM_PART_EVENTS, ReadEvent.FORM_TOO_LARGE);
	}

	@Test
	void partEventsInAClientResponseAreLeftToStock() {
		MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
		response.getHeaders().setContentType(MediaType.parseMediaType("multipart/form-data; boundary=" + BOUNDARY));
		response.setBody(Flux.just(this.factory.bufferOf(bytes(body(part("a", "1"))))));
		Flux<PartEvent> read = eventReader().read(PART_EVENT, response, Map.of());
		assertThat(this.events).isEmpty();
		read.doOnNext((event) -> DataBufferUtils.release(event.content())).blockLast(Duration.ofSeconds(5));
		assertThat(this.events).containsExactly(ReadEvent.FORM_CLIENT_RESPONSE);
	}

	/**
	 * Assert the read fails with the given error. Spring's part reader drops errors it
	 * meets after the read failed: they are collected, not logged.
	 */
	private static void assertRefused(Mono<?> read, Consumer<Throwable> error) {
		StockDroppedErrors.collect(() -> StepVerifier.create(read)
			.expectErrorSatisfies(error)
			.verify(Duration.ofSeconds(5)));
	}

	private static void delete(MultiValueMap<String, Part> map) {
		map.values().forEach((parts) -> parts.forEach((part) -> part.delete().block(Duration.ofSeconds(5))));
	}

	private static ReadEvent readOfMap(boolean slicing) {
		return slicing ? ReadEvent.FORM_MULTIPART : ReadEvent.FORM_MULTIPART_PART_READER;
	}

	private Mono<MultiValueMap<String, Part>> readMap(boolean slicing, int maxFields, String body) {
		return mapReader(slicing, maxFields).readMono(MAP, request(body), Map.of());
	}

	/** The map reader the decorator puts in place of stock's, as the auto-configuration has it. */
	@SuppressWarnings("unchecked")
	private HttpMessageReader<MultiValueMap<String, Part>> mapReader(boolean slicing, int maxFields) {
		List<HttpMessageReader<?>> readers = new LazyFormDecoding(maxFields, slicing, this.events::add)
			.decorate(List.of(new MultipartHttpMessageReader(this.stockParts)));
		assertThat(readers.get(0)).isNotExactlyInstanceOf(MultipartHttpMessageReader.class);
		return (HttpMessageReader<MultiValueMap<String, Part>>) readers.get(0);
	}

	@SuppressWarnings("unchecked")
	private HttpMessageReader<PartEvent> eventReader() {
		HttpMessageReader<?> reader = new LazyFormDecoding(3, true, this.events::add)
			.decorate(List.of(this.stockEvents))
			.get(0);
		assertThat(reader).isNotSameAs(this.stockEvents);
		return (HttpMessageReader<PartEvent>) reader;
	}

	private static String part(String name, String value) {
		return "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
	}

	private static String body(String... parts) {
		return String.join("", parts) + "--" + BOUNDARY + "--\r\n";
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private MockServerHttpRequest request(String body) {
		return MockServerHttpRequest.post("/")
			.contentType(MediaType.parseMediaType("multipart/form-data; boundary=" + BOUNDARY))
			.body(Flux.just(this.factory.bufferOf(bytes(body))));
	}

}
