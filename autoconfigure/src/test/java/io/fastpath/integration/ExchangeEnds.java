package io.fastpath.integration;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Records how the handling of each request marked with a {@code fault} query parameter
 * ended (completed, failed or cancelled), so that a test can wait for the server to be
 * done with a request whose client went away, instead of sleeping and hoping it is.
 * Handling ends after the body's readers have seen the error and released what they
 * held.
 */
class ExchangeEnds implements WebFilter {

	private final Map<String, CompletableFuture<SignalType>> ends = new ConcurrentHashMap<>();

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String fault = exchange.getRequest().getQueryParams().getFirst("fault");
		if (fault == null) {
			return chain.filter(exchange);
		}
		return chain.filter(exchange).doFinally((signal) -> end(fault).complete(signal));
	}

	/**
	 * Wait for the handling of the request marked with the given fault id to end.
	 * @param fault the value of the request's {@code fault} query parameter
	 * @param timeout how long to wait at most
	 * @return how it ended
	 */
	SignalType awaitEnd(String fault, Duration timeout) throws Exception {
		return end(fault).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	private CompletableFuture<SignalType> end(String fault) {
		return this.ends.computeIfAbsent(fault, (key) -> new CompletableFuture<>());
	}

}
