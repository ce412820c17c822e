package io.fastpath.multipart.scan;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.util.Assert;

/**
 * One pass over a multipart body, buffer by buffer: finds the boundaries (a delimiter
 * split across buffers is found too), parses each part's headers once, and hands each
 * part's content on as pieces of the buffers it arrived in, never copied: retained views
 * of a Netty buffer, split off a heap buffer. It reads what Spring's
 * {@code MultipartParser} reads, the same way: the first {@code --boundary} anywhere ends
 * the preamble, a part's headers end at the first blank line (CRLF only) and its lines
 * without a colon are ignored, {@code --} right after a boundary ends the body and the
 * epilogue is ignored, and a body that ends before the closing boundary is a
 * {@link DecodingException}.
 * <p>The delimiter is looked for with a Boyer–Moore–Horspool search: a boundary is long
 * and its last byte rare in content, so it mostly reads one byte in every delimiter
 * length. A sender can make that search compare most of the delimiter at every position
 * (a periodic boundary over content of its period, {@code aaaa…} under a boundary of
 * {@code aaaa…}), so it counts the bytes it compares: once they are more than the bytes
 * it has moved over and a delimiter's length, it goes on with a Knuth–Morris–Pratt search
 * from where it is, which reads each byte once (a read of a buffer that starts with
 * nothing of the delimiter matched skips to its first byte with a search of its own,
 * Netty's for Netty buffers, which may read a word past it), until the delimiter is
 * found; the count is carried from buffer to buffer, so the budget is the search's, not
 * each buffer's, whatever sizes the buffers come in. The bytes at the end of a buffer
 * that may start a delimiter are found, and a delimiter begun in one buffer is carried
 * into the next, the Knuth–Morris–Pratt way too: the bytes held are always the start of
 * the delimiter, so what is carried is how many of its bytes matched, never a copy. The
 * scan of a body reads each of its bytes a constant number of times, plus at most a few
 * delimiter lengths per buffer and per part, whatever the body, and a part's headers
 * twice at most (to find their end, and to copy them).
 * <p>Not thread-safe: its owner feeds it one buffer at a time. Public for the readers of
 * {@code io.fastpath.multipart}, not an API for applications.
 *
 * @author Fastpath
 */
public final class MultipartScanner {

	/** Where the parts go. */
	public interface Parts {

		/**
		 * A part starts.
		 * @param headers its headers
		 * @throws RuntimeException if the part is refused: one too many, or malformed (a
		 * {@code DecodingException} for a header that cannot be parsed)
		 */
		void headers(PartHeaders headers);

		/**
		 * Content of the current part, in order; never empty.
		 * @param piece the bytes, owned by the callee from now on, also when it throws
		 */
		void content(DataBuffer piece);

		/**
		 * Content of the current part, in order, as {@code length} bytes from
		 * {@code index} of a Netty buffer the scanner goes on reading; never none. The
		 * buffer stays the scanner's: what keeps the bytes retains it, or a view of them.
		 * By default, a {@link #view} of them as {@link #content(DataBuffer)}.
		 * @param buffer the buffer
		 * @param index where the content starts in it
		 * @param length its length
		 */
		default void content(DataBuffer buffer, int index, int length) {
			content(view(buffer, index, length));
		}

		/**
		 * A retained view of bytes of a buffer read on behind them.
		 * @param buffer the buffer
		 * @param index where the bytes start in it
		 * @param length how many
		 * @return the view, the caller's to release
		 */
		@SuppressWarnings("deprecation")
		static DataBuffer view(DataBuffer buffer, int index, int length) {
			// retainedSlice is deprecated for split(), which would also make the rest of the
			// buffer a new slice, at every part
			return buffer.retainedSlice(index, length);
		}

		/** The current part ends. */
		void end();

	}

	private enum State {

		PREAMBLE, HEADERS, BODY, DONE

	}

	private static final byte[] CRLF = { '\r', '\n' };

