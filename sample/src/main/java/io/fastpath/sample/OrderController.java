package io.fastpath.sample;

import java.math.BigDecimal;
import java.util.List;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Request bodies read with {@code @RequestBody}: one order, a JSON array of orders as a
 * {@code List} (parsed in place) and as a {@code Flux} (elements as they arrive), and an
 * array of numbers as {@code long[]} (no boxing); and a response body written from a
 * {@code Flux}. Plain Spring code: Fastpath serves it
 * without a change.
 */
@RestController
class OrderController {

	@PostMapping("/orders")
	Receipt order(@RequestBody Order order) {
		return new Receipt(order.id(), order.lines().size(), order.total());
	}

	@PostMapping("/orders/batch")
	Summary batch(@RequestBody List<Order> orders) {
		return Summary.of(orders);
	}

	@PostMapping("/orders/stream")
	Mono<Summary> stream(@RequestBody Flux<Order> orders) {
		return orders.reduce(Summary.EMPTY, Summary::plus);
	}

	@PostMapping("/orders/ids")
	IdSummary ids(@RequestBody long[] ids) {
		long sum = 0;
		for (long id : ids) {
			sum += id;
		}
		return new IdSummary(ids.length, sum);
	}

	/**
	 * A downstream JSON array service: {@code count} made-up orders. {@link CatalogClient}
	 * calls it, so the sample is its own downstream.
	 */
	@GetMapping("/catalog/orders")
	List<Order> catalog(@RequestParam(defaultValue = "100") int count) {
		return Order.examples(Math.min(count, 10_000));
	}

	/**
	 * Recent orders, as a reactive repository gives them: a {@code Flux} built per request,
	 * written as a JSON array, NDJSON or server-sent events, as the client accepts.
	 */
	@GetMapping(path = "/orders/recent", produces = { MediaType.APPLICATION_JSON_VALUE,
			MediaType.APPLICATION_NDJSON_VALUE, MediaType.TEXT_EVENT_STREAM_VALUE })
	Flux<Order> recent(@RequestParam(defaultValue = "100") int count) {
		return Flux.fromIterable(Order.examples(Math.min(count, 10_000)));
	}

	@PostMapping(path = "/echo", consumes = "text/plain", produces = "text/plain")
	String echo(@RequestBody String text) {
		return text;
	}

	/**
	 * What the service answers for an order.
	 *
	 * @param orderId the order's identifier
	 * @param lines how many lines it had
	 * @param total what it costs
	 */
	record Receipt(String orderId, int lines, BigDecimal total) {

	}

	/**
	 * What the service answers for an array of identifiers.
	 *
	 * @param count how many
	 * @param sum their sum
	 */
	record IdSummary(int count, long sum) {

	}

}
