package io.fastpath.json;

import java.lang.ref.WeakReference;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BlackbirdTwins}.
 */
class BlackbirdTwinsTests {

	private final BlackbirdTwins twins = new BlackbirdTwins(BlackbirdTwins.Use.READING);

	@Test
	void twinHasTheMappersConfigurationAndBlackbird() {
		JsonMapper mapper = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
		JsonMapper twin = this.twins.mapperFor(mapper, Object.class);
		assertThat(twin).isNotSameAs(mapper);
		assertThat(twin.isEnabled(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)).isTrue();
		assertThat(twin.registeredModules()).anyMatch(BlackbirdModule.class::isInstance);
		assertThat(mapper.registeredModules()).noneMatch(BlackbirdModule.class::isInstance);
	}

	@Test
	void oneTwinPerApplicationMapperKeptAcrossCallsAndCollections() {
		JsonMapper mapper = JsonMapper.builder().build();
		JsonMapper twin = this.twins.mapperFor(mapper, Object.class);
		System.gc();
		assertThat(this.twins.mapperFor(mapper, Object.class)).isSameAs(twin);
		assertThat(this.twins.mapperFor(JsonMapper.builder().build(), Object.class)).isNotSameAs(twin);
	}

	@Test
	void twinDoesNotKeepItsApplicationMapperReachable() throws InterruptedException {
		// Keys are weak and the twin holds no reference to its mapper: an application
		// context's mapper is not kept by a decoder that outlives it. A forced collection is
		// a hint, so this checks a few times.
		JsonMapper mapper = JsonMapper.builder().build();
		JsonMapper twin = this.twins.mapperFor(mapper, Object.class);
		WeakReference<JsonMapper> reference = new WeakReference<>(mapper);
		mapper = null;
		for (int i = 0; i < 20 && reference.get() != null; i++) {
			System.gc();
			Thread.sleep(10);
		}
		assertThat(reference.get()).isNull();
		assertThat(twin).isNotNull();
	}

	@Test
	void mapperThatAlreadyHasBlackbirdIsReadWithAsItIs() {
		JsonMapper mapper = JsonMapper.builder().addModule(new BlackbirdModule()).build();
		assertThat(this.twins.mapperFor(mapper, Object.class)).isSameAs(mapper);
	}

	@Test
	void subclassOfJsonMapperIsReadWithAsItIs() {
		JsonMapper mapper = new CustomMapper();
		assertThat(this.twins.mapperFor(mapper, Object.class)).isSameAs(mapper);
		assertThat(this.twins.mapperFor(mapper, Object.class)).isSameAs(mapper);
	}

	static class CustomMapper extends JsonMapper {

	}

}
