/**
 * Hooks that let Fastpath's readers take the place of stock ones in a server's codec
 * configurer and a client's exchange strategies. Free of Spring Boot.
 */
@NullMarked
package io.fastpath.codec;

import org.jspecify.annotations.NullMarked;
