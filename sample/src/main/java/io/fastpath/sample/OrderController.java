package io.fastpath.sample;

import java.math.BigDecimal;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Whole request bodies read with {@code @RequestBody}: Fastpath aggregates them without a
 * copy when they arrive in one buffer, with one copy otherwise.
 */
@RestController
class OrderController {

	@PostMapping("/orders")
	Receipt order(@RequestBody Order order) {
		BigDecimal total = order.lines()
			.stream()
			.map((line) -> line.unitPrice().multiply(BigDecimal.valueOf(line.quantity())))
			.reduce(BigDecimal.ZERO, BigDecimal::add);
		return new Receipt(order.id(), order.lines().size(), total);
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

}
