/**
 * Spring Boot auto-configuration for Fastpath: the only package that knows about Boot.
 */
@NullMarked
package io.fastpath.autoconfigure;

import org.jspecify.annotations.NullMarked;