	/** The blank line that ends a part's headers, CRLFCRLF, as four bytes of an int. */
	private static final int CRLF_CRLF = 0x0D0A0D0A;

	/** The two hyphens that end the body in place of a part's headers, as two bytes of an int. */
	private static final int HYPHENS = ('-' << 8) | '-';

	/** The bytes of a delimiter before its boundary: CRLF and two hyphens. */
	private static final int DELIMITER_PREFIX = 4;

	private static final byte[] NO_BYTES = {};

	/** The size of {@link #headerBytes} when first made. */
	private static final int HEADER_BYTES = 128;

	private final Delimiter firstBoundary;

	private final Delimiter delimiter;

	private final int maxHeadersSize;

	private final Charset headersCharset;

	private final Parts parts;

	private State state = State.PREAMBLE;

	/**
	 * Buffers whose bytes may be the start of a delimiter; together fewer than its length.
	 * Made when a buffer first ends in a possible delimiter.
	 */
	private @Nullable ArrayDeque<DataBuffer> pending;

	/**
	 * How many bytes {@link #pending} holds: they are the delimiter's first bytes, as many,
	 * so they need no copy to be compared.
	 */
	private int pendingLength;

	private final BufferBytes.Nio nioBytes = new BufferBytes.Nio();

	private final @Nullable BufferBytes nettyBytes = BufferBytes.netty();

	/** Whether the buffer being fed is still the scanner's to release if reading it fails. */
	private boolean owned;

	/** The headers of the current part, copied; made on first use. */
	private byte[] headerBytes = NO_BYTES;

	private int headerLength;

	/**
	 * Read a body of the given delimiter.
	 * @param delimiter the delimiter of its parts, {@code CRLF--boundary}, as
	 * {@link #delimiter(String, int, int, Charset)} makes it; the boundary that ends the
	 * preamble is its bytes from the hyphens on
	 * @param maxHeadersSize the limit of a part's headers
	 * @param headersCharset the charset of a part's headers
	 * @param parts where the parts go
	 */
	public MultipartScanner(byte[] delimiter, int maxHeadersSize, Charset headersCharset, Parts parts) {
		Assert.isTrue(delimiter.length >= DELIMITER_PREFIX, "No delimiter");
		this.firstBoundary = new Delimiter(delimiter, CRLF.length);
		this.delimiter = this.firstBoundary.behindCrlf();
		this.maxHeadersSize = maxHeadersSize;
		this.headersCharset = headersCharset;
		this.parts = parts;
	}

	/**
	 * The delimiter of a body's parts, {@code CRLF--boundary}, in one array that is both
	 * of the scanner's delimiters (the first boundary is its bytes from the hyphens on):
	 * a boundary is read once a request, and one array is a third of the three that
	 * encoding it and prefixing it twice made. A boundary of US-ASCII, as RFC 2046 has it,
	 * in an ASCII-compatible charset is copied char by char, without an encoder.
	 * @param boundary holds the boundary
	 * @param from where the boundary starts in it
	 * @param to where it ends
	 * @param charset the charset of the part headers
	 * @return the delimiter
	 */
	public static byte[] delimiter(String boundary, int from, int to, Charset charset) {
		byte[] delimiter;
		if (isAsciiCompatible(charset) && isAscii(boundary, from, to)) {
			delimiter = new byte[DELIMITER_PREFIX + to - from];
			for (int i = from; i < to; i++) {
				delimiter[DELIMITER_PREFIX + i - from] = (byte) boundary.charAt(i);
			}
		}
		else {
			byte[] encoded = boundary.substring(from, to).getBytes(charset);
			delimiter = new byte[DELIMITER_PREFIX + encoded.length];
			System.arraycopy(encoded, 0, delimiter, DELIMITER_PREFIX, encoded.length);
		}
		delimiter[0] = '\r';
		delimiter[1] = '\n';
		delimiter[2] = '-';
		delimiter[3] = '-';
		return delimiter;
	}

