package io.fastpath.sample;

import java.math.BigDecimal;
import java.util.List;

/**
 * An order as clients post it.
 *
 * @param id the order's identifier
 * @param customer who ordered
 * @param lines what was ordered
 */
public record Order(String id, String customer, List<Line> lines) {

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
