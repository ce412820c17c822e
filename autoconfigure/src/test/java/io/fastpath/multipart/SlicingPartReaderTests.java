package io.fastpath.multipart;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.NoDroppedErrorsExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link SlicingPartReader} beyond what stock does alike
 * ({@link SlicingPartReaderDifferentialTests}): parts are the request's buffers, not
 * copies; a spooled part is read back into buffers of the request's factory, or copied
 * file to file; limits; and every buffer released and every file deleted on error and
 * cancel.
 */
@ExtendWith(NoDroppedErrorsExtension.class)
class SlicingPartReaderTests {

	private static final ResolvableType PART = ResolvableType.forClass(Part.class);

	static final String BOUNDARY = "fastpath-boundary";

	@TempDir
	Path files;

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	@Test
	void textFieldsAndSmallFilesTakeNoBufferOfTheirOwn() {
		byte[] file = bytes(1000, 1);
		byte[] body = body(field("a", "one"), field("b", "zwei ü"), file("f", file));
		List<Part> parts = read(reader(256 * 1024), request(body, 100));
		assertThat(parts).hasSize(3);
		assertThat(((FormFieldPart) parts.get(0)).value()).isEqualTo("one");
		assertThat(((FormFieldPart) parts.get(1)).value()).isEqualTo("zwei ü");
		assertThat(content(parts.get(2))).isEqualTo(file);
		assertThat(content(parts.get(2))).as("read again").isEqualTo(file);
		assertThat(this.factory.requestedCapacities()).as("buffers allocated: the request's chunks only")
			.hasSize((body.length + 99) / 100);
		delete(parts);
		this.factory.assertNoLeaks();
	}

	@Test
	void aTextFieldIsDecodedInItsCharset() {
		String part = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"t\"\r\n"
				+ "Content-Type: text/plain; charset=ISO-8859-1\r\n\r\n";
		byte[] body = concat(part.getBytes(StandardCharsets.US_ASCII), "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1),
				("\r\n--" + BOUNDARY + "--").getBytes(StandardCharsets.US_ASCII));
		List<Part> parts = read(reader(1024), request(body, 3));
		assertThat(parts).singleElement()
			.isInstanceOfSatisfying(FormFieldPart.class, (field) -> assertThat(field.value()).isEqualTo("café"));
		delete(parts);
		this.factory.assertNoLeaks();
	}

	@Test
	void aPartOverTheInMemoryLimitIsSpooledAndReadBackIntoBuffersOfTheRequestsFactory() throws IOException {
		byte[] file = bytes(200_000, 2);
		List<Part> parts = read(reader(10_000), request(8192, file("big", file)));
		assertThat(files()).hasSize(1);
		int allocated = this.factory.requestedCapacities().size();
		assertThat(content(parts.get(0))).isEqualTo(file);
		assertThat(this.factory.requestedCapacities().subList(allocated, this.factory.requestedCapacities().size()))
			.as("read back into the request's factory").isNotEmpty()
			.allMatch((capacity) -> capacity == SpooledPart.READ_BUFFER_SIZE);
		delete(parts);
		assertThat(files()).isEmpty();
		this.factory.assertNoLeaks();
	}

	@Test
	void transferToCopiesASpooledPartWithoutReadingItBack(@TempDir Path destination) throws IOException {
		byte[] file = bytes(100_000, 3);
		List<Part> parts = read(reader(10_000), request(8192, file("big", file)));
		int allocated = this.factory.requestedCapacities().size();
		Path copy = destination.resolve("copy");
		((FilePart) parts.get(0)).transferTo(copy).block(Duration.ofSeconds(10));
		assertThat(Files.readAllBytes(copy)).isEqualTo(file);
		assertThat(this.factory.requestedCapacities()).as("buffers allocated").hasSize(allocated);
		delete(parts);
		assertThat(files()).isEmpty();
		this.factory.assertNoLeaks();
	}

