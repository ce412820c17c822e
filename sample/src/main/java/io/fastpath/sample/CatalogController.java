package io.fastpath.sample;

import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Endpoints that call a downstream JSON array service through {@link CatalogClient}.
 */
@RestController
class CatalogController {

	private final CatalogClient catalog;

	CatalogController(CatalogClient catalog) {
		this.catalog = catalog;
	}

	@GetMapping("/catalog/summary")
	Mono<Summary> summary(@RequestParam(defaultValue = "100") int count) {
		return this.catalog.orders(count).map(Summary::of);
	}

	@GetMapping("/catalog/entity-summary")
	Mono<Summary> entitySummary(@RequestParam(defaultValue = "100") int count) {
		return this.catalog.ordersEntity(count).map((entity) -> Summary.of(entity.getBody()));
	}

}
