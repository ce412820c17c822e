package io.fastpath.form;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.util.Assert;

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

	@Override
	public String value() {
		String decoded = this.value;
		if (decoded == null) {
			synchronized (this) {
				decoded = this.value;
				if (decoded == null) {
					decoded = decode();
					this.value = decoded;
				}
			}
		}
		return decoded;
	}

	private String decode() {
		Assert.state(!isDeleted(), "Part deleted before its value was read");
		Charset charset = charset(partHeaders().contentType());
		List<DataBuffer> pieces = pieces();
		if (pieces.isEmpty()) {
			return "";
		}
		if (pieces.size() == 1) {
			DataBuffer piece = pieces.get(0);
			return piece.toString(piece.readPosition(), piece.readableByteCount(), charset);
		}
		int length = 0;
		for (DataBuffer piece : pieces) {
			length += piece.readableByteCount();
		}
		byte[] bytes = new byte[length];
		int at = 0;
		for (DataBuffer piece : pieces) {
			int readable = piece.readableByteCount();
			piece.toByteBuffer(piece.readPosition(), ByteBuffer.wrap(bytes), at, readable);
			at += readable;
		}
		return new String(bytes, charset);
	}

	private static Charset charset(@Nullable MediaType contentType) {
		Charset charset = (contentType != null) ? contentType.getCharset() : null;
		return (charset != null) ? charset : StandardCharsets.UTF_8;
	}

}
