package io.fastpath.aot;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;

import io.fastpath.form.FormParam;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints Fastpath's registrars contribute to a native image, loaded as Spring's AOT
 * engine loads them (from {@code META-INF/spring/aot.factories}), checked with
 * {@link RuntimeHintsPredicates}.
 */
class RuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@BeforeEach
	void registerFastpathHints() {
		List<RuntimeHintsRegistrar> registrars = AotServices.factories().load(RuntimeHintsRegistrar.class).asList();
		registrars.stream()
			.filter((registrar) -> registrar.getClass().getName().startsWith("io.fastpath."))
			.forEach((registrar) -> registrar.registerHints(this.hints, getClass().getClassLoader()));
	}

	@Test
	void formParamCanBeReadAndSynthesizedAsAMergedAnnotation() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(FormParam.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(FormParam.class)).accepts(this.hints);
		// The proxy hint is needed: Spring synthesizes @FormParam as a proxy (value and name are aliases)
		Method method = RuntimeHintsTests.class.getDeclaredMethod("handler", String.class);
		FormParam formParam = MergedAnnotations.from(method.getParameters()[0])
			.get(FormParam.class)
			.synthesize();
		assertThat(formParam.name()).isEqualTo("city");
		assertThat(Proxy.isProxyClass(formParam.getClass())).isTrue();
	}

	@Test
	void classesLookedUpByNameAreRegistered() {
		for (String name : new String[] { "io.netty.buffer.ByteBuf", "tools.jackson.databind.ObjectMapper" }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(name))).as(name)
				.accepts(this.hints);
		}
	}

	@Test
	void fastpathsRegistrarsAreTheOnesListedForSpringsAotEngine() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class).asList())
			.extracting((registrar) -> registrar.getClass().getName())
			.filteredOn((name) -> name.startsWith("io.fastpath."))
			.containsExactlyInAnyOrder("io.fastpath.buffer.AggregatorRuntimeHints",
					"io.fastpath.form.FormParamRuntimeHints", "io.fastpath.multipart.MultipartRuntimeHints",
					"io.fastpath.json.FastpathJsonDecoderRuntimeHints");
	}

	@Test
	void theStockPartReadersSettingsCanBeRead() throws ClassNotFoundException {
		for (String field : new String[] { "maxDiskUsagePerPart", "maxParts", "maxHeadersSize", "headersCharset",
				"fileStorage", "blockingOperationScheduler" }) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onFieldAccess(ReflectionUtils.findField(DefaultPartHttpMessageReader.class, field))).as(field)
				.accepts(this.hints);
		}
		for (String storage : new String[] { "PathFileStorage", "TempFileStorage" }) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onMethodInvocation("org.springframework.http.codec.multipart.FileStorage$" + storage, "directory"))
				.as(storage)
				.accepts(this.hints);
		}
	}

	@Test
	void theStockPartEventReadersSettingsCanBeRead() {
		for (String field : new String[] { "maxHeadersSize", "maxParts", "maxPartSize", "headersCharset" }) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onFieldAccess(ReflectionUtils.findField(PartEventHttpMessageReader.class, field))).as(field)
				.accepts(this.hints);
		}
	}

	@SuppressWarnings("unused")
	private void handler(@FormParam("city") String city) {
	}

}
