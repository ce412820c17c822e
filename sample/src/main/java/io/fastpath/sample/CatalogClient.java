package io.fastpath.sample;

import java.util.List;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.env.Environment;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Calls the downstream order catalog with the {@code WebClient} built from Boot's
 * {@code WebClient.Builder}, whose non-stream bodies ({@code bodyToMono},
 * {@code toEntityList}) Fastpath reads. The downstream is this application itself unless
 * {@code sample.catalog-url} names another.
 */
@Component
class CatalogClient {

	private final WebClient.Builder builder;

	private final Environment environment;

	private final String catalogUrl;

	private volatile WebClient client;

	CatalogClient(WebClient.Builder builder, Environment environment,
			@Value("${sample.catalog-url:}") String catalogUrl) {
		this.builder = builder;
		this.environment = environment;
		this.catalogUrl = catalogUrl;
	}

	Mono<List<Order>> orders(int count) {
		return client().get()
			.uri((uri) -> uri.path("/catalog/orders").queryParam("count", count).build())
			.retrieve()
			.bodyToMono(Order.LIST);
	}

	Mono<ResponseEntity<List<Order>>> ordersEntity(int count) {
		return client().get()
			.uri((uri) -> uri.path("/catalog/orders").queryParam("count", count).build())
			.retrieve()
			.toEntityList(Order.class);
	}

	private WebClient client() {
		WebClient client = this.client;
		if (client == null) {
			// The port is known only once the server has started, after this bean was made
			String baseUrl = this.catalogUrl.isEmpty()
					? "http://localhost:" + this.environment.getProperty("local.server.port", "8080") : this.catalogUrl;
			client = this.builder.clone().baseUrl(baseUrl).build();
			this.client = client;
		}
		return client;
	}

}
