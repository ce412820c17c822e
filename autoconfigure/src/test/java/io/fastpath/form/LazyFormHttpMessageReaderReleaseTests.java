package io.fastpath.form;

import java.util.List;
import java.util.Map;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.NoDroppedErrorsExtension;
import io.fastpath.test.TransportBuffers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ContentTooLargeException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every buffer {@link LazyFormHttpMessageReader} receives is released exactly once, on
 * success, malformed input, too many fields, the size limit, a failing body and cancel,
 * also with another {@code DataBuffer} discard hook downstream (as WebFlux registers when
 * it writes the response). The transport's own reference is modelled (see
 * {@link TransportBuffers}), so a second release shows as a reference of the transport's
 * taken.
 */
@ExtendWith(NoDroppedErrorsExtension.class)
class LazyFormHttpMessageReaderReleaseTests {

	private static final ResolvableType FORM_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private final LeakTrackingDataBufferFactory.Heap factory = (LeakTrackingDataBufferFactory.Heap) LeakTrackingDataBufferFactory
		.heap();

	private final FormHttpMessageReader stock = new FormHttpMessageReader();

	private final LazyFormHttpMessageReader reader = new LazyFormHttpMessageReader(this.stock, 3);

	@Test
	void formReadInPiecesLeavesTheTransportItsReferences() {
		TransportBuffers body = TransportBuffers.of(this.factory, "a=1&", "b=%2", "02");
		StepVerifier.create(read(body.flux()))
			.assertNext((form) -> assertThat(form.getFirst("b")).isEqualTo(" 2"))
			.verifyComplete();
		body.assertReleasedOnceByReader();
	}

	@Test
	void formOfOneBufferLeavesTheTransportItsReference() {
		TransportBuffers body = TransportBuffers.of(this.factory, "a=1&b=2");
		StepVerifier.create(read(body.flux()))
			.assertNext((form) -> assertThat(form.getFirst("b")).isEqualTo("2"))
			.verifyComplete();
		body.assertReleasedOnceByReader();
	}

	@Test
	void malformedFormIsReleasedOnce() {
		for (String[] chunks : List.of(new String[] { "a=%G1" }, new String[] { "a=1&", "b=%G1" })) {
			TransportBuffers body = TransportBuffers.of(this.factory, chunks);
			StepVerifier.create(read(body.flux())).expectError(MalformedFormDataException.class).verify();
			body.assertReleasedOnceByReader();
		}
	}

	@Test
	void formWithTooManyFieldsIsReleasedOnce() {
		TransportBuffers body = TransportBuffers.of(this.factory, "a=1&b=2&", "c=3&d=4");
		StepVerifier.create(read(body.flux())).expectError(TooManyFormFieldsException.class).verify();
		body.assertReleasedOnceByReader();
	}

	@Test
	void formOverTheLimitIsReleasedOnce() {
		this.stock.setMaxInMemorySize(8);
		TransportBuffers body = TransportBuffers.of(this.factory, "a=1&", "b=2&", "c=3", "never read");
		StepVerifier.create(read(body.flux())).expectError(ContentTooLargeException.class).verify();
		body.assertReleasedOnceByReader();
	}

	@Test
	void formFailingMidwayIsReleasedOnce() {
		TransportBuffers body = TransportBuffers.of(this.factory, "a=1&", "b=2");
		StepVerifier.create(read(Flux.concat(body.flux(), Mono.error(new IllegalStateException("connection reset")))))
			.expectErrorMessage("connection reset")
			.verify();
		body.assertReleasedOnceByReader();
	}

	@Test
	void formCancelledMidwayIsReleasedOnce() {
		TransportBuffers body = TransportBuffers.of(this.factory, "a=1&", "b=2");
		StepVerifier.create(read(Flux.concat(body.flux(), Flux.never()))).expectSubscription().thenCancel().verify();
		body.assertReleasedOnceByReader();
	}

	private Mono<MultiValueMap<String, String>> read(Flux<DataBuffer> body) {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body(body);
		return this.reader.readMono(FORM_TYPE, request, Map.of()).doOnDiscard(DataBuffer.class, DataBufferUtils::release);
	}

}
