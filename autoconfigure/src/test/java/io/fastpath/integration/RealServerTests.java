package io.fastpath.integration;

import org.junit.jupiter.api.BeforeEach;
import reactor.core.publisher.Flux;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Base for tests against {@link FastpathTestApplication} on a real port: a client built
 * from Boot's {@code WebClient.Builder}, and the recorder of whole-body reads, cleared
 * before each test.
 */
abstract class RealServerTests {

	@LocalServerPort
	private int port;

	@Autowired
	private WebClient.Builder builder;

	@Autowired
	protected ReadMonoRecorder recorder;

	protected WebClient client;

	@BeforeEach
	void setUpClient() {
		this.client = this.builder.baseUrl("http://localhost:" + this.port).build();
		this.recorder.clear();
	}

	/** The bytes as a body of chunks of the given size, sent with chunked encoding. */
	protected static Flux<DataBuffer> chunks(byte[] bytes, int chunkSize) {
		return Flux.range(0, (bytes.length + chunkSize - 1) / chunkSize).map((index) -> {
			int offset = index * chunkSize;
			int length = Math.min(chunkSize, bytes.length - offset);
			return DefaultDataBufferFactory.sharedInstance.allocateBuffer(length).write(bytes, offset, length);
		});
	}

	/** Post a form body and take the answer, whatever its status. */
	protected ResponseEntity<String> postForm(String uri, String form) {
		return this.client.post()
			.uri(uri)
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.bodyValue(form)
			.exchangeToMono((response) -> response.toEntity(String.class))
			.block();
	}

}
