package io.fastpath.form;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.method.HandlerMethod;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link PlainPartArguments}: a {@code @FormParam} on a plain part argument that
 * WebFlux's own request part resolver would bind otherwise than it reads is refused.
 */
class PlainPartArgumentsTests {

	@Test
	void plainFilePartNamedAsItsParameterAndRequiredIsBoundAsWritten() {
		assertThatCode(() -> check("named")).doesNotThrowAnyException();
	}

	@Test
	void optionalListAndTextArgumentsAreFastpathsToBindWhateverTheyName() {
		assertThatCode(() -> check("others")).doesNotThrowAnyException();
	}

	@Test
	void plainFilePartNamingAnotherFieldIsRefusedWithWhatToWriteInstead() {
		assertThatIllegalStateException().isThrownBy(() -> check("renamed"))
			.withMessageContaining("parameter 'upload' of Controller#renamed")
			.withMessageContaining("Optional<FilePart>");
	}

	@Test
	void optionalOrDefaultedPlainPartsAreRefused() {
		assertThatIllegalStateException().isThrownBy(() -> check("optional"))
			.withMessageContaining("parameter 'cover' of Controller#optional")
			.withMessageContaining("parameter 'extra' of Controller#optional");
	}

	@Test
	void monoOfAFilePartIsAPlainPartToo() {
		assertThatIllegalStateException().isThrownBy(() -> check("mono"))
			.withMessageContaining("parameter 'upload' of Controller#mono");
	}

	private static void check(String methodName) {
		Method method = List.of(ReflectionUtils.getDeclaredMethods(Controller.class))
			.stream()
			.filter((candidate) -> candidate.getName().equals(methodName))
			.findFirst()
			.orElseThrow();
		PlainPartArguments.check(List.of(new HandlerMethod(new Controller(), method)),
				ReactiveAdapterRegistry.getSharedInstance());
	}

	static class Controller {

		void named(@FormParam FilePart cover, @FormParam("cover2") Part cover2) {
		}

		void others(@FormParam("file") Optional<FilePart> upload, @FormParam("file") List<FilePart> uploads,
				@FormParam(name = "x", required = false) String text) {
		}

		void renamed(@FormParam("file") FilePart upload) {
		}

		void optional(@FormParam(required = false) FilePart cover, @FormParam(defaultValue = "none") Part extra) {
		}

		void mono(@FormParam("file") Mono<FilePart> upload) {
		}

	}

}
