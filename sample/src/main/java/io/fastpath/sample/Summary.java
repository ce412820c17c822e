package io.fastpath.sample;

import java.math.BigDecimal;
import java.util.List;

/**
 * What the service answers for several orders.
 *
 * @param orders how many orders
 * @param lines how many lines in all
 * @param total what they cost in all
 */
public record Summary(int orders, int lines, BigDecimal total) {

	static final Summary EMPTY = new Summary(0, 0, BigDecimal.ZERO);

	static Summary of(List<Order> orders) {
		Summary summary = EMPTY;
		for (Order order : orders) {
			summary = summary.plus(order);
		}
		return summary;
	}

	Summary plus(Order order) {
		return new Summary(this.orders + 1, this.lines + order.lines().size(), this.total.add(order.total()));
	}

}
