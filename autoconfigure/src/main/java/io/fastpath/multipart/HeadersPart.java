package io.fastpath.multipart;

import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.multipart.Part;
import org.springframework.util.Assert;

import io.fastpath.multipart.scan.PartHeaders;

/**
 * A part of the headers it arrived with, read as {@link PartHeaders}: its name, its
 * headers built when first asked for, and its filename for a file part. What a part in
 * memory ({@link MemoryPart}) and a part on disk ({@link SpooledPart}) have alike.
 *
 * @author Fastpath
 */
abstract class HeadersPart implements Part {

	private final PartHeaders headers;

	HeadersPart(PartHeaders headers) {
		this.headers = headers;
	}

	@Override
	public String name() {
		return this.headers.name();
	}

	@Override
	public HttpHeaders headers() {
		return this.headers.headers();
	}

	PartHeaders partHeaders() {
		return this.headers;
	}

	/**
	 * The filename of a file part, as {@code FilePart#filename()} gives it.
	 * @return the filename
	 * @throws IllegalStateException if the disposition has none
	 */
	String filenameOfFile() {
		String filename = this.headers.filename();
		Assert.state(filename != null, "No filename found");
		return filename;
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "{" + this.headers.disposition().getName() + "}";
	}

}
