/**
 * JMH benchmarks: each benchmark class has a {@code stock} and a {@code fastpath} method
 * measured on the same inputs; {@link io.fastpath.benchmarks.BenchmarkSuite} runs them and
 * prints the comparison.
 */
@NullMarked
package io.fastpath.benchmarks;

import org.jspecify.annotations.NullMarked;
