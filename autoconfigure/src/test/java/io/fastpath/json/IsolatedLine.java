package io.fastpath.json;

import java.math.BigDecimal;

/**
 * A record that {@link CreatorOptimizationDifferentialTests} loads again in a class loader
 * of its own, as an application's type from another class loader (a plugin's, a
 * restarting development class loader's). Top-level, so that the copy has no nest host
 * in the other loader.
 *
 * @param sku the stock-keeping unit
 * @param quantity how many
 * @param price the price of one
 */
public record IsolatedLine(String sku, int quantity, BigDecimal price) {
}