	@Test
	void transferToLinksTheFirstDestinationAndCopiesToTheNext(@TempDir Path destination) throws IOException {
		byte[] file = bytes(100_000, 7);
		List<Part> parts = read(reader(10_000), request(8192, file("big", file)));
		FilePart part = (FilePart) parts.get(0);
		Path first = destination.resolve("first");
		Path second = destination.resolve("second");
		Files.write(first, new byte[] { 1, 2, 3 });
		part.transferTo(first).block(Duration.ofSeconds(10));
		part.transferTo(second).block(Duration.ofSeconds(10));
		assertThat(Files.readAllBytes(first)).as("replaced").isEqualTo(file);
		assertThat(Files.readAllBytes(second)).isEqualTo(file);
		assumeTrue(Files.getFileStore(first).supportsFileAttributeView("unix"), "unix attributes");
		assertThat(Files.getAttribute(first, "unix:nlink")).as("the first, a link to the part's file").isEqualTo(2);
		assertThat(Files.getAttribute(second, "unix:nlink")).as("the second, a copy").isEqualTo(1);
		// the two destinations are not one file
		Files.write(second, new byte[] { 4, 5 });
		assertThat(Files.readAllBytes(first)).isEqualTo(file);
		assertThat(content(part)).isEqualTo(file);
		delete(parts);
		assertThat(files()).isEmpty();
		assertThat(Files.readAllBytes(first)).as("after the part's file was deleted").isEqualTo(file);
		assertThat(Files.getAttribute(first, "unix:nlink")).isEqualTo(1);
		this.factory.assertNoLeaks();
	}

	@Test
	void transferToCopiesWhereTheFileSystemRefusesALink() throws IOException {
		Path otherFileSystem = Path.of("/dev/shm");
		assumeTrue(Files.isDirectory(otherFileSystem) && Files.isWritable(otherFileSystem), "a tmpfs at /dev/shm");
		assumeTrue(!Files.getFileStore(otherFileSystem).equals(Files.getFileStore(this.files)),
				"another file system than the part's files");
		byte[] file = bytes(100_000, 8);
		List<Part> parts = read(reader(10_000), request(8192, file("big", file)));
		Path copy = Files.createTempFile(otherFileSystem, "fastpath-transfer", ".bin");
		try {
			((FilePart) parts.get(0)).transferTo(copy).block(Duration.ofSeconds(10));
			assertThat(Files.readAllBytes(copy)).isEqualTo(file);
		}
		finally {
			Files.deleteIfExists(copy);
		}
		delete(parts);
		this.factory.assertNoLeaks();
	}

	@Test
	void transferToOfADeletedPartFailsAndLeavesTheDestination(@TempDir Path destination) throws IOException {
		List<Part> parts = read(reader(10_000), request(8192, file("big", bytes(100_000, 9))));
		delete(parts);
		Path kept = destination.resolve("kept");
		Files.write(kept, new byte[] { 1, 2, 3 });
		StepVerifier.create(((FilePart) parts.get(0)).transferTo(kept))
			.expectError(IllegalStateException.class)
			.verify(Duration.ofSeconds(10));
		assertThat(Files.readAllBytes(kept)).containsExactly(1, 2, 3);
		this.factory.assertNoLeaks();
	}

	@Test
	void aTransferThatFindsThePartsFileGoneFailsAndLeavesTheDestinationAsItWas(@TempDir Path destination)
			throws IOException {
		List<Part> parts = read(reader(10_000), request(8192, file("big", bytes(100_000, 9))));
		FilePart part = (FilePart) parts.get(0);
		// the request's clean-up got there between the transfer's look at the part and its work
		for (Path spooled : files()) {
			Files.delete(spooled);
		}
		Path kept = destination.resolve("kept");
		Files.write(kept, new byte[] { 1, 2, 3 });
		StepVerifier.create(part.transferTo(kept)).expectError(NoSuchFileException.class).verify(Duration.ofSeconds(10));
		assertThat(Files.readAllBytes(kept)).as("the first transfer, which links").containsExactly(1, 2, 3);
		StepVerifier.create(part.transferTo(kept)).expectError(NoSuchFileException.class).verify(Duration.ofSeconds(10));
		assertThat(Files.readAllBytes(kept)).as("the next, which copies").containsExactly(1, 2, 3);
		try (var left = Files.list(destination)) {
			assertThat(left).as("no link left beside the destination").containsExactly(kept);
		}
		delete(parts);
		this.factory.assertNoLeaks();
	}

