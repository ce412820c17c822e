/**
 * Multipart forms read in one scan of the body: the readers that
 * {@link io.fastpath.form.LazyFormDecoding} puts in place of Spring's part, part event
 * and multipart data readers, the parts they make (in memory or spooled to a file), and
 * {@link io.fastpath.multipart.PartFilesWebFilter}, which deletes a request's part files
 * when its handling ends. Free of Spring Boot, so plain Spring WebFlux applications can
 * use it.
 */
@NullMarked
package io.fastpath.multipart;

import org.jspecify.annotations.NullMarked;
