/**
 * Lazy {@code application/x-www-form-urlencoded} parameters:
 * {@link io.fastpath.form.FormParameters} (one scan of the body, names and values decoded
 * only when read), the reader that puts it behind {@code ServerWebExchange.getFormData()},
 * {@link io.fastpath.form.FormParam @FormParam} controller arguments and the merged
 * query + form {@link io.fastpath.form.RequestParameters}. Free of Spring Boot, so plain
 * Spring WebFlux applications can use it.
 */
@NullMarked
package io.fastpath.form;

import org.jspecify.annotations.NullMarked;
