package io.fastpath.test;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;

/**
 * Proves that the dropped-error check of the release tests can fail.
 */
class NoDroppedErrorsExtensionTests {

	private final ExtensionContext context = mock(ExtensionContext.class);

	private final NoDroppedErrorsExtension extension = new NoDroppedErrorsExtension();

	@Test
	void errorDroppedDuringATestFailsIt() {
		this.extension.beforeEach(this.context);
		Operators.onErrorDropped(new IllegalStateException("signalled after cancel"), Context.empty());
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> this.extension.afterEach(this.context))
			.withMessageContaining("errors Reactor dropped")
			.withMessageContaining("signalled after cancel");
	}

	@Test
	void testWithoutADroppedErrorPassesAndTheNextStartsClean() {
		this.extension.beforeEach(this.context);
		Operators.onErrorDropped(new IllegalStateException("signalled after cancel"), Context.empty());
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> this.extension.afterEach(this.context));
		this.extension.beforeEach(this.context);
		assertThatCode(() -> this.extension.afterEach(this.context)).doesNotThrowAnyException();
	}

}
