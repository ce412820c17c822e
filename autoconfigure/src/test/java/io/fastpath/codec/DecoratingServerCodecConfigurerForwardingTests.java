package io.fastpath.codec;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.http.codec.CodecConfigurer;
import org.springframework.http.codec.ServerCodecConfigurer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DecoratingServerCodecConfigurer} forwards every method of
 * {@link ServerCodecConfigurer}, {@link ServerCodecConfigurer.ServerDefaultCodecs} and
 * {@link CodecConfigurer.CustomCodecs} by hand: when Spring adds one, this fails until it
 * is forwarded (an abstract one would not compile; a default one would silently do the
 * interface's default on the decorator instead of configuring the delegate). Default
 * methods are forwarded too, unless listed in {@link #INHERITED_DEFAULTS} with the reason
 * why the interface's default is right.
 */
class DecoratingServerCodecConfigurerForwardingTests {

	/**
	 * Default methods the decorator deliberately inherits, as "Interface#method": none.
	 * A default method that only calls others of the same interface (which are forwarded)
	 * could be listed here.
	 */
	private static final Set<String> INHERITED_DEFAULTS = Set.of();

	private final DecoratingServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(
			ServerCodecConfigurer.create(), List.of());

	@Test
	void forwardsEveryMethodOfTheServerCodecConfigurer() {
		assertThat(notForwarded(ServerCodecConfigurer.class, DecoratingServerCodecConfigurer.class)).isEmpty();
	}

	@Test
	void forwardsEveryMethodOfItsDefaultCodecs() {
		assertThat(notForwarded(ServerCodecConfigurer.ServerDefaultCodecs.class,
				this.decorating.defaultCodecs().getClass()))
			.isEmpty();
	}

	@Test
	void forwardsEveryMethodOfItsCustomCodecs() {
		assertThat(notForwarded(CodecConfigurer.CustomCodecs.class, this.decorating.customCodecs().getClass()))
			.isEmpty();
	}

	@Test
	void aMethodNotForwardedIsReported() {
		// The check itself, on a planted gap: Runnable's run() declared nowhere but in the interface.
		abstract class Gap implements Runnable {

		}
		assertThat(notForwarded(Runnable.class, Gap.class)).containsExactly("Runnable#run");
	}

	/** The interface's methods, inherited ones included, that the class does not declare. */
	private static List<String> notForwarded(Class<?> api, Class<?> forwarding) {
		return Arrays.stream(api.getMethods())
			.filter((method) -> !Modifier.isStatic(method.getModifiers()))
			.filter((method) -> !declares(forwarding, method))
			.map((method) -> method.getDeclaringClass().getSimpleName() + "#" + method.getName())
			.filter((name) -> !INHERITED_DEFAULTS.contains(name))
			.distinct()
			.sorted()
			.toList();
	}

	private static boolean declares(Class<?> type, Method method) {
		try {
			Method declared = type.getDeclaredMethod(method.getName(), method.getParameterTypes());
			return !declared.isSynthetic() || !Modifier.isAbstract(declared.getModifiers());
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
	}

}
