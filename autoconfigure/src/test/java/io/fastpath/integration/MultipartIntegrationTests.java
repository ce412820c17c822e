package io.fastpath.integration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import io.fastpath.multipart.MultipartReadersInPlace;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.MultipartBodyBuilder;
import org.springframework.http.codec.ServerCodecConfigurer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multipart forms read by Fastpath's part reader on a real server: text fields, a file
 * small enough for memory and one spooled to disk, read whole through
 * {@code getMultipartData()} or copied with {@code transferTo}, each byte checked; every
 * spooled file deleted when the request ends; and the same read as {@code Flux<PartEvent>}
 * by Fastpath's event reader, a multi-megabyte file checked byte for byte. On Reactor Netty the parts are slices of
 * pooled direct buffers, which the paranoid leak detector watches.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.webflux.multipart.max-in-memory-size=64KB",
				"spring.webflux.multipart.file-storage-directory=" + MultipartIntegrationTests.PART_FILES })
abstract class MultipartIntegrationTests extends RealServerTests {

	/** Where parts too large for memory are stored: empty after every request. */
	static final String PART_FILES = "target/multipart-integration-tests-parts";

	@Autowired
	private ServerCodecConfigurer codecs;

	@AfterEach
	void partFilesAreDeleted() {
		// Deleted when the exchange completes, which may be just after the answer is sent
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			try (Stream<Path> files = Files.list(Path.of(PART_FILES))) {
				assertThat(files).isEmpty();
			}
		});
	}

	@Test
	void partsAreReadByFastpath() {
		assertThat(MultipartReadersInPlace.partReaderSettings(this.codecs.getReaders())).isNotNull()
			.satisfies((settings) -> assertThat(settings.maxInMemorySize()).isEqualTo(64 * 1024));
		assertThat(MultipartReadersInPlace.readsMultipartData(this.codecs.getReaders())).isTrue();
	}

	@Test
	void filesInMemoryAndOnDiskAreReadWholeThroughGetMultipartData() throws IOException {
		byte[] large = Checksums.randomBytes(1024 * 1024 + 17, 1);
		byte[] small = Checksums.randomBytes(3000, 2);
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		form.part("title", "Ünïcode title");
		form.part("large", large).filename("large.bin");
		form.part("small", small).filename("small.bin");
		form.part("empty", new byte[0]).filename("empty.bin");
		ResponseEntity<String> response = postMultipart("/multipart/parts", form);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).isEqualTo("[\"empty:empty.bin:" + Checksums.of(new byte[0])
				+ "\",\"large:large.bin:" + Checksums.of(large) + "\",\"small:small.bin:" + Checksums.of(small)
				+ "\",\"title:-:" + Checksums.of("Ünïcode title".getBytes(StandardCharsets.UTF_8)) + "\"]");
	}

	@Test
	void partEventsAreReadByFastpath() {
		assertThat(MultipartReadersInPlace.partEventReaderSettings(this.codecs.getReaders())).isNotNull()
			.satisfies((settings) -> assertThat(settings.maxInMemorySize()).isEqualTo(64 * 1024));
	}

	@Test
	void aMultiMegabyteFileArrivesIntactAsPartEvents() {
		byte[] large = Checksums.randomBytes(3 * 1024 * 1024 + 17, 5);
		byte[] plain = Checksums.randomBytes(70_000, 6);
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		form.part("title", "Ünïcode title");
		form.part("large", large).filename("large.bin");
		form.part("empty", new byte[0]).filename("empty.bin");
		// without a type it would be a form field, over the in-memory limit
		form.part("plain", plain, MediaType.APPLICATION_OCTET_STREAM);
		ResponseEntity<String> response = postMultipart("/multipart/events", form);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).isEqualTo("[\"title:form:"
				+ Checksums.of("Ünïcode title".getBytes(StandardCharsets.UTF_8)) + "\",\"large:file large.bin:"
				+ Checksums.of(large) + "\",\"empty:file empty.bin:" + Checksums.of(new byte[0]) + "\",\"plain:part:"
				+ Checksums.of(plain) + "\"]");
	}

	@Test
	void aSpooledFileIsCopiedByTransferTo() {
		byte[] large = Checksums.randomBytes(2 * 1024 * 1024, 3);
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		form.part("file", large).filename("large.bin");
		ResponseEntity<String> response = postMultipart("/multipart/transfer", form);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).isEqualTo(Checksums.of(large));
	}

	@Test
	void anInMemoryFileIsWrittenByTransferTo() {
		byte[] small = Checksums.randomBytes(5000, 4);
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		form.part("file", small).filename("small.bin");
		ResponseEntity<String> response = postMultipart("/multipart/transfer", form);
		assertThat(response.getBody()).isEqualTo(Checksums.of(small));
	}

	@Test
	void textFieldsAreReadThroughGetMultipartData() {
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		for (String field : List.of("a", "b", "c", "d", "e")) {
			form.part(field, "value of " + field + " — ü");
		}
		form.part("a", "again");
		ResponseEntity<String> response = postMultipart("/multipart/fields", form);
		assertThat(response.getBody()).isEqualTo("a=value of a — ü&a=again&b=value of b — ü&c=value of c — ü"
				+ "&d=value of d — ü&e=value of e — ü");
	}

}
