package io.fastpath.integration;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Records the error that ended the handling of each request marked with a {@code trace}
 * query parameter, so that a test that got an error status can tell what failed on the
 * server: the error is recorded before the error handler turns it into a response, so
 * it is there when the client has the answer.
 */
class HandlingFailures implements WebFilter {

	private final Map<String, Throwable> failures = new ConcurrentHashMap<>();

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String trace = exchange.getRequest().getQueryParams().getFirst("trace");
		if (trace == null) {
			return chain.filter(exchange);
		}
		return chain.filter(exchange).doOnError((failure) -> this.failures.put(trace, failure));
	}

	/**
	 * The error that ended the handling of the request marked with the given trace id.
	 * @param trace the value of the request's {@code trace} query parameter
	 * @return the error, or {@code null} if handling did not end with one
	 */
	@Nullable Throwable failureOf(String trace) {
		return this.failures.get(trace);
	}

}
