package io.fastpath.sample;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import org.springframework.core.ParameterizedTypeReference;

/**
 * An order as clients post it.
 *
 * @param id the order's identifier
 * @param customer who ordered
 * @param lines what was ordered
 */
public record Order(String id, String customer, List<Line> lines) {

	/** The type of a list of orders, for {@code bodyToMono}. */
	static final ParameterizedTypeReference<List<Order>> LIST = new ParameterizedTypeReference<>() {
	};

	private static final String[] SKUS = { "tea", "cake", "scone", "jam" };

	/**
	 * Return what the order costs.
	 * @return the sum of its lines
	 */
	BigDecimal total() {
		BigDecimal total = BigDecimal.ZERO;
		for (Line line : this.lines) {
			total = total.add(line.unitPrice().multiply(BigDecimal.valueOf(line.quantity())));
		}
		return total;
	}

	/**
	 * Return made-up orders, the same every time.
	 * @param count how many
	 * @return the orders
	 */
	static List<Order> examples(int count) {
		List<Order> orders = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			List<Line> lines = new ArrayList<>();
			for (int j = 0; j <= i % 3; j++) {
				lines.add(new Line(SKUS[(i + j) % SKUS.length], 1 + j, BigDecimal.valueOf(150 + 25L * j, 2)));
			}
			orders.add(new Order("o-" + i, "customer-" + (i % 17), lines));
		}
		return orders;
	}

	/**
	 * One line of an order.
	 *
	 * @param sku the product
	 * @param quantity how many
	 * @param unitPrice the price of one
	 */
	public record Line(String sku, int quantity, BigDecimal unitPrice) {

	}

}
