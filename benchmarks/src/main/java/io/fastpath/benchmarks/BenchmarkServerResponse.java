package io.fastpath.benchmarks;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.server.reactive.AbstractServerHttpResponse;

/**
 * A server response that is never written, without spring-test's mock (not on the
 * benchmark classpath): a decoder's server hints are asked for with a request and its
 * response.
 */
final class BenchmarkServerResponse extends AbstractServerHttpResponse {

	BenchmarkServerResponse() {
		super(DefaultDataBufferFactory.sharedInstance);
	}

	@Override
	public <T> T getNativeResponse() {
		throw new UnsupportedOperationException();
	}

	@Override
	protected Mono<Void> writeWithInternal(Publisher<? extends DataBuffer> body) {
		return Mono.error(new UnsupportedOperationException("Never written"));
	}

	@Override
	protected Mono<Void> writeAndFlushWithInternal(Publisher<? extends Publisher<? extends DataBuffer>> body) {
		return Mono.error(new UnsupportedOperationException("Never written"));
	}

	@Override
	protected void applyStatusCode() {
	}

	@Override
	protected void applyHeaders() {
	}

	@Override
	protected void applyCookies() {
	}

}
