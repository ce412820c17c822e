package io.fastpath.form;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link FormDataMap}.
 */
class FormDataMapTests {

	private final FormParameters parameters = FormParameters.parse("a=1&b&a=2".getBytes(StandardCharsets.UTF_8),
			StandardCharsets.UTF_8, 1000);

	private final FormDataMap map = new FormDataMap(this.parameters);

	@Test
	void looksUpNamesWithoutBuildingAMap() {
		assertThat(this.map.getFirst("a")).isEqualTo("1");
		assertThat(this.map.get("a")).containsExactly("1", "2");
		assertThat(this.map.get("b")).containsExactly((String) null);
		assertThat(this.map.get("c")).isNull();
		assertThat(this.map.get(42)).isNull();
		assertThat(this.map.containsKey("b")).isTrue();
		assertThat(this.map.containsKey(42)).isFalse();
		assertThat(this.map.isEmpty()).isFalse();
		assertThat(this.parameters).extracting("multiValueMap").isNull();
	}

	@Test
	void readsTheWholeMapThroughTheParametersCachedMap() {
		assertThat(this.map.size()).isEqualTo(2);
		assertThat(this.map.keySet()).containsExactly("a", "b");
		assertThat(this.map.toSingleValueMap()).containsEntry("a", "1");
		Map<String, List<String>> seen = new LinkedHashMap<>();
		this.map.forEach(seen::put);
		assertThat(seen).containsOnlyKeys("a", "b");
		assertThat(this.map).hasToString("{a=[1, 2], b=[null]}");
		assertThat(this.parameters).extracting("multiValueMap").isNotNull();
	}

	@Test
	void equalsTheStockMapOfTheSameFieldsBothWays() {
		MultiValueMap<String, String> stock = new LinkedMultiValueMap<>();
		stock.add("a", "1");
		stock.add("b", null);
		stock.add("a", "2");
		assertThat(this.map).isEqualTo(stock);
		assertThat(stock).isEqualTo(this.map);
		assertThat(this.map.hashCode()).isEqualTo(stock.hashCode());
	}

	@Test
	void becomesModifiableOnTheFirstChangeLikeStock() {
		this.map.add("c", "3");
		this.map.set("a", "9");
		this.map.addIfAbsent("b", "no");
		assertThat(this.map.getFirst("a")).isEqualTo("9");
		assertThat(this.map.get("c")).containsExactly("3");
		assertThat(this.map.remove("b")).containsExactly((String) null);
		assertThat(this.map.keySet()).containsExactly("a", "c");
		this.map.clear();
		assertThat(this.map.isEmpty()).isTrue();
		assertThat(this.parameters.getAll("a")).containsExactly("1", "2");
	}

	@Test
	void handsOutReadOnlyListsUntilModified() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.map.get("a").add("3"));
		this.map.addAll("a", List.of("3"));
		this.map.get("a").add("4");
		assertThat(this.map.get("a")).containsExactly("1", "2", "3", "4");
	}

	@Test
	void formParametersOfAModifiedMapReadTheModifiedFields() {
		assertThat(FormParameters.of(this.map)).isSameAs(this.parameters);
		this.map.set("a", "clean");
		this.map.add("c", "3");
		FormParameters modified = FormParameters.of(this.map);
		assertThat(modified.getAll("a")).containsExactly("clean");
		assertThat(modified.getFirst("c")).isEqualTo("3");
		assertThat(modified.names()).containsExactly("a", "b", "c");
		assertThat(this.parameters.getAll("a")).containsExactly("1", "2");
	}

	@Test
	void toStringEqualsAndHashCodeDoNotThrowForAFieldInvalidInTheCharset() {
		FormParameters invalid = FormParameters.parse("p=%FF&q=1".getBytes(StandardCharsets.US_ASCII),
				StandardCharsets.UTF_8, 1000);
		FormDataMap map = new FormDataMap(invalid);
		assertThat(map).hasToString("{p=[\uFFFD], q=[1]}");
		assertThat(map.equals(new FormDataMap(invalid))).isFalse();
		assertThat(map.equals(map)).isTrue();
		assertThat(map.hashCode()).isEqualTo(map.hashCode());
		assertThat(map.getFirst("q")).isEqualTo("1");
		assertThatExceptionOfType(MalformedFormDataException.class).isThrownBy(() -> map.getFirst("p"));
	}

}