	private static boolean isAsciiCompatible(Charset charset) {
		return charset.equals(StandardCharsets.UTF_8) || charset.equals(StandardCharsets.ISO_8859_1)
				|| charset.equals(StandardCharsets.US_ASCII);
	}

	private static boolean isAscii(String text, int from, int to) {
		for (int i = from; i < to; i++) {
			if (text.charAt(i) >= 0x80) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Return whether the closing boundary was read: the rest of the body is epilogue.
	 * @return whether the body is done
	 */
	public boolean isDone() {
		return this.state == State.DONE;
	}

	/**
	 * Read the next buffer of the body.
	 * @param buffer the buffer, owned by the scanner from now on, also when it throws
	 * @throws DecodingException if the part headers are not terminated within the limit,
	 * or {@link Parts} refuses a part as malformed
	 * @throws DataBufferLimitException if a part's headers are over the limit, or
	 * {@link Parts} refuses content
	 */
	public void feed(DataBuffer buffer) {
		DataBuffer rest = buffer;
		this.owned = true;
		try {
			while (rest != null) {
				switch (this.state) {
					case PREAMBLE -> {
						rest = scan(rest, this.firstBoundary, false);
						if (rest != null) {
							toHeaders();
						}
					}
					case HEADERS -> rest = readHeaders(rest);
					case BODY -> {
						rest = scan(rest, this.delimiter, true);
						if (rest != null) {
							this.parts.end();
							toHeaders();
						}
					}
					case DONE -> rest = release(rest);
				}
			}
		}
		catch (RuntimeException ex) {
			if (rest != null && this.owned) {
				DataBufferUtils.release(rest);
			}
			throw ex;
		}
	}

	/**
	 * The body ended.
	 * @throws DecodingException unless the closing boundary was read
	 */
	public void complete() {
		switch (this.state) {
			case PREAMBLE -> throw new DecodingException("Could not find first boundary");
			case HEADERS -> throw new DecodingException("Could not find end of headers");
			case BODY -> throw new DecodingException("Could not find end of body (␍␊--" + boundaryText() + ")");
			case DONE -> {
			}
		}
	}

	/** Release what is held; the scanner reads nothing more. */
	public void dispose() {
		this.state = State.DONE;
		releasePending();
	}

	private String boundaryText() {
		byte[] bytes = this.delimiter.bytes;
		return new String(bytes, DELIMITER_PREFIX, bytes.length - DELIMITER_PREFIX, StandardCharsets.UTF_8);
	}

	private void toHeaders() {
		this.state = State.HEADERS;
		this.headerLength = 0;
	}

	private static @Nullable DataBuffer release(DataBuffer buffer) {
		DataBufferUtils.release(buffer);
		return null;
	}

	/**
	 * Look for the delimiter from the start of the buffer, continuing a match begun in
	 * the pending bytes. Bytes before it are content (or discarded preamble).
	 * @return the buffer after the delimiter, or {@code null} if the buffer was used up
	 * without finding it (its tail pending when it may start one)
	 */
	private @Nullable DataBuffer scan(DataBuffer buffer, Delimiter delimiter, boolean content) {
		int length = delimiter.length();
		int start = buffer.readPosition();
		int readable = buffer.readableByteCount();
		BufferBytes bytes = bytes(buffer);
		int from = 0;
		int held = this.pendingLength;
		if (held > 0) {
			int carried = delimiter.carry(bytes, held, readable);
			if (carried < 0) {
				// the delimiter may start in the pending bytes: those before it are not its
				emitPending(held + carried, content);
				if (readable - carried >= length) {
					delimiter.found();
					releasePending();
					buffer.readPosition(start + carried + length);
					return buffer;
				}
				// the buffer ends inside a delimiter that may still come
				hold(buffer);
				return null;
			}
			emitPending(held, content);
			from = carried;
		}
		int found = delimiter.firstIn(bytes, from, readable);
		if (readable - found >= length) {
			delimiter.found();
			emitFront(buffer, found, content);
			buffer.readPosition(buffer.readPosition() + length);
			return buffer;
		}
		if (found == readable) {
			this.owned = false;
			emit(buffer, content);
			return null;
		}
		emitFront(buffer, found, content);
		hold(buffer);
		return null;
	}

	private BufferBytes bytes(DataBuffer buffer) {
		return BufferBytes.of(buffer, this.nioBytes, this.nettyBytes);
	}

	/** Keep the buffer's readable bytes as pending: they are the start of the delimiter. */
	private void hold(DataBuffer buffer) {
		int readable = buffer.readableByteCount();
		if (readable == 0) {
			DataBufferUtils.release(buffer);
			return;
		}
		this.pendingLength += readable;
		ArrayDeque<DataBuffer> held = this.pending;
		if (held == null) {
			held = new ArrayDeque<>(2);
			this.pending = held;
		}
		held.add(buffer);
	}

	/** Hand on (or discard) the first {@code count} pending bytes; keep the rest. */
	private void emitPending(int count, boolean content) {
		ArrayDeque<DataBuffer> held = this.pending;
		int left = count;
		while (left > 0) {
			Assert.state(held != null, "No pending buffers");
			DataBuffer first = held.getFirst();
			int readable = first.readableByteCount();
			if (readable <= left) {
				held.removeFirst();
				left -= readable;
				emit(first, content);
			}
			else {
				emitFront(first, left, content);
				left = 0;
			}
		}
		this.pendingLength -= count;
	}

	private void releasePending() {
		ArrayDeque<DataBuffer> held = this.pending;
		if (held != null) {
			DataBuffer buffer;
			while ((buffer = held.poll()) != null) {
				DataBufferUtils.release(buffer);
			}
		}
		this.pendingLength = 0;
	}

	/**
	 * Hand on (or skip) the first {@code count} readable bytes of a buffer the scanner
	 * goes on reading; its read position is then right behind them. A Netty buffer's are
	 * handed on where they are ({@link BufferBytes#viewsCheaply}), for the part to keep a
	 * view of them or the buffer; a heap buffer's are split off.
	 */
	private void emitFront(DataBuffer buffer, int count, boolean content) {
		int start = buffer.readPosition();
		if (!content || count == 0) {
			buffer.readPosition(start + count);
		}
		else if (BufferBytes.viewsCheaply(buffer)) {
			buffer.readPosition(start + count);
			this.parts.content(buffer, start, count);
		}
		else {
			this.parts.content(buffer.split(start + count));
		}
	}

	private void emit(DataBuffer piece, boolean content) {
		if (content && piece.readableByteCount() > 0) {
			this.parts.content(piece);
		}
		else {
			DataBufferUtils.release(piece);
		}
	}

	/**
	 * Copy header bytes up to the blank line that ends them (headers are small, and parsed
	 * from one array once), or up to a {@code --} that ends the body.
	 * @return the buffer after the headers, or {@code null} if it was used up
	 */
	private @Nullable DataBuffer readHeaders(DataBuffer buffer) {
		BufferBytes view = bytes(buffer);
		int start = buffer.readPosition();
		int readable = buffer.readableByteCount();
		if (this.headerLength == 0) {
			int end = wholeHeadersEnd(view, readable);
			if (end > 0) {
				// copied in one go and decoded from the array: a direct buffer's toString decodes
				// through a CharBuffer, twice the bytes
				if (this.headerBytes.length < end) {
					this.headerBytes = new byte[Math.max(HEADER_BYTES, end)];
				}
				view.copy(0, this.headerBytes, 0, end);
				this.headerLength = end;
				this.state = State.BODY;
				this.parts.headers(parseHeaders());
				buffer.readPosition(start + end);
				return buffer;
			}
		}
		for (int i = 0; i < readable; i++) {
			if (this.headerLength == this.headerBytes.length) {
				// twice as long, within the limit's one byte over it (which fails), and one more at least
				long grown = Math.min(Math.max(HEADER_BYTES, this.headerLength * 2L), this.maxHeadersSize + 1L);
				this.headerBytes = Arrays.copyOf(this.headerBytes, (int) Math.max(grown, this.headerLength + 1L));
			}
			byte[] bytes = this.headerBytes;
			int length = ++this.headerLength;
			bytes[length - 1] = view.get(i);
			if (length == 2 && bytes[0] == '-' && bytes[1] == '-') {
				this.state = State.DONE;
				buffer.readPosition(start + i + 1);
				return buffer;
			}
			if (length >= 4 && bytes[length - 1] == '\n' && bytes[length - 2] == '\r' && bytes[length - 3] == '\n'
					&& bytes[length - 4] == '\r') {
				this.state = State.BODY;
				this.parts.headers(parseHeaders());
				buffer.readPosition(start + i + 1);
				return buffer;
			}
			// after the end is looked for: Spring's parser counts the bytes of the headers but
			// their last, so headers one byte over the limit that end there are within it
			if (length > this.maxHeadersSize) {
				throw new DataBufferLimitException(
						"Part headers exceeded the memory usage limit of " + this.maxHeadersSize + " bytes");
			}
		}
		DataBufferUtils.release(buffer);
		return null;
	}

	/**
	 * Where headers that arrived whole in this buffer end, for them to be copied into
	 * {@link #headerBytes} at once, not byte by byte: the length up to and with the
	 * first CRLFCRLF, if the bytes before it are within the limit as the copying loop
	 * counts them and they do not start with the {@code --} that ends the body. Each byte
	 * is read once, into the last four kept in an int.
	 * @return the length of the headers, or 0 if the copying loop is to read them
	 */
	private int wholeHeadersEnd(BufferBytes view, int readable) {
		if (readable < 4) {
			return 0;
		}
		int within = (int) Math.min(readable, this.maxHeadersSize + 1L);
		int lastFour = 0;
		for (int i = 0; i < within; i++) {
			lastFour = (lastFour << 8) | (view.get(i) & 0xFF);
			if (lastFour == CRLF_CRLF) {
				return i + 1;
			}
			if (i == 1 && lastFour == HYPHENS) {
				return 0;
			}
		}
		return 0;
	}

	private PartHeaders parseHeaders() {
		return PartHeaders.of(this.headerBytes, this.headerLength, this.headersCharset);
	}

	/**
	 * A delimiter and its searches. Boyer–Moore–Horspool's shifts: a boundary is long and
	 * its last byte rare in content, so the search mostly reads one byte in every delimiter
	 * length. Spring's {@code DataBufferUtils.matcher} compares every byte, and Netty's
	 * {@code ByteBuf.indexOf} finds one byte only. A search over less than
	 * {@value #SHORT_SEARCH} bytes moves on by one byte instead, without the table: a form
	 * of a few text fields is read whole in a few hundred bytes, each byte by one search at
	 * most, and its table would be the largest allocation of its scan. Knuth–Morris–Pratt's
	 * borders, where that search would compare too much, and where a match goes on from
	 * bytes read before: a small form read whole never needs them, and they are made once,
	 * when a match of some bytes first fails.
	 */
	private static final class Delimiter implements DataBuffer.ByteProcessor {

		/** Searches over fewer bytes than this need no shift table. */
		static final int SHORT_SEARCH = 1024;

		/** Holds the delimiter's bytes, from {@link #from} to its end. */
		private final byte[] bytes;

		private final int from;

		/** The delimiter whose shifts this one uses: itself, or the one it is behind a CRLF of. */
		private final Delimiter shiftsOf;

		/** Shifts in bytes, a quarter of an int table per request: capped, which is safe. */
		private byte @Nullable [] shifts;

		/**
		 * At {@code i}, the length of the longest proper prefix of the delimiter's first
		 * {@code i + 1} bytes that is also their suffix: how much of the delimiter still
		 * matches when the byte after them does not.
		 */
		private int @Nullable [] borders;

		/**
		 * How many more bytes the search under way has compared than it moved over, carried
		 * from buffer to buffer: its budget of one delimiter length is the search's, not each
		 * buffer's, so a sender gains nothing by the buffers a body arrives in.
		 */
		private long overdrawn;

		/** Whether the search under way goes on the Knuth–Morris–Pratt way until it ends. */
		private boolean byteByByte;

		/** In a Knuth–Morris–Pratt read: how many of the delimiter's bytes match. */
		private int matched;

		/** In a Knuth–Morris–Pratt read: the index of the next byte. */
		private int position;

		/** In a Knuth–Morris–Pratt read: where the delimiter may start at most. */
		private int until;

		/** The bytes of {@code bytes} from {@code from} on. */
		Delimiter(byte[] bytes, int from) {
			this.bytes = bytes;
			this.from = from;
			this.shiftsOf = this;
		}

		private Delimiter(byte[] bytes, int from, Delimiter shiftsOf) {
			this.bytes = bytes;
			this.from = from;
			this.shiftsOf = shiftsOf;
		}

		/**
		 * The length of the delimiter: its bytes from {@link #from} on.
		 */
		int length() {
			return this.bytes.length - this.from;
		}

		/**
		 * This delimiter behind the CRLF before it in its array, sharing this one's shifts,
		 * one table per body and not two: a byte of this delimiter is as far from the end of
		 * both, CR and LF are shifted no further than the length of this one and any other
		 * byte a whole length of this one, which is less than the longer one's and so safe.
		 * Its borders are its own.
		 */
		Delimiter behindCrlf() {
			Assert.state(this.from >= CRLF.length, "No CRLF before the delimiter");
			return new Delimiter(this.bytes, this.from - CRLF.length, this);
		}

		/** The shifts of this delimiter, made on first use. */
		private byte[] shifts() {
			byte[] table = this.shifts;
			if (table == null) {
				byte[] pattern = this.bytes;
				int first = this.from;
				table = new byte[256];
				int length = length();
				int last = length - 1;
				Arrays.fill(table, (byte) Math.min(length, Byte.MAX_VALUE));
				for (int i = 0; i < last; i++) {
					table[pattern[first + i] & 0xFF] = (byte) Math.min(last - i, Byte.MAX_VALUE);
				}
				this.shifts = table;
			}
			return table;
		}

		/** The borders of this delimiter, made on first use. */
		private int[] borders() {
			int[] table = this.borders;
			if (table == null) {
				byte[] pattern = this.bytes;
				int first = this.from;
				int length = length();
				table = new int[length];
				int border = 0;
				for (int i = 1; i < length; i++) {
					while (border > 0 && pattern[first + i] != pattern[first + border]) {
						border = table[border - 1];
					}
					if (pattern[first + i] == pattern[first + border]) {
						border++;
					}
					table[i] = border;
				}
				this.borders = table;
			}
			return table;
		}

		/**
		 * Where the delimiter may start in [from, to): the first index whose bytes up to
		 * {@code to}, a delimiter's length at most, are the delimiter's first bytes. That is
		 * a whole delimiter if there is room for one before {@code to}, else the tail of the
		 * bytes that may start one; {@code to} if there is neither.
		 * <p>Boyer–Moore–Horspool, counting the bytes it compares behind each last byte:
		 * once they are more than the bytes it moved over and a delimiter's length, the
		 * bytes are made to match much of the delimiter at every index (a periodic
		 * boundary over its period), and it goes on the Knuth–Morris–Pratt way from the
		 * next index, each byte read once (but a word at each read's start,
		 * {@link #match}), in this buffer and the next ones until {@link #found()}. The
		 * count is carried from buffer to buffer, so a search reads at most twice the
		 * bytes it moves over, and two delimiter lengths, before either finds a delimiter
		 * or reaches a buffer's tail, which it reads the Knuth–Morris–Pratt way: the
		 * shifts it skipped indexes by are safe for a tail too, each skipped index fails
		 * at a byte before {@code to}.
		 */
		int firstIn(BufferBytes buffer, int from, int to) {
			if (this.byteByByte) {
				return match(buffer, from, to, 0, to);
			}
			byte[] pattern = this.bytes;
			int first = this.from;
			int length = length();
			int last = length - 1;
			byte lastByte = pattern[first + last];
			byte[] shifts = (to - from < SHORT_SEARCH) ? null : this.shiftsOf.shifts();
			long compared = this.overdrawn;
			int at = from;
			while (at < to - last) {
				byte current = buffer.get(at + last);
				if (current == lastByte) {
					int i = last - 1;
					while (i >= 0 && buffer.get(at + i) == pattern[first + i]) {
						i--;
					}
					if (i < 0) {
						return at;
					}
					compared += last - i;
					if (compared > (long) at - from + length) {
						this.byteByByte = true;
						return match(buffer, at + 1, to, 0, to);
					}
				}
				at += (shifts != null) ? shifts[current & 0xFF] : 1;
			}
			this.overdrawn = Math.max(0, compared - (at - from));
			return match(buffer, at, to, 0, to);
		}

		/** The delimiter was found: the next search starts with a budget of its own. */
		void found() {
			this.overdrawn = 0;
			this.byteByByte = false;
		}

		/**
		 * Carry a match of the delimiter's first {@code matched} bytes, the bytes held
		 * before this buffer, into its bytes [0, to): until the delimiter is whole, or may
		 * start only in this buffer, or the bytes end. At most a delimiter's length is read.
		 * @return where the delimiter may start: before this buffer by as many bytes as the
		 * value is negative, whole if there is room for it before {@code to}, else the start
		 * of what is to be held; or, not negative, where in this buffer to go on looking
		 */
		int carry(BufferBytes buffer, int matched, int to) {
			return match(buffer, 0, to, matched, 0);
		}

		/**
		 * Read the bytes from {@code at} the Knuth–Morris–Pratt way, each once, with
		 * {@code matched} bytes of the delimiter matched before {@code at}: until the
		 * delimiter is whole, or where it may start reaches {@code until}, or the bytes
		 * end at {@code to}. The bytes are fed to this delimiter as a processor, in the
		 * buffer's own loop: nothing allocated, no check per byte. With nothing matched,
		 * the bytes up to the delimiter's first byte cannot start it:
		 * {@link BufferBytes#indexOf} skips them (Netty's search reads a word at a time,
		 * so up to a word from the byte it finds on is read again). Only at the read's
		 * start: a match that fails later goes on byte by byte, as stopping the read
		 * there would cost a call for every short match in a body full of the first byte.
		 * @return where the delimiter may start then: a whole delimiter, the start of the
		 * bytes up to {@code to} that may start one, or {@code to}
		 */
		private int match(BufferBytes buffer, int at, int to, int matched, int until) {
			int start = at;
			int end = Math.min(to, until);
			if (matched == 0 && at < end) {
				// nothing matched: the delimiter may start at its first byte only, found by
				// the buffer's own search (Netty's reads a word at a time), not byte by byte
				start = buffer.indexOf(this.bytes[this.from], at, end);
				if (start == end) {
					this.matched = 0;
					this.position = end;
					return end;
				}
			}
			this.matched = matched;
			this.position = start;
			this.until = until;
			if (matched < length() && start < to && start - matched < until) {
				buffer.forEachByte(start, to, this);
			}
			return this.position - this.matched;
		}

		/**
		 * One byte of a Knuth–Morris–Pratt read.
		 * @return whether to read on: the delimiter is not whole, and may still start
		 * before {@link #until}
		 */
		@Override
		public boolean process(byte current) {
			byte[] pattern = this.bytes;
			int first = this.from;
			int match = this.matched;
			while (match > 0 && pattern[first + match] != current) {
				match = borders()[match - 1];
			}
			if (pattern[first + match] == current) {
				match++;
			}
			this.matched = match;
			this.position++;
			return match < length() && this.position - match < this.until;
		}

	}

}
