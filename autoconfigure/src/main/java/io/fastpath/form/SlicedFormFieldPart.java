package io.fastpath.form;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.FormFieldPart;

/**
 * A text field held as the pieces of the request buffers it arrived in, decoded to a
 * {@code String} in its charset ({@code Content-Type}'s, else UTF-8, as Spring's) only
 * when its value is asked for, once.
 *
 * @author Fastpath
 */
final class SlicedFormFieldPart extends SlicedPart implements FormFieldPart {

	private volatile @Nullable String value;

	SlicedFormFieldPart(PartHeaders headers, List<DataBuffer> pieces) {
		super(headers, pieces);
	}

	SlicedFormFieldPart(PartHeaders headers, DataBuffer viewed, int index, int length) {
		super(headers, viewed, index, length);
	}

	@Override
	public String value() {
		String decoded = this.value;
		if (decoded == null) {
			synchronized (this) {
				decoded = this.value;
				if (decoded == null) {
					decoded = decode(charset(partHeaders().contentType()));
					this.value = decoded;
				}
			}
		}
		return decoded;
	}

	private static Charset charset(@Nullable MediaType contentType) {
		Charset charset = (contentType != null) ? contentType.getCharset() : null;
		return (charset != null) ? charset : StandardCharsets.UTF_8;
	}

}
