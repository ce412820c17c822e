package io.fastpath.multipart;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.FilePartEvent;
import org.springframework.http.codec.multipart.FormPartEvent;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import io.fastpath.codec.ReadListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;

import static io.fastpath.multipart.SlicingPartReaderTests.BOUNDARY;
import static io.fastpath.multipart.SlicingPartReaderTests.body;
import static io.fastpath.multipart.SlicingPartReaderTests.bytes;
import static io.fastpath.multipart.SlicingPartReaderTests.field;
import static io.fastpath.multipart.SlicingPartReaderTests.file;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SlicingPartEventReader}: content handed on as the request's buffers,
 * read no further ahead than asked, errors as stock's (type and message), and every
 * buffer released once on error and cancel, on heap and pooled Netty buffers. Stock drops
 * errors of a body it has already failed, so these tests check dropped errors around
 * Fastpath's reads only.
 */
class SlicingPartEventReaderTests {

	private static final ResolvableType PART_EVENT = ResolvableType.forClass(PartEvent.class);

	private static final PartEventSettings DEFAULTS = PartEventSettings.of(new PartEventHttpMessageReader());

	@Test
	void contentIsThePiecesOfTheRequestBuffersNotCopies() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		byte[] file = bytes(5000, 1);
		byte[] body = body(field("a", "zwei ü"), file("f", file), field("e", ""));
		List<PartEvent> events = read(reader(DEFAULTS), request(factory, body, 1000)).collectList()
			.block(Duration.ofSeconds(10));
		assertThat(events).isNotNull();
		assertThat(factory.requestedCapacities()).as("buffers allocated: the request's chunks only")
			.hasSize((body.length + 999) / 1000);
		assertThat(events.get(0)).isInstanceOfSatisfying(FormPartEvent.class, (form) -> {
			assertThat(form.value()).isEqualTo("zwei ü");
			assertThat(form.isLast()).isTrue();
		});
		List<PartEvent> fileEvents = events.subList(1, events.size() - 1);
		assertThat(fileEvents).hasSizeGreaterThan(1).allSatisfy((event) -> assertThat(event).isInstanceOf(FilePartEvent.class));
		assertThat(fileEvents).filteredOn(PartEvent::isLast).singleElement().isSameAs(fileEvents.get(fileEvents.size() - 1));
		assertThat(joined(fileEvents)).isEqualTo(file);
		assertThat(events.get(events.size() - 1)).isInstanceOfSatisfying(FormPartEvent.class,
				(form) -> assertThat(form.value()).isEmpty());
		factory.assertNoLeaks();
	}

	@Test
	void anEmptyPartIsOneLastEventWithoutContent() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		List<PartEvent> events = read(reader(DEFAULTS), request(factory, body(file("f", new byte[0])), 7)).collectList()
			.block(Duration.ofSeconds(10));
		assertThat(events).singleElement().isInstanceOfSatisfying(FilePartEvent.class, (event) -> {
			assertThat(event.isLast()).isTrue();
			assertThat(event.filename()).isEqualTo("f.bin");
			assertThat(event.content().readableByteCount()).isZero();
		});
		factory.assertNoLeaks();
	}

	@Test
	void theBodyIsReadNoFurtherAheadThanTheEventsAskedFor() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		AtomicInteger chunksRead = new AtomicInteger();
		byte[] body = body(file("f", bytes(200_000, 2)));
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", BOUNDARY)))
			.body(chunks(factory, body, 1000).doOnNext((chunk) -> chunksRead.incrementAndGet()));
		StepVerifier.create(read(reader(DEFAULTS), request), 0)
			.thenRequest(1)
			.consumeNextWith(SlicingPartEventReaderTests::release)
			// one chunk gives at most one event (the headers' chunk, none): the piece handed
			// out, one held until it is known whether it is the last, one queued
			.then(() -> assertThat(chunksRead).hasValueLessThanOrEqualTo(4))
			.thenRequest(10)
			.recordWith(ArrayList::new)
			.expectNextCount(10)
			.consumeRecordedWith((events) -> {
				events.forEach(SlicingPartEventReaderTests::release);
				assertThat(chunksRead).hasValueLessThanOrEqualTo(14);
			})
			.thenCancel()
			.verify(Duration.ofSeconds(10));
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void cancellingAtEveryEventReleasesEveryBufferOnce(String buffers) {
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		byte[] body = body(field("a", "one"), file("f", bytes(3000, 3)), file("empty", new byte[0]),
				field("b", "two"), file("g", bytes(2500, 4)));
		int total = read(reader(DEFAULTS), request(factory, body, 512)).map((event) -> {
			release(event);
			return event;
		}).count().block(Duration.ofSeconds(10)).intValue();
		assertThat(total).isGreaterThan(10);
		for (int taken = 0; taken <= total; taken++) {
			List<PartEvent> events = read(reader(DEFAULTS), request(factory, body, 512)).take(taken)
				.collectList()
				.block(Duration.ofSeconds(10));
			assertThat(events).hasSize(taken);
			events.forEach(SlicingPartEventReaderTests::release);
			factory.assertNoLeaks();
		}
	}

	static Stream<Arguments> failures() {
		byte[] ok = body(field("a", "one"), file("f", bytes(3000, 5)));
		String truncated = new String(ok, 0, ok.length - 30, StandardCharsets.ISO_8859_1);
		// a typed part's disposition is parsed at its first event: here when its second
		// piece arrives, the first in no event yet
		byte[] malformedDisposition = ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name\"f\"; "
				+ "filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n" + "x".repeat(3000)
				+ "\r\n--" + BOUNDARY + "--\r\n")
			.getBytes(StandardCharsets.ISO_8859_1);
		return Stream.of("heap", "netty")
			.flatMap((buffers) -> Stream.of(
					Arguments.of(buffers, "a truncated body", new PartEventSettings(256 * 1024, 10 * 1024, -1, -1,
							StandardCharsets.UTF_8), truncated.getBytes(StandardCharsets.ISO_8859_1)),
					Arguments.of(buffers, "a field over the in-memory limit",
							new PartEventSettings(2, 10 * 1024, -1, -1, StandardCharsets.UTF_8), ok),
					// with an in-memory limit: without one (-1), Spring Framework 7.0.8 did not
					// apply the part limit to a field, 7.0.10 does, and so does Fastpath
					Arguments.of(buffers, "a field over the part limit",
							new PartEventSettings(1000, 10 * 1024, -1, 2, StandardCharsets.UTF_8), ok),
					Arguments.of(buffers, "a file over the part limit",
							new PartEventSettings(-1, 10 * 1024, -1, 2000, StandardCharsets.UTF_8), ok),
					Arguments.of(buffers, "a part too many",
							new PartEventSettings(-1, 10 * 1024, 1, -1, StandardCharsets.UTF_8), ok),
					Arguments.of(buffers, "headers over their limit",
							new PartEventSettings(-1, 60, -1, -1, StandardCharsets.UTF_8), ok),
					Arguments.of(buffers, "a typed part's malformed disposition", DEFAULTS, malformedDisposition)));
	}

	/**
	 * Each failure as stock's: the same exception and message, but for a part header
	 * stock's parser rejects, which fails as a malformed body caused by the parser's
	 * exception (a departure: see {@link ErrorKinds}).
	 */
	@ParameterizedTest(name = "{1} on {0} buffers")
	@MethodSource("failures")
	void failsAsStockDoesAndReleasesEveryBufferOnce(String buffers, String description, PartEventSettings settings,
			byte[] body) {
		Throwable expected = StockDroppedErrors
			.collect(() -> error(stock(settings), DefaultDataBufferFactory.sharedInstance, body));
		assertThat(expected).as("stock's error").isNotNull();
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		// stock drops a second error of the body, Fastpath must not
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		Throwable actual;
		try {
			actual = error(reader(settings), factory, body);
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
		assertThat(dropped).as("errors Fastpath dropped").isEmpty();
		if (ErrorKinds.isUnparseablePartHeader(expected)) {
			// a departure (ErrorKinds): a malformed body, caused by the parser's error
			assertThat(actual).as(description).isInstanceOf(DecodingException.class)
				.hasMessage("A part header cannot be parsed: " + expected.getMessage())
				.cause()
				.isInstanceOf(expected.getClass())
				.hasMessage(expected.getMessage());
		}
		else {
			assertThat(actual).as(description).isNotNull().isInstanceOf(expected.getClass())
				.hasMessage(expected.getMessage());
		}
		factory.assertNoLeaks();
	}

	@Test
	void aBodyWithoutBoundaryInItsTypeIsMalformed() {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.MULTIPART_FORM_DATA)
			.body(Flux.empty());
		StepVerifier.create(read(reader(DEFAULTS), request)).expectError(DecodingException.class).verify();
	}

	private static @Nullable Throwable error(HttpMessageReader<PartEvent> reader, DataBufferFactory factory, byte[] body) {
		try {
			read(reader, request(factory, body, 256)).doOnNext(SlicingPartEventReaderTests::release)
				.blockLast(Duration.ofSeconds(10));
			return null;
		}
		catch (RuntimeException ex) {
			return Exceptions.unwrap(ex);
		}
	}

	private static PartEventHttpMessageReader stock(PartEventSettings settings) {
		PartEventHttpMessageReader reader = new PartEventHttpMessageReader();
		reader.setMaxInMemorySize(settings.maxInMemorySize());
		reader.setMaxHeadersSize(settings.maxHeadersSize());
		reader.setMaxParts(settings.maxParts());
		reader.setMaxPartSize(settings.maxPartSize());
		reader.setHeadersCharset(settings.headersCharset());
		return reader;
	}

	private static SlicingPartEventReader reader(PartEventSettings settings) {
		return new SlicingPartEventReader(settings, new PartEventHttpMessageReader(), ReadListener.NONE);
	}

	private static Flux<PartEvent> read(HttpMessageReader<PartEvent> reader, MockServerHttpRequest request) {
		return reader.read(PART_EVENT, request, Map.of());
	}

	private static void release(PartEvent event) {
		DataBufferUtils.release(event.content());
	}

	private static byte[] joined(List<PartEvent> events) {
		List<Byte> bytes = new ArrayList<>();
		for (PartEvent event : events) {
			DataBuffer content = event.content();
			IntStream.range(0, content.readableByteCount()).forEach((i) -> bytes.add(content.read()));
			DataBufferUtils.release(content);
		}
		byte[] result = new byte[bytes.size()];
		for (int i = 0; i < result.length; i++) {
			result[i] = bytes.get(i);
		}
		return result;
	}

	private static MockServerHttpRequest request(DataBufferFactory factory, byte[] body, int chunkSize) {
		return MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", BOUNDARY)))
			.body(chunks(factory, body, chunkSize));
	}

	/** Allocated as they are asked for, as a transport does. */
	private static Flux<DataBuffer> chunks(DataBufferFactory factory, byte[] body, int chunkSize) {
		return Flux.range(0, (body.length + chunkSize - 1) / chunkSize).map((index) -> {
			int at = index * chunkSize;
			int length = Math.min(chunkSize, body.length - at);
			DataBuffer chunk = factory.allocateBuffer(length);
			chunk.write(body, at, length);
			return chunk;
		});
	}

}
