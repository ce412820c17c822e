package io.fastpath.multipart;

import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.util.Assert;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Deletes the files that Fastpath's multipart readers spooled a request's parts to when
 * the request's handling ends: completed, failed or cancelled (a client that resets or
 * drops while its parts are held), and whichever way the application reached the parts:
 * {@code getMultipartData()}, {@code @RequestBody Mono<MultiValueMap<String, Part>>},
 * {@code BodyExtractors.toMultipartData()}. Spring deletes the parts of
 * {@code getMultipartData()} only when handling completes or fails, and nothing deletes
 * those of other paths. A part's file is deleted once, whoever gets there first; a part
 * kept past its request has no content left, as a part of {@code getMultipartData()}.
 * <p>It is ordered first, so that the readers of the request's body in filters after it
 * find it in the Reactor context. A part read before it (in a filter of the same highest
 * order registered before it, or an {@code HttpHandler} decorator) is not known to it:
 * {@code getMultipartData()} keeps the context of whoever reads it first, so such a
 * request's files are deleted by {@code cleanupMultipart} alone, as with stock. Boot's
 * auto-configuration registers it with Fastpath's multipart readers; an application that
 * registers the readers by hand registers it as a {@code WebFilter} bean. Parts read by
 * stock's readers ({@code Flux<Part>}) are not Fastpath's: their files stay the
 * application's to delete.
 *
 * @author Fastpath
 */
public final class PartFilesWebFilter implements WebFilter, Ordered {

	private static final String MULTIPART = "multipart/";

	/** The key of a request's files in the Reactor context. */
	private static final Class<PartFilesWebFilter> FILES = PartFilesWebFilter.class;

	private final Scheduler blocking;

	/**
	 * Create a filter that deletes files on Reactor's bounded elastic scheduler, as
	 * Spring's part reader does its blocking work.
	 */
	public PartFilesWebFilter() {
		this(Schedulers.boundedElastic());
	}

	/**
	 * Create a filter that deletes files on the given scheduler.
	 * @param blocking where the files are deleted: not an event loop
	 */
	public PartFilesWebFilter(Scheduler blocking) {
		Assert.notNull(blocking, "'blocking' must not be null");
		this.blocking = blocking;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (!isMultipart(exchange.getRequest().getHeaders().getFirst(HttpHeaders.CONTENT_TYPE))) {
			// no part to spool: nothing to keep, no context to write
			return chain.filter(exchange);
		}
		// Reactor's composite: a file added once it is disposed is deleted at once
		Disposable.Composite files = Disposables.composite();
		return chain.filter(exchange).doFinally((signal) -> {
			if (files.size() == 0) {
				files.dispose();
			}
			else {
				this.blocking.schedule(files::dispose);
			}
		}).contextWrite((context) -> context.put(FILES, files));
	}

	/**
	 * The files of the request whose body is read in the given context, if this filter
	 * handles it: a reader adds each file it spools a part to.
	 * @param context the context of the body's reader
	 * @return the files, or {@code null}
	 */
	static Disposable.@Nullable Composite filesOf(ContextView context) {
		return context.getOrDefault(FILES, null);
	}

	/** Whether the type is {@code multipart/*}, read without parsing it. */
	private static boolean isMultipart(@Nullable String contentType) {
		return contentType != null && contentType.regionMatches(true, 0, MULTIPART, 0, MULTIPART.length());
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
