package io.fastpath.form;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * The files that the multipart readers of one request spooled parts to, for
 * {@link PartFilesWebFilter} to delete when the request's handling ends, however it ends.
 * Spring deletes the parts of {@code getMultipartData()} only when the handling completes
 * or fails ({@code cleanupMultipart}), not when it is cancelled (a client that resets),
 * and nothing deletes the parts of any other path; the readers find this in the Reactor
 * context of whoever reads the body, which the filter's handling is.
 *
 * @author Fastpath
 */
final class PartFiles {

	private static final Log logger = LogFactory.getLog(PartFiles.class);

	/** Made with the first file: most multipart requests spool none. */
	private @Nullable List<SpooledPart.Spool> spools;

	private boolean deleted;

	/**
	 * The files of the request whose body is read in the given context, if a
	 * {@link PartFilesWebFilter} handles it.
	 * @param context the context of the body's reader
	 * @return the files, or {@code null}
	 */
	static @Nullable PartFiles of(ContextView context) {
		return context.getOrDefault(PartFiles.class, null);
	}

	/**
	 * Keep a spool for deletion; deleted at once if the request's handling already ended.
	 * @param spool the spool
	 */
	void add(SpooledPart.Spool spool) {
		synchronized (this) {
			if (!this.deleted) {
				List<SpooledPart.Spool> kept = this.spools;
				if (kept == null) {
					kept = new ArrayList<>(2);
					this.spools = kept;
				}
				kept.add(spool);
				return;
			}
		}
		delete(spool);
	}

	/**
	 * The request's handling ended: a file added from now on is deleted at once.
	 * @return whether files were kept, for {@link #deleteAll()} to delete
	 */
	synchronized boolean end() {
		this.deleted = true;
		return this.spools != null;
	}

	/**
	 * Delete every file kept. A file that cannot be deleted is logged, not thrown, as
	 * Spring's {@code cleanupMultipart} ignores a part's failed delete: the request is
	 * over, and nobody is there to handle it.
	 */
	void deleteAll() {
		List<SpooledPart.Spool> kept;
		synchronized (this) {
			kept = this.spools;
			this.spools = null;
		}
		if (kept != null) {
			kept.forEach(PartFiles::delete);
		}
	}

	private static void delete(SpooledPart.Spool spool) {
		try {
			spool.delete();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not delete a multipart file at the end of its request", ex);
		}
	}

}
