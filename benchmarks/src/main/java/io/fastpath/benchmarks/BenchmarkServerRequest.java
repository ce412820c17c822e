package io.fastpath.benchmarks;

import java.net.URI;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.http.server.reactive.SslInfo;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

/**
 * A server request, without spring-test's mock (not on the benchmark classpath): Fastpath's
 * form reader reads server requests only. Built once and given a new body per operation,
 * so that benchmarks measure readers rather than the parsing of the request path, which
 * stock and Fastpath would pay alike.
 */
final class BenchmarkServerRequest extends AbstractServerHttpRequest {

	private Flux<DataBuffer> body = Flux.empty();

	BenchmarkServerRequest(URI uri, HttpHeaders headers) {
		super(HttpMethod.POST, uri, null, headers);
	}

	/**
	 * Use the given body from now on.
	 * @param body the body
	 * @return this request
	 */
	BenchmarkServerRequest withBody(Flux<DataBuffer> body) {
		this.body = body;
		return this;
	}

	@Override
	protected MultiValueMap<String, HttpCookie> initCookies() {
		return new LinkedMultiValueMap<>();
	}

	@Override
	protected @Nullable SslInfo initSslInfo() {
		return null;
	}

	@Override
	public <T> T getNativeRequest() {
		throw new UnsupportedOperationException();
	}

	@Override
	public Flux<DataBuffer> getBody() {
		return this.body;
	}

}
