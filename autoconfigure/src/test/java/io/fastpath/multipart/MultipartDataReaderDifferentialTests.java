package io.fastpath.multipart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Exceptions;
import reactor.core.Disposable;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebInputException;

import io.fastpath.codec.ReadListener;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.form.TooManyFormFieldsException;
import io.fastpath.multipart.SlicingPartReaderDifferentialTests.Limits;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Differential tests of {@link MultipartDataReader}, which reads the map of
 * {@code getMultipartData()}, against Spring's {@link MultipartHttpMessageReader} over
 * its {@code DefaultPartHttpMessageReader} with the same settings, on the random forms of
 * {@link SlicingPartReaderDifferentialTests} cut into random chunks: the same names in
 * the same order, each with the same parts in the same order, or the same kind of error
 * (stock's malformed body a 400, its limits a 413). Stock's part reader is given the limit
 * on the number of parts that Fastpath adds, as specified ({@link Limited}): the part past
 * it is a 413. Every buffer is released once the parts are
 * deleted, as the exchange deletes them, and when the read fails or is cancelled.
 * <p>The build uses a fixed seed; explore with {@code -Dfastpath.seed=random}.
 */
class MultipartDataReaderDifferentialTests {

	private static final int CASES = Integer.getInteger("fastpath.cases", 200);

	private static final ResolvableType MAP = ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class,
			Part.class);

	@TempDir
	Path stockFiles;

	@TempDir
	Path fastpathFiles;

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void readsRandomFormsIntoTheMapStockReads(String buffers) {
		SlicingPartReaderDifferentialTests.assumeStockReadsRandomFormsAs7010();
		Random random = TestSeed.random("MultipartDataReader.random." + buffers);
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		for (int i = 0; i < CASES; i++) {
			Limits limits = Limits.random(random);
			int maxParts = random.nextBoolean() ? LazyFormDecoding.DEFAULT_MAX_FIELDS : random.nextInt(5);
			RandomMultipart.Body body = RandomMultipart.valid(random, random.nextBoolean() ? 300 : 5000);
			boolean broken = random.nextInt(5) == 0;
			byte[] bytes = broken ? RandomMultipart.mutate(random, body) : body.body();
			assertReadAlike(factory, limits, maxParts, body.boundary(), bytes,
					SlicingPartReaderDifferentialTests.cuts(random, bytes.length), broken,
					"[seed=" + TestSeed.SEED + " case=" + i + " " + limits + " maxParts=" + maxParts + "]");
		}
		factory.assertNoLeaks();
	}

	@Test
	void ordersManyNamesAsStocksMapDoes() {
		Random random = TestSeed.random("MultipartDataReader.names");
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		String boundary = "names" + random.nextInt(1000);
		StringBuilder body = new StringBuilder();
		for (int i = 0; i < 300; i++) {
			String name = Long.toString(random.nextLong() >>> random.nextInt(60), 36) + ((i % 7 == 0) ? "" : "-" + i);
			body.append("--").append(boundary).append("\r\nContent-Disposition: form-data; name=\"").append(name)
				.append("\"\r\n\r\n").append(i).append("\r\n");
		}
		body.append("--").append(boundary).append("--\r\n");
		byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
		assertReadAlike(factory, Limits.DEFAULT, LazyFormDecoding.DEFAULT_MAX_FIELDS, boundary, bytes, List.of(),
				false, "[seed=" + TestSeed.SEED + " 300 names]");
		factory.assertNoLeaks();
	}

	@Test
	void theMapChangesAsStocksDoes() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		byte[] body = threeFields("xyz");
		MultiValueMap<String, Part> stock = new MultipartHttpMessageReader(
				new Limited(Limits.DEFAULT.stockInOrder(this.stockFiles), 10))
			.readMono(MAP, request("xyz", Flux.just(buffer(DefaultDataBufferFactory.sharedInstance, body))), Map.of())
			.block(Duration.ofSeconds(10));
		MultiValueMap<String, Part> fastpath = dataReader(Limits.DEFAULT.fastpath(this.fastpathFiles), 10)
			.readMono(MAP, request("xyz", Flux.just(buffer(factory, body))), Map.of())
			.block(Duration.ofSeconds(10));
		assertThat(stock).isNotNull();
		assertThat(fastpath).isNotNull();
		List<Part> read = fastpath.values().stream().flatMap(List::stream).toList();
		List<String> changes = new ArrayList<>();
		for (MultiValueMap<String, Part> map : List.of(stock, fastpath)) {
			Part b = map.getFirst("b");
			assertThat(b).isNotNull();
			map.add("a", b);
			map.get("c").add(b);
			map.remove("b");
			map.put("d", new ArrayList<>(List.of(b)));
			map.addIfAbsent("a", b);
			StringBuilder change = new StringBuilder();
			map.forEach((name, parts) -> change.append(name)
				.append(parts.stream().map(Part::name).toList())
				.append(' '));
			changes.add(change.toString());
		}
		assertThat(changes.get(1)).isEqualTo(changes.get(0)).isEqualTo("a[a, b] c[c, b] d[b] ");
		read.forEach((part) -> part.delete().block(Duration.ofSeconds(10)));
		factory.assertNoLeaks();
	}

	@Test
	void aPartPastTheLimitIsTooLargeAndEveryPartIsFreed() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		byte[] body = threeFields("xyz");
		Outcome outcome = read(dataReader(Limits.DEFAULT.fastpath(this.fastpathFiles), 2), factory,
				"xyz", body, List.of(40, 90));
		assertThat(outcome.error()).isInstanceOfSatisfying(TooManyFormFieldsException.class,
				(error) -> assertThat(error.getMaxFields()).isEqualTo(2));
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "after {0} bytes")
	@ValueSource(ints = { 0, 1, 50, 100, 150 })
	void cancellingFreesEveryPartAndBuffer(int sent) {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		byte[] body = threeFields("xyz");
		Flux<DataBuffer> buffers = Flux.concat(Flux.just(buffer(factory, Arrays.copyOf(body, sent))), Flux.never());
		AtomicReference<@Nullable Object> signal = new AtomicReference<>();
		Disposable reading = dataReader(Limits.DEFAULT.fastpath(this.fastpathFiles), 10)
			.readMono(MAP, request("xyz", buffers), Map.of())
			.subscribe(signal::set, signal::set);
		reading.dispose();
		assertThat(signal.get()).as("no signal before the cancel").isNull();
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "after {0} bytes")
	@ValueSource(ints = { 0, 1, 50, 100, 150 })
	void aBodyThatFailsFreesEveryPartAndBufferAndFailsAsItDid(int sent) {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		byte[] body = threeFields("xyz");
		IllegalStateException failure = new IllegalStateException("connection lost");
		Flux<DataBuffer> buffers = Flux.concat(Flux.just(buffer(factory, Arrays.copyOf(body, sent))),
				Flux.error(failure));
		Throwable error = null;
		try {
			dataReader(Limits.DEFAULT.fastpath(this.fastpathFiles), 10)
				.readMono(MAP, request("xyz", buffers), Map.of())
				.block(Duration.ofSeconds(10));
		}
		catch (RuntimeException ex) {
			error = Exceptions.unwrap(ex);
		}
		assertThat(error).isSameAs(failure);
		factory.assertNoLeaks();
	}

	@Test
	void aMapCancelledBeforeItWasRequestedFreesEveryPart() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		List<Object> signals = new ArrayList<>();
		BaseSubscriber<MultiValueMap<String, Part>> unrequested = new BaseSubscriber<>() {

			@Override
			protected void hookOnSubscribe(Subscription subscription) {
				// no request: the body is read whole and the map held until one comes
			}

			@Override
			protected void hookOnNext(MultiValueMap<String, Part> map) {
				signals.add(map);
			}

		};
		AtomicBoolean bodyRead = new AtomicBoolean();
		// read to its closing boundary, where the reader stops it (a cancel) and completes the map
		Flux<DataBuffer> body = Flux.just(buffer(factory, threeFields("xyz"))).doFinally((signal) -> bodyRead.set(true));
		dataReader(Limits.DEFAULT.fastpath(this.fastpathFiles), 10)
			.readMono(MAP, request("xyz", body), Map.of())
			.subscribe(unrequested);
		assertThat(bodyRead).as("the body read to its end, its parts held in the map").isTrue();
		unrequested.dispose();
		assertThat(signals).isEmpty();
		factory.assertNoLeaks();
	}

	@Test
	void cancellingWhileAFileIsWrittenFreesEveryPartAndLeavesNoFile() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		List<Runnable> heldWrites = new ArrayList<>();
		AtomicReference<@Nullable Object> signal = new AtomicReference<>();
		Disposable reading = readFileAndField(factory, heldWrites).subscribe(signal::set, signal::set);
		assertThat(heldWrites).as("the file's write, held").hasSize(1);
		reading.dispose();
		runAll(heldWrites);
		assertThat(signal.get()).as("no signal after the cancel").isNull();
		assertThat(SlicingPartReaderDifferentialTests.files(this.fastpathFiles)).isEmpty();
		factory.assertNoLeaks();
	}

	@Test
	void aFileWrittenLaterIsHandedOnOnceWritten() {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		List<Runnable> heldWrites = new ArrayList<>();
		AtomicReference<@Nullable Object> signal = new AtomicReference<>();
		readFileAndField(factory, heldWrites).subscribe(signal::set, signal::set);
		assertThat(signal.get()).as("no map before the file is written").isNull();
		runAll(heldWrites);
		assertThat(signal.get()).isInstanceOfSatisfying(MultiValueMap.class, (map) -> {
			assertThat(map.keySet()).containsExactlyInAnyOrder("file", "note");
			// a file is deleted on the blocking scheduler, whose tasks are held
			map.values().forEach((parts) -> ((List<?>) parts).forEach((part) -> ((Part) part).delete().subscribe()));
		});
		runAll(heldWrites);
		assertThat(SlicingPartReaderDifferentialTests.files(this.fastpathFiles)).isEmpty();
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void aPartPastTheLimitFailsBeforeAFaultFurtherInTheSameBufferLikeStock(String buffers) {
		// found with -Dfastpath.cases=3000 (seed 20261203, case 104): stock counts each part
		// as it is emitted, so a limit of 0 fails at the first part, not at the malformed
		// type of the third, which the scan of the same buffer reached first
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		String body = "--b0und\r\nContent-Disposition: form-data; name=\"f3\"\r\n\r\nx\r\n"
				+ "--b0und\r\nContent-Disposition: form-data; name=\"f2\"\r\n\r\ny\r\n"
				+ "--b0und\r\nContent-Disposition: form-data; name=\"f1\"; filename=\"notes.txt\"\r\n"
				+ "Content-Type:: text/plain\r\n\r\nz\r\n--b0und--\r\n";
		assertReadAlike(factory, Limits.DEFAULT, 0, "b0und", body.getBytes(StandardCharsets.UTF_8), List.of(), false,
				"[a part past a limit of 0, then a malformed type]");
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void aPartWithoutANameFailsBeforeALaterPartPastTheLimitLikeStock(String buffers) {
		// found with -Dfastpath.cases=3000 (seed 20261203, case 1633): stock asks each part
		// its name as it is emitted, so the first part fails before the fourth is counted
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		StringBuilder body = new StringBuilder("--b0und\r\nX-Other: no disposition\r\n\r\nx\r\n");
		for (int i = 1; i <= 3; i++) {
			body.append("--b0und\r\nContent-Disposition: form-data; name=\"f").append(i).append("\"\r\n\r\ny\r\n");
		}
		body.append("--b0und--\r\n");
		assertReadAlike(factory, Limits.DEFAULT, 3, "b0und", body.toString().getBytes(StandardCharsets.UTF_8),
				List.of(), false, "[a part without a name, then a part past a limit of 3]");
		factory.assertNoLeaks();
	}

	/**
	 * A part without a name, which the map cannot key, answered 400 and not as stock's
	 * {@code IllegalStateException} (a 500), whether Fastpath's part reader or Spring's
	 * reads the parts, and whether the nameless part is a field or a file (spooled to a
	 * file of its own): the named file part before it and the nameless one are freed and
	 * their files deleted.
	 */
	@ParameterizedTest(name = "a nameless {2}, {0} part reader on {1} buffers")
	@CsvSource({ "Fastpath's, heap, field", "Fastpath's, netty, field", "Spring's, heap, field",
			"Spring's, netty, field", "Fastpath's, heap, file", "Fastpath's, netty, file", "Spring's, heap, file",
			"Spring's, netty, file" })
	void aPartWithoutANameIsAMalformedForm(String partReader, String buffers, String nameless) {
		String namelessPart = nameless.equals("file")
				? "Content-Disposition: form-data; filename=\"n.txt\"\r\n\r\n" + "n".repeat(300 * 1024)
				: "Content-Disposition: form-data\r\n\r\nnameless";
		assertMalformedFormFreesEverything(partReader, buffers, namelessPart,
				"Malformed multipart form: A part has no name in its Content-Disposition");
	}

	/**
	 * A part header Spring cannot parse, answered 400 and not as the parser's
	 * {@code IllegalArgumentException} (a 500), whether Fastpath's part reader or Spring's
	 * reads the parts: the file part before it is freed and its file deleted.
	 */
	@ParameterizedTest(name = "[{2}], {0} part reader on {1} buffers")
	@CsvSource(delimiter = '|', value = { "Fastpath's | heap | Content-Type: text/",
			"Fastpath's | netty | Content-Type: text/plain; charset=no-such-charset",
			"Spring's | heap | Content-Type: text/",
			"Spring's | netty | Content-Type: text/plain; charset=no-such-charset",
			"Fastpath's | heap | Content-Disposition: form-data; name",
			"Fastpath's | netty | Content-Disposition: form-data; name",
			"Spring's | heap | Content-Disposition: form-data; name",
			"Spring's | netty | Content-Disposition: form-data; name" })
	void aPartHeaderThatCannotBeParsedIsAMalformedForm(String partReader, String buffers, String header) {
		String headers = header.startsWith("Content-Type")
				? "Content-Disposition: form-data; name=\"f\"\r\n" + header : header;
		String parserMessage = header.startsWith("Content-Type")
				? "Invalid mime type \"" + header.substring("Content-Type: ".length()) + "\""
				: "Invalid content disposition format";
		assertMalformedFormFreesEverything(partReader, buffers, headers + "\r\n\r\nvalue",
				"Malformed multipart form: A part header cannot be parsed: " + parserMessage);
	}

	/**
	 * Read a form of a file part too large for memory (spooled to a file), the given
	 * malformed part, and a field, in four buffers: the read must fail with a 400 whose
	 * reason starts as given, every part freed and every file deleted.
	 */
	private void assertMalformedFormFreesEverything(String partReader, String buffers, String malformedPart,
			String reason) {

		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		String body = "--b0und\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\n"
				+ "x".repeat(300 * 1024) + "\r\n--b0und\r\n" + malformedPart + "\r\n"
				+ "--b0und\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\ny\r\n--b0und--\r\n";
		HttpMessageReader<Part> parts = partReader.equals("Spring's")
				? Limits.DEFAULT.stockInOrder(this.fastpathFiles) : Limits.DEFAULT.fastpath(this.fastpathFiles);
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		Outcome outcome = read(dataReader(parts, 10), factory, "b0und", bytes,
				List.of(100, 200_000, bytes.length - 100));
		assertThat(outcome.error()).isInstanceOfSatisfying(ServerWebInputException.class, (error) -> {
			assertThat(error.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
			assertThat(error.getReason()).startsWith(reason);
		});
		assertThat(SlicingPartReaderDifferentialTests.files(this.fastpathFiles)).as("files left").isEmpty();
		factory.assertNoLeaks();
	}

	@Test
	void aFileThatCannotBeWrittenFailsTheReadAndCancelsTheBody() throws IOException {
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.nettyPooled();
		Path notADirectory = Files.createFile(this.fastpathFiles.resolve("not-a-directory"));
		// the write runs in place: it has failed by the time the buffer is scanned
		MultipartSettings settings = new MultipartSettings(8, -1, -1, 10 * 1024, StandardCharsets.UTF_8,
				Mono.just(notADirectory), Schedulers.immediate());
		AtomicBoolean cancelled = new AtomicBoolean();
		Flux<DataBuffer> body = Flux.concat(Flux.just(buffer(factory, fileAndField("xyz"))), Flux.<DataBuffer>never())
			.doOnCancel(() -> cancelled.set(true));
		Throwable error = null;
		try {
			dataReader(new SlicingPartReader(settings, new DefaultPartHttpMessageReader()), 10)
				.readMono(MAP, request("xyz", body), Map.of())
				.block(Duration.ofSeconds(10));
		}
		catch (RuntimeException ex) {
			error = Exceptions.unwrap(ex);
		}
		assertThat(error).as("the write's failure").isNotNull().isNotInstanceOf(IllegalStateException.class);
		assertThat(cancelled).as("the body cancelled").isTrue();
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void theMapGoesOutAtTheClosingBoundaryAndTheEpilogueIsNotWaitedForLikeStock(String buffers) {
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		// the file over the in-memory limit: the map goes out once its file is written
		Limits limits = new Limits(16, -1, -1, 10 * 1024);
		EpilogueLeftBody stockBody = new EpilogueLeftBody(DefaultDataBufferFactory.sharedInstance);
		Outcome expected = read(new MultipartHttpMessageReader(new Limited(limits.stockInOrder(this.stockFiles), 10)),
				stockBody.request());
		EpilogueLeftBody body = new EpilogueLeftBody(factory);
		Outcome actual = read(dataReader(limits.fastpath(this.fastpathFiles), 10), body.request());
		assertThat(expected.error()).as("stock's error").isNull();
		assertThat(actual.error()).as("Fastpath's error").isNull();
		assertThat(actual.map()).containsExactlyEntriesOf(expected.map()).hasSize(2);
		assertThat(body.fate()).isEqualTo(stockBody.fate());
		assertThat(SlicingPartReaderDifferentialTests.files(this.fastpathFiles)).as("Fastpath's files left").isEmpty();
		factory.assertNoLeaks();
	}

	@Test
	void aBodyWithoutBoundaryIsMalformed() {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.MULTIPART_FORM_DATA)
			.body(Flux.empty());
		Outcome outcome = read(dataReader(Limits.DEFAULT.fastpath(this.fastpathFiles), 10), request);
		assertThat(outcome.error()).isInstanceOfSatisfying(ResponseStatusException.class,
				(error) -> assertThat(error.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST));
	}

	private void assertReadAlike(LeakTrackingDataBufferFactory factory, Limits limits, int maxParts, String boundary,
			byte[] body, List<Integer> cuts, boolean broken, String description) {

		String described = description + " boundary " + boundary + " cuts " + cuts + " body:\n"
				+ new String(body, StandardCharsets.ISO_8859_1);
		// stock reads heap buffers, its blocking work in order: see SlicingPartReaderDifferentialTests
		Outcome expected = StockDroppedErrors.collect(() -> read(
				new MultipartHttpMessageReader(new Limited(limits.stockInOrder(this.stockFiles), maxParts)),
				DefaultDataBufferFactory.sharedInstance, boundary, body, cuts));
		Outcome actual = read(dataReader(limits.fastpath(this.fastpathFiles), maxParts), factory,
				boundary, body, cuts);
		if (expected.error() != null) {
			String expectedKind = stockKind(expected.error());
			String actualKind = kind(actual.error());
			// a broken body can be both, and each reader see another first: see
			// SlicingPartReaderDifferentialTests
			if (!broken || !expectedKind.startsWith("4") || !actualKind.startsWith("4")) {
				assertThat(actualKind).as(described + "\nstock: " + expected.error() + "\nFastpath: " + actual.error())
					.isEqualTo(expectedKind);
			}
		}
		else {
			assertThat(actual.error()).as(described).isNull();
			assertThat(actual.map()).as(described).containsExactlyEntriesOf(expected.map());
		}
		assertThat(SlicingPartReaderDifferentialTests.files(this.fastpathFiles)).as(described + "\nfiles left")
			.isEmpty();
	}

	/**
	 * Stock's errors as a server answers them: a malformed body 400, a limit 413. A part
	 * without a name is a malformed form too: stock's map fails on the part's
	 * {@code name()} with an {@code IllegalStateException}, which a server answers 500,
	 * and Fastpath's at the same part with a 400 ({@link #aPartWithoutANameIsAMalformedForm}),
	 * as are part headers that cannot be parsed ({@link ErrorKinds}).
	 */
	private static String stockKind(@Nullable Throwable error) {
		if (error instanceof IllegalStateException && "No name available".equals(error.getMessage())) {
			return "400";
		}
		if (ErrorKinds.isUnparseablePartHeader(error)) {
			return "400 " + ErrorKinds.ofStock(error);
		}
		if (error instanceof DecodingException) {
			String message = error.getMessage();
			return (message != null && message.startsWith("Too many parts")) ? "413" : "400";
		}
		if (error instanceof DataBufferLimitException || error instanceof TooManyFormFieldsException) {
			return "413";
		}
		return String.valueOf(error);
	}

	private static String kind(@Nullable Throwable error) {
		if (error instanceof ResponseStatusException status) {
			String kind = String.valueOf(status.getStatusCode().value());
			String cause = ErrorKinds.of(status.getCause());
			return cause.startsWith("malformed part header") ? kind + " " + cause : kind;
		}
		return String.valueOf(error);
	}

	private static Outcome read(HttpMessageReader<MultiValueMap<String, Part>> reader, DataBufferFactory factory,
			String boundary, byte[] body, List<Integer> cuts) {

		List<byte[]> chunks = new ArrayList<>();
		int start = 0;
		for (int cut : cuts) {
			chunks.add(Arrays.copyOfRange(body, start, cut));
			start = cut;
		}
		chunks.add(Arrays.copyOfRange(body, start, body.length));
		// each buffer made when it is asked for, as a server receives them: a list of buffers
		// made up front is discarded by Flux.fromIterable on cancel, and its cancel and its
		// drain loop, on two threads once a part was written to disk, may both discard one
		return read(reader, request(boundary, Flux.fromIterable(chunks).map((chunk) -> buffer(factory, chunk))));
	}

	private static Outcome read(HttpMessageReader<MultiValueMap<String, Part>> reader,
			MockServerHttpRequest request) {

		MultiValueMap<String, Part> map = null;
		Throwable error = null;
		try {
			map = reader.readMono(MAP, request, Map.of()).block(Duration.ofSeconds(20));
		}
		catch (RuntimeException ex) {
			error = Exceptions.unwrap(ex);
		}
		// each part as text, then deleted, as the exchange deletes them when the request ends
		List<Map.Entry<String, List<String>>> views = new ArrayList<>();
		if (map != null) {
			for (Map.Entry<String, List<Part>> entry : map.entrySet()) {
				List<String> named = new ArrayList<>();
				for (Part part : entry.getValue()) {
					named.add(SlicingPartReaderDifferentialTests.view(part));
					part.delete().block(Duration.ofSeconds(10));
				}
				views.add(Map.entry(entry.getKey(), named));
			}
		}
		LinkedMultiValueMap<String, String> viewed = new LinkedMultiValueMap<>();
		views.forEach((entry) -> viewed.put(entry.getKey(), entry.getValue()));
		return new Outcome(viewed, error);
	}

	private static MockServerHttpRequest request(String boundary, Flux<DataBuffer> body) {
		return MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", "\"" + boundary + "\"")))
			.body(body);
	}

	private static DataBuffer buffer(DataBufferFactory factory, byte[] bytes) {
		// not allocateBuffer(n).write(bytes): a wrapper returns its delegate from write
		DataBuffer buffer = factory.allocateBuffer(bytes.length);
		buffer.write(bytes);
		return buffer;
	}

	private static byte[] threeFields(String boundary) {
		StringBuilder body = new StringBuilder();
		for (String name : List.of("a", "b", "c")) {
			body.append("--").append(boundary).append("\r\nContent-Disposition: form-data; name=\"").append(name)
				.append("\"\r\n\r\n").append("value of ").append(name).append(" ".repeat(20)).append("\r\n");
		}
		body.append("--").append(boundary).append("--\r\n");
		return body.toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Read a file part over the in-memory limit and a field, the file's writes (and
	 * deletes) held in the given list until the test runs them.
	 */
	private Mono<MultiValueMap<String, Part>> readFileAndField(DataBufferFactory factory, List<Runnable> heldWrites) {
		MultipartSettings settings = new MultipartSettings(8, -1, -1, 10 * 1024, StandardCharsets.UTF_8,
				Mono.just(this.fastpathFiles), Schedulers.fromExecutor(heldWrites::add));
		return dataReader(new SlicingPartReader(settings, new DefaultPartHttpMessageReader()), 10).readMono(MAP,
				request("xyz", Flux.just(buffer(factory, fileAndField("xyz")))), Map.of());
	}

	/** Run the tasks held, and those they schedule, until none is left. */
	private static void runAll(List<Runnable> held) {
		while (!held.isEmpty()) {
			held.remove(0).run();
		}
	}

	private static byte[] fileAndField(String boundary) {
		String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
				+ "Content-Type: application/octet-stream\r\n\r\n" + "more than eight bytes" + "\r\n--" + boundary
				+ "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nshort\r\n--" + boundary + "--\r\n";
		return body.getBytes(StandardCharsets.UTF_8);
	}

	/** What a reader gave: each name with its parts as text, in the map's order, or its error. */
	private record Outcome(LinkedMultiValueMap<String, String> map, @Nullable Throwable error) {
	}

	/**
	 * Stock's part reader with the limit Fastpath adds, as specified: the part after the
	 * last allowed is deleted and fails the read.
	 */
	private record Limited(HttpMessageReader<Part> parts, int maxParts) implements HttpMessageReader<Part> {

		@Override
		public List<MediaType> getReadableMediaTypes() {
			return this.parts.getReadableMediaTypes();
		}

		@Override
		public boolean canRead(ResolvableType elementType, @Nullable MediaType mediaType) {
			return this.parts.canRead(elementType, mediaType);
		}

		@Override
		public Flux<Part> read(ResolvableType elementType, ReactiveHttpInputMessage message, Map<String, Object> hints) {
			AtomicInteger count = new AtomicInteger();
			return this.parts.read(elementType, message, hints).concatMap((part) -> (count.incrementAndGet() > this.maxParts)
					? part.delete().then(Mono.error(new TooManyFormFieldsException(this.maxParts))) : Mono.just(part));
		}

		@Override
		public Mono<Part> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
				Map<String, Object> hints) {
			return this.parts.readMono(elementType, message, hints);
		}

	}

	/** Fastpath's reader; the stock one beside it reads what is not a server's request. */
	private static MultipartDataReader dataReader(HttpMessageReader<Part> parts, int maxParts) {
		return new MultipartDataReader(parts, new PartLimit(maxParts, TooManyFormFieldsException::new),
				new MultipartHttpMessageReader(new DefaultPartHttpMessageReader()), ReadListener.NONE);
	}

}
