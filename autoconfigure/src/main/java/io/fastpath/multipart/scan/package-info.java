/**
 * The wire format of a multipart body, for the readers of {@code io.fastpath.multipart}:
 * the scanner that finds the boundaries in linear work and hands on each part's content
 * as pieces of the buffers it arrived in, and the part headers it parses. Not an API for
 * applications.
 */
@NullMarked
package io.fastpath.multipart.scan;

import org.jspecify.annotations.NullMarked;