	@Test
	void transferToWritesAnInMemoryPart(@TempDir Path destination) throws IOException {
		byte[] file = bytes(3000, 4);
		List<Part> parts = read(reader(10_000), request(1000, file("small", file)));
		Path copy = destination.resolve("copy");
		((FilePart) parts.get(0)).transferTo(copy).block(Duration.ofSeconds(10));
		assertThat(Files.readAllBytes(copy)).isEqualTo(file);
		delete(parts);
		this.factory.assertNoLeaks();
	}

	@Test
	void deletingTwiceIsHarmlessAndOnlyAFilesContentIsGoneAfterwardsAsWithStock() {
		byte[] small = bytes(5, 5);
		List<Part> parts = read(reader(10), request(100, file("small", small), file("big", bytes(500, 6))));
		delete(parts);
		delete(parts);
		// an in-memory part holds its bytes on the heap, as stock's does: deleting it frees nothing
		assertThat(content(parts.get(0))).isEqualTo(small);
		StepVerifier.create(parts.get(1).content()).expectError(IllegalStateException.class).verify();
		this.factory.assertNoLeaks();
		List<Part> stock = new DefaultPartHttpMessageReader().read(PART, request(100, file("small", small)), Map.of())
			.collectList()
			.block(Duration.ofSeconds(10));
		delete(stock);
		assertThat(content(stock.get(0))).isEqualTo(small);
	}

	@ParameterizedTest(name = "cancelled after {0} parts")
	@ValueSource(ints = { 0, 1, 2 })
	void cancellingReleasesEveryBufferAndDeletesEveryFile(int taken) throws IOException {
		MockServerHttpRequest request = request(4096, file("a", bytes(50_000, 7)), file("b", bytes(30_000, 8)),
				field("c", "text"), file("d", bytes(50_000, 9)));
		List<Part> parts = reader(20_000).read(PART, request, Map.of())
			.take(taken)
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(parts).hasSize(taken);
		delete(parts);
		assertThat(files()).isEmpty();
		this.factory.assertNoLeaks();
	}

	@Test
	void whileTheDiskLagsTheBodyIsReadNoFurtherThanTheUnwrittenBound() throws Exception {
		byte[] file = bytes(3 * PartAssembly.MAX_UNWRITTEN, 12);
		try (HeldTasks disk = new HeldTasks()) {
			readsNoFurtherThanTheBound(file, disk);
		}
		assertThat(files()).isEmpty();
		this.factory.assertNoLeaks();
	}

	private void readsNoFurtherThanTheBound(byte[] file, HeldTasks disk) throws IOException {
		SlicingPartReader reader = slicing(withScheduler(settings(10_000, -1, -1, 10 * 1024), disk));
		MockServerHttpRequest request = request(8192, file("big", file));
		List<Part> parts = new ArrayList<>();
		Disposable reading = reader.read(PART, request, Map.of()).subscribe(parts::add);
		long readAhead = this.factory.requestedCapacities().stream().mapToLong(Integer::longValue).sum();
		// the bound and the one buffer over it that stopped the reading: the next buffer is
		// asked for once the last one's parts went out, none prefetched
		assertThat(readAhead).as("bytes read while nothing was written")
			.isGreaterThan(PartAssembly.MAX_UNWRITTEN)
			.isLessThanOrEqualTo(PartAssembly.MAX_UNWRITTEN + 2 * 8192);
		disk.release();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(reading::isDisposed);
		assertThat(parts).hasSize(1);
		assertThat(content(parts.get(0))).isEqualTo(file);
		delete(parts);
	}

