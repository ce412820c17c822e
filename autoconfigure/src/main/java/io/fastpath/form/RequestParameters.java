package io.fastpath.form;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.util.Assert;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;

/**
 * Query and form parameters seen as one, query first, like a servlet request's
 * parameters. A view: neither side is copied or re-flattened, a lookup asks the query
 * map, then the form.
 *
 * @author Fastpath
 * @see #from(ServerWebExchange)
 */
public final class RequestParameters {

	private final MultiValueMap<String, String> query;

	private final FormParameters form;

	/**
	 * Create a view over the given query and form parameters.
	 * @param query the query parameters
	 * @param form the form parameters
	 */
	public RequestParameters(MultiValueMap<String, String> query, FormParameters form) {
		Assert.notNull(query, "Query parameters must not be null");
		Assert.notNull(form, "Form parameters must not be null");
		this.query = query;
		this.form = form;
	}

	/**
	 * Return the query and form parameters of the given exchange; reading the form reads
	 * the body, once per request.
	 * @param exchange the exchange
	 * @return its parameters
	 */
	public static Mono<RequestParameters> from(ServerWebExchange exchange) {
		return FormParameters.from(exchange)
			.map(form -> new RequestParameters(exchange.getRequest().getQueryParams(), form));
	}

	/**
	 * Return the first value with the given name: from the query if it has the name, else
	 * from the form.
	 * @param name the decoded name
	 * @return the value, or {@code null} if there is none or it is {@code null}
	 */
	public @Nullable String getFirst(String name) {
		List<String> queryValues = this.query.get(name);
		if (queryValues != null && !queryValues.isEmpty()) {
			return queryValues.get(0);
		}
		return this.form.getFirst(name);
	}

	/**
	 * Return every value with the given name: the query's, then the form's.
	 * @param name the decoded name
	 * @return the values, empty if there are none
	 */
	public List<@Nullable String> getAll(String name) {
		List<String> queryValues = this.query.get(name);
		List<@Nullable String> formValues = this.form.getAll(name);
		if (queryValues == null || queryValues.isEmpty()) {
			return formValues;
		}
		if (formValues.isEmpty()) {
			return Collections.unmodifiableList(queryValues);
		}
		List<@Nullable String> values = new ArrayList<>(queryValues.size() + formValues.size());
		values.addAll(queryValues);
		values.addAll(formValues);
		return Collections.unmodifiableList(values);
	}

	/**
	 * Return whether the query or the form has the given name.
	 * @param name the decoded name
	 * @return {@code true} if either has it
	 */
	public boolean contains(String name) {
		return this.query.containsKey(name) || this.form.contains(name);
	}

	/**
	 * Return the distinct names, the query's first, in the order they first appear.
	 * @return the names
	 */
	public Set<String> names() {
		if (this.form.isEmpty()) {
			return Collections.unmodifiableSet(this.query.keySet());
		}
		Set<String> names = new LinkedHashSet<>(this.query.keySet());
		names.addAll(this.form.names());
		return Collections.unmodifiableSet(names);
	}

	/**
	 * Return the query parameters.
	 * @return the query side
	 */
	public MultiValueMap<String, String> getQuery() {
		return this.query;
	}

	/**
	 * Return the form parameters.
	 * @return the form side
	 */
	public FormParameters getForm() {
		return this.form;
	}

	@Override
	public String toString() {
		return "RequestParameters" + names();
	}

}
