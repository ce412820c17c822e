/**
 * Fast JSON decoding with Jackson Databind: {@link io.fastpath.json.FastpathJsonDecoder}
 * and the decorator that puts it in place of the stock Jackson JSON reader. Free of
 * Spring Boot, so plain Spring WebFlux applications can use it.
 */
@NullMarked
package io.fastpath.json;

import org.jspecify.annotations.NullMarked;