	@Test
	void cancellingWhileWritesAreQueuedReleasesThemAndLeavesNoFile() throws Exception {
		try (HeldTasks disk = new HeldTasks()) {
			SlicingPartReader reader = slicing(
					withScheduler(settings(10_000, -1, -1, 10 * 1024), disk));
			Disposable reading = reader
				.read(PART, request(8192, file("big", bytes(2 * PartAssembly.MAX_UNWRITTEN, 13))), Map.of())
				.subscribe();
			reading.dispose();
			disk.release();
		}
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(files()).isEmpty());
		this.factory.assertNoLeaks();
	}

	@Test
	void aFileThatCannotBeWrittenFailsTheBodyAndLeavesNothing() throws IOException {
		Path missing = this.files.resolve("missing");
		MultipartSettings settings = settings(10_000, -1, -1, 10 * 1024);
		SlicingPartReader reader = slicing(new MultipartSettings(settings.maxInMemorySize(),
				settings.maxDiskUsagePerPart(), settings.maxParts(), settings.maxHeadersSize(),
				settings.headersCharset(), Mono.just(missing), settings.blockingScheduler()));
		assertReadFails(reader, request(8192, file("a", bytes(300_000, 14)), field("b", "text")),
				UncheckedIOException.class);
		assertThat(missing).doesNotExist();
	}

		@Test
	void aTruncatedBodyFailsAsMalformedAndLeavesNothing() throws IOException {
		byte[] body = body(file("a", bytes(50_000, 10)), field("b", "text"));
		byte[] truncated = Arrays.copyOf(body, body.length - 10);
		assertReadFails(reader(20_000), request(truncated, 4096), DecodingException.class);
	}

	@Test
	void aTextFieldAtTheInMemoryLimitIsTooLarge() throws IOException {
		assertReadFails(reader(100), request(30, field("a", "x".repeat(100))), DataBufferLimitException.class);
	}

	@Test
	void aPartOverTheDiskLimitIsTooLarge() throws IOException {
		SlicingPartReader reader = slicing(settings(100, 1000, -1, 10 * 1024));
		assertReadFails(reader, request(64, file("a", bytes(1001, 11))), DataBufferLimitException.class);
	}

	@Test
	void aPartTooManyIsADecodingErrorAsStocksIsWithATypeOfItsOwn() throws IOException {
		SlicingPartReader reader = slicing(settings(100, -1, 2, 10 * 1024));
		// A DecodingException, as stock's, and a TooManyPartsException, which RequestForm
		// answers with 413 by its type (RequestFormTests).
		assertReadFails(reader, request(16, field("a", "1"), field("b", "2"), field("c", "3")),
				TooManyPartsException.class);
		assertThat(DecodingException.class).isAssignableFrom(TooManyPartsException.class);
	}

	@Test
	void headersOverTheirLimitAreTooLarge() throws IOException {
		SlicingPartReader reader = slicing(settings(100, -1, -1, 200));
		assertReadFails(reader, request(16, field("a".repeat(300), "1")), DataBufferLimitException.class);
	}

	@Test
	void aBodyWithoutBoundaryInItsTypeIsMalformed() {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.MULTIPART_FORM_DATA)
			.body(Flux.empty());
		StepVerifier.create(reader(10).read(PART, request, Map.of())).expectError(DecodingException.class).verify();
	}

	private void assertReadFails(SlicingPartReader reader, MockServerHttpRequest request,
			Class<? extends Throwable> error) throws IOException {
		List<Part> emitted = new ArrayList<>();
		assertThatExceptionOfType(error).isThrownBy(
				() -> reader.read(PART, request, Map.of()).doOnNext(emitted::add).blockLast(Duration.ofSeconds(10)));
		delete(emitted);
		assertThat(files()).isEmpty();
		this.factory.assertNoLeaks();
	}

	private SlicingPartReader reader(int maxInMemorySize) {
		return slicing(settings(maxInMemorySize, -1, -1, 10 * 1024));
	}

	private MultipartSettings settings(int maxInMemorySize, long maxDisk, int maxParts, int maxHeaders) {
		SlicingPartReaderDifferentialTests.Limits limits = new SlicingPartReaderDifferentialTests.Limits(
				maxInMemorySize, maxDisk, maxParts, maxHeaders);
		return limits.fastpath(this.files).settings();
	}

	private static MultipartSettings withScheduler(MultipartSettings settings, HeldTasks scheduler) {
		return new MultipartSettings(settings.maxInMemorySize(), settings.maxDiskUsagePerPart(),
				settings.maxParts(), settings.maxHeadersSize(), settings.headersCharset(),
				settings.fileStorageDirectory(), Schedulers.fromExecutor(scheduler));
	}

	/** A disk that does nothing until released: tasks held, then run on a thread of their own. */
	private static final class HeldTasks implements Executor, AutoCloseable {

		private final ExecutorService thread = Executors.newSingleThreadExecutor();

		private @Nullable List<Runnable> held = new ArrayList<>();

		@Override
		public synchronized void execute(Runnable task) {
			if (this.held != null) {
				this.held.add(task);
			}
			else {
				this.thread.execute(task);
			}
		}

		synchronized void release() {
			if (this.held != null) {
				this.held.forEach(this.thread::execute);
				this.held = null;
			}
		}

		@Override
		public void close() {
			release();
			this.thread.shutdown();
		}

	}

		private static List<Part> read(SlicingPartReader reader, MockServerHttpRequest request) {
		return reader.read(PART, request, Map.of()).collectList().block(Duration.ofSeconds(10));
	}

	private static byte[] content(Part part) {
		// not DataBufferUtils.join, which allocates one more buffer from the factory
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		part.content().doOnNext((buffer) -> {
			byte[] read = new byte[buffer.readableByteCount()];
			buffer.read(read);
			bytes.writeBytes(read);
			DataBufferUtils.release(buffer);
		}).blockLast(Duration.ofSeconds(10));
		return bytes.toByteArray();
	}

	private static void delete(List<Part> parts) {
		for (Part part : parts) {
			part.delete().block(Duration.ofSeconds(10));
		}
	}

	private List<Path> files() throws IOException {
		try (Stream<Path> files = Files.list(this.files)) {
			return files.toList();
		}
	}

	private MockServerHttpRequest request(int chunkSize, byte[]... parts) {
		return request(body(parts), chunkSize);
	}

	private MockServerHttpRequest request(byte[] body, int chunkSize) {
		// allocated as they are asked for, as a transport does
		Flux<DataBuffer> chunks = Flux.range(0, (body.length + chunkSize - 1) / chunkSize).map((index) -> {
			int at = index * chunkSize;
			int length = Math.min(chunkSize, body.length - at);
			DataBuffer chunk = this.factory.allocateBuffer(length);
			chunk.write(body, at, length);
			return chunk;
		});
		return MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", BOUNDARY)))
			.body(chunks);
	}

	static byte[] body(byte[]... parts) {
		byte[] body = new byte[0];
		for (byte[] part : parts) {
			body = concat(body, ("--" + BOUNDARY + "\r\n").getBytes(StandardCharsets.US_ASCII), part,
					"\r\n".getBytes(StandardCharsets.US_ASCII));
		}
		return concat(body, ("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
	}

	static byte[] field(String name, String value) {
		return concat(("Content-Disposition: form-data; name=\"" + name + "\"\r\n\r\n").getBytes(StandardCharsets.UTF_8),
				value.getBytes(StandardCharsets.UTF_8));
	}

	static byte[] file(String name, byte[] content) {
		return concat(("Content-Disposition: form-data; name=\"" + name + "\"; filename=\"" + name + ".bin\"\r\n"
				+ "Content-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8), content);
	}

	static byte[] bytes(int size, long seed) {
		byte[] bytes = new byte[size];
		new Random(seed).nextBytes(bytes);
		return bytes;
	}

	private static byte[] concat(byte[]... arrays) {
		int length = 0;
		for (byte[] array : arrays) {
			length += array.length;
		}
		byte[] result = new byte[length];
		int at = 0;
		for (byte[] array : arrays) {
			System.arraycopy(array, 0, result, at, array.length);
			at += array.length;
		}
		return result;
	}

	/** Fastpath's reader; the stock one beside it reads what is not a server's request. */
	private static SlicingPartReader slicing(MultipartSettings settings) {
		return new SlicingPartReader(settings, new DefaultPartHttpMessageReader());
	}

}
