/**
 * JSON writing in batches with Jackson Databind:
 * {@link io.fastpath.json.write.JsonBatchEncoding}, the decorator that puts batching
 * writers in place of the stock Jackson JSON encoder's writer and the server-sent event
 * writer, for {@code Flux} bodies as JSON arrays, NDJSON and events. Free of Spring Boot,
 * so plain Spring WebFlux applications can use it.
 */
@NullMarked
package io.fastpath.json.write;

import org.jspecify.annotations.NullMarked;
