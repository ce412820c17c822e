package io.fastpath.form;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

/**
 * The form data map that {@link LazyFormHttpMessageReader} hands to
 * {@code ServerWebExchange.getFormData()}: lookups by name ({@link #getFirst},
 * {@link #get}, {@link #containsKey}) go straight to the {@link FormParameters}, without
 * building a map. Iteration and other whole-map reads use the parameters' cached
 * read-only map. The first modification copies the fields into a
 * {@link LinkedMultiValueMap} of its own, so the map is as modifiable as stock's; until
 * then, lists and views it returns are read-only.
 *
 * @author Fastpath
 */
@SuppressWarnings("NullAway")
final class FormDataMap implements MultiValueMap<String, String> {

	private final FormParameters parameters;

	private @Nullable LinkedMultiValueMap<String, String> modified;

	FormDataMap(FormParameters parameters) {
		this.parameters = parameters;
	}

	FormParameters getParameters() {
		return this.parameters;
	}

	/**
	 * Whether the map was modified: then it, not the parameters, holds the fields.
	 */
	boolean isModified() {
		return this.modified != null;
	}

	@SuppressWarnings("unchecked")
	private MultiValueMap<String, String> readable() {
		MultiValueMap<String, String> modified = this.modified;
		return (modified != null ? modified : (MultiValueMap<String, String>) (MultiValueMap<?, ?>) this.parameters
			.toMultiValueMap());
	}

	@SuppressWarnings("unchecked")
	private MultiValueMap<String, String> writable() {
		LinkedMultiValueMap<String, String> modified = this.modified;
		if (modified == null) {
			modified = (LinkedMultiValueMap<String, String>) (LinkedMultiValueMap<?, ?>) this.parameters
				.newMultiValueMap();
			this.modified = modified;
		}
		return modified;
	}

	@Override
	public @Nullable String getFirst(String key) {
		return (this.modified != null ? this.modified.getFirst(key) : this.parameters.getFirst(key));
	}

	@Override
	public @Nullable List<String> get(Object key) {
		if (this.modified != null) {
			return this.modified.get(key);
		}
		if (!(key instanceof String name)) {
			return null;
		}
		List<String> values = this.parameters.getAll(name);
		return (values.isEmpty() ? null : values);
	}

	@Override
	public boolean containsKey(Object key) {
		if (this.modified != null) {
			return this.modified.containsKey(key);
		}
		return (key instanceof String name && this.parameters.contains(name));
	}

	@Override
	public boolean isEmpty() {
		return (this.modified != null ? this.modified.isEmpty() : this.parameters.isEmpty());
	}

	@Override
	public int size() {
		return readable().size();
	}

	@Override
	public boolean containsValue(Object value) {
		return readable().containsValue(value);
	}

	@Override
	public Set<String> keySet() {
		return readable().keySet();
	}

	@Override
	public Collection<List<String>> values() {
		return readable().values();
	}

	@Override
	public Set<Map.Entry<String, List<String>>> entrySet() {
		return readable().entrySet();
	}

	@Override
	public void forEach(BiConsumer<? super String, ? super List<String>> action) {
		readable().forEach(action);
	}

	@Override
	public Map<String, String> toSingleValueMap() {
		return readable().toSingleValueMap();
	}

	@Override
	public void add(String key, @Nullable String value) {
		writable().add(key, value);
	}

	@Override
	public void addAll(String key, List<? extends String> values) {
		writable().addAll(key, values);
	}

	@Override
	public void addAll(MultiValueMap<String, String> values) {
		writable().addAll(values);
	}

	@Override
	public void set(String key, @Nullable String value) {
		writable().set(key, value);
	}

	@Override
	public void setAll(Map<String, String> values) {
		writable().setAll(values);
	}

	@Override
	public @Nullable List<String> put(String key, List<String> value) {
		return writable().put(key, value);
	}

	@Override
	public @Nullable List<String> remove(Object key) {
		return writable().remove(key);
	}

	@Override
	public void putAll(Map<? extends String, ? extends List<String>> map) {
		writable().putAll(map);
	}

	@Override
	public void clear() {
		writable().clear();
	}

	/**
	 * Equal to a map of the same fields. A form with a field invalid in its charset has no
	 * such map (reading it is a {@link MalformedFormDataException}), so it equals only
	 * itself: comparing never throws.
	 */
	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		try {
			return readable().equals(other);
		}
		catch (MalformedFormDataException ex) {
			return false;
		}
	}

	@Override
	public int hashCode() {
		try {
			return readable().hashCode();
		}
		catch (MalformedFormDataException ex) {
			return System.identityHashCode(this);
		}
	}

	/**
	 * Show the fields as stock Spring's map would, without throwing: bytes invalid in the
	 * charset are shown as U+FFFD, and nothing is decoded for good.
	 */
	@Override
	public String toString() {
		MultiValueMap<String, String> modified = this.modified;
		return (modified != null ? modified.toString() : this.parameters.toDisplayMap().toString());
	}

}
