/**
 * Hooks that let Fastpath's readers and writers take the place of stock ones in a
 * server's codec configurer and a client's exchange strategies, and the listeners they
 * tell what they did ({@link io.fastpath.codec.ReadListener},
 * {@link io.fastpath.codec.WriteListener}). Free of Spring Boot.
 */
@NullMarked
package io.fastpath.codec;

import org.jspecify.annotations.NullMarked;
