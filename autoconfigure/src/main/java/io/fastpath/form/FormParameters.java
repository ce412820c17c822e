package io.fastpath.form;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.util.CollectionUtils;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;

/**
 * The fields of an {@code application/x-www-form-urlencoded} body, as a read-only view
 * over its bytes. One pass over the body records where each name and value starts and
 * ends, in one flat {@code int} array; a name or value is decoded only when it is read, and
 * one with no {@code %}, {@code +} or non-ASCII byte is copied into a string without
 * decoding. Order and repeated names are kept. The {@link MultiValueMap} that stock Spring
 * builds eagerly is built on first use of {@link #toMultiValueMap()}, and cached.
 * <p>Decoding is that of Spring's {@code FormHttpMessageReader}: fields are separated by
 * {@code &}, blanks (characters up to U+0020) around a field are trimmed, empty fields are
 * skipped, {@code +} is a space, {@code %XX} escapes are bytes in the request charset, and
 * a field without {@code =} has a {@code null} value. Where stock fails with a 500 or
 * silently substitutes U+FFFD (a malformed escape, bytes invalid in the charset), a
 * {@link MalformedFormDataException} names the field: malformed escapes when the body is
 * parsed, invalid bytes when the field is decoded.
 * <p>Instances are immutable and thread-safe (the caches are benign races).
 *
 * @author Fastpath
 * @see #from(ServerWebExchange)
 */
public final class FormParameters {

	/** Marks, on a start offset, a name or value that needs decoding. */
	private static final int ENCODED = 1 << 31;

	/** Ints per field: name start, name end, value start (-1 without '='), value end. */
	private static final int STRIDE = 4;

	/** Kinds of body bytes for the scan: most are {@link #PLAIN}. */
	private static final byte PLAIN = 0;

	private static final byte SEPARATOR = 1;

	private static final byte EQUALS = 2;

	private static final byte PERCENT = 3;

	/** '+' and non-ASCII bytes: the field needs decoding. */
	private static final byte NEEDS_DECODING = 4;

	private static final byte[] BYTE_KINDS = new byte[256];

	static {
		BYTE_KINDS['&'] = SEPARATOR;
		BYTE_KINDS['='] = EQUALS;
		BYTE_KINDS['%'] = PERCENT;
		BYTE_KINDS['+'] = NEEDS_DECODING;
		for (int b = 0x80; b < 0x100; b++) {
			BYTE_KINDS[b] = NEEDS_DECODING;
		}
	}

	private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
			ByteOrder.LITTLE_ENDIAN);

	private static final FormParameters EMPTY = new FormParameters(new byte[0], new int[0], 0,
			StandardCharsets.UTF_8, StandardCharsets.UTF_8);

	private final byte[] body;

	private final int[] fields;

	private final int size;

	private final Charset textCharset;

	private final Charset escapeCharset;

	private @Nullable String @Nullable [] decodedNames;

	private @Nullable MultiValueMap<String, @Nullable String> multiValueMap;

	private @Nullable Set<String> names;

	private FormParameters(byte[] body, int[] fields, int size, Charset textCharset, Charset escapeCharset) {
		this.body = body;
		this.fields = fields;
		this.size = size;
		this.textCharset = textCharset;
		this.escapeCharset = escapeCharset;
	}

	/**
	 * Return the form with no fields.
	 * @return the empty form
	 */
	public static FormParameters empty() {
		return EMPTY;
	}

	/**
	 * Parse a form body. The array is kept, not copied: it must not change afterwards.
	 * @param body the body bytes
	 * @param charset the charset of the body and of its percent-escapes
	 * @param maxFields the most fields to accept
	 * @return the form
	 * @throws MalformedFormDataException if a percent-escape is malformed, or the body is
	 * not valid in a charset that Fastpath re-encodes (one that is not ASCII-compatible)
	 * @throws TooManyFormFieldsException if there are more than {@code maxFields} fields
	 */
	public static FormParameters parse(byte[] body, Charset charset, int maxFields) {
		if (FormFieldDecoder.isAsciiCompatible(charset)) {
			return scan(body, charset, charset, maxFields);
		}
		// '&', '=', '%', '+' and blanks may be several bytes here (UTF-16, ...): scan the
		// text as UTF-8, where they are single bytes, and decode escapes in the charset
		return scan(toUtf8(body, charset), StandardCharsets.UTF_8, charset, maxFields);
	}

	/**
	 * Return the fields of the given multi-value map, for code that reads forms through
	 * this class whatever reader built them (Spring's stock reader, for example). The map
	 * is encoded once into a UTF-8 body, unless it is the unmodified map of Fastpath's
	 * form reader: then its parameters are returned as they are. A map that was modified
	 * (by a {@code WebFilter} that sanitizes the form, say) is read as it is now.
	 * @param map the fields
	 * @return the form
	 */
	public static FormParameters of(MultiValueMap<String, String> map) {
		if (map instanceof FormDataMap formDataMap && !formDataMap.isModified()) {
			return formDataMap.getParameters();
		}
		if (map.isEmpty()) {
			return EMPTY;
		}
		StringBuilder body = new StringBuilder();
		int fieldCount = 0;
		for (Map.Entry<String, List<String>> entry : map.entrySet()) {
			String name = URLEncoder.encode(entry.getKey(), StandardCharsets.UTF_8);
			for (String value : entry.getValue()) {
				if (!body.isEmpty()) {
					body.append('&');
				}
				body.append(name);
				if (value != null) {
					body.append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
				}
				fieldCount++;
			}
		}
		return scan(body.toString().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8,
				StandardCharsets.UTF_8, fieldCount);
	}

	/**
	 * Return the form of the given exchange, of either encoding: the fields of an
	 * {@code application/x-www-form-urlencoded} body, read through
	 * {@link ServerWebExchange#getFormData()} (without copying when Fastpath's form reader
	 * built it), or the text fields of a {@code multipart/form-data} body, read through
	 * {@link ServerWebExchange#getMultipartData()}. The body is read once per request
	 * however many consumers ask.
	 * @param exchange the exchange
	 * @return the form, empty if the request is not a form
	 */
	public static Mono<FormParameters> from(ServerWebExchange exchange) {
		return RequestForm.from(exchange).map(RequestForm::fields);
	}

	private static byte[] toUtf8(byte[] body, Charset charset) {
		try {
			String text = charset.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(body))
				.toString();
			return text.getBytes(StandardCharsets.UTF_8);
		}
		catch (CharacterCodingException ex) {
			throw new MalformedFormDataException("Form body is not valid " + charset.name(), null);
		}
	}

	private static FormParameters scan(byte[] body, Charset textCharset, Charset escapeCharset, int maxFields) {
		// Never more fields than separators + 1, nor than the limit (parsing stops past it)
		int[] fields = new int[STRIDE * Math.max(0, Math.min(countSeparators(body) + 1, maxFields))];
		int size = 0;
		int length = body.length;
		int i = 0;
		while (i < length) {
			int start = i;
			int equals = -1;
			boolean nameEncoded = false;
			boolean valueEncoded = false;
			while (i < length) {
				int kind = BYTE_KINDS[body[i] & 0xFF];
				if (kind == PLAIN) {
					i++;
					continue;
				}
				if (kind == SEPARATOR) {
					break;
				}
				if (kind == EQUALS) {
					if (equals < 0) {
						equals = i;
					}
				}
				else {
					if (kind == PERCENT) {
						if (i + 2 >= length || FormFieldDecoder.hexValue(body[i + 1]) < 0
								|| FormFieldDecoder.hexValue(body[i + 2]) < 0) {
							throw malformedEscape(body, start, i, equals, textCharset, escapeCharset);
						}
						i += 2;
					}
					if (equals < 0) {
						nameEncoded = true;
					}
					else {
						valueEncoded = true;
					}
				}
				i++;
			}
			int end = i;
			i++;
			while (start < end && (body[start] & 0xFF) <= ' ') {
				start++;
			}
			while (end > start && (body[end - 1] & 0xFF) <= ' ') {
				end--;
			}
			if (start == end) {
				continue;
			}
			if (size == maxFields) {
				throw new TooManyFormFieldsException(maxFields);
			}
			int at = size * STRIDE;
			if (equals < 0) {
				fields[at] = start | (nameEncoded ? ENCODED : 0);
				fields[at + 1] = end;
				fields[at + 2] = -1;
				fields[at + 3] = -1;
			}
			else {
				fields[at] = start | (nameEncoded ? ENCODED : 0);
				fields[at + 1] = equals;
				fields[at + 2] = (equals + 1) | (valueEncoded ? ENCODED : 0);
				fields[at + 3] = end;
			}
			size++;
		}
		return new FormParameters(body, fields, size, textCharset, escapeCharset);
	}

	/**
	 * Count the '&' bytes eight at a time (a SWAR count of zero bytes in
	 * {@code word ^ 0x2626...}, exact for every byte value): sizing the offsets exactly
	 * costs less than growing them, and this pass must be cheap beside the scan.
	 */
	private static int countSeparators(byte[] body) {
		int count = 0;
		int i = 0;
		for (; i + Long.BYTES <= body.length; i += Long.BYTES) {
			long word = (long) LONGS.get(body, i) ^ 0x2626262626262626L;
			long nonZero = ((word & 0x7F7F7F7F7F7F7F7FL) + 0x7F7F7F7F7F7F7F7FL) | word;
			count += Long.bitCount(~nonZero & 0x8080808080808080L);
		}
		for (; i < body.length; i++) {
			if (body[i] == '&') {
				count++;
			}
		}
		return count;
	}

	private static MalformedFormDataException malformedEscape(byte[] body, int fieldStart, int at, int equals,
			Charset textCharset, Charset escapeCharset) {

		String name;
		if (equals < 0) {
			name = rawText(body, fieldStart, at);
		}
		else {
			try {
				name = FormFieldDecoder.decode(body, fieldStart, equals, textCharset, escapeCharset).trim();
			}
			catch (CharacterCodingException | RuntimeException ex) {
				name = rawText(body, fieldStart, equals);
			}
		}
		return new MalformedFormDataException("Malformed percent-escape in form field '" + name + "'", name);
	}

	private static String rawText(byte[] body, int start, int end) {
		return new String(body, start, end - start, StandardCharsets.ISO_8859_1).trim();
	}

	/**
	 * Return the number of fields, counting repeated names once per occurrence.
	 * @return the number of fields
	 */
	public int size() {
		return this.size;
	}

	/**
	 * Return whether the form has no fields.
	 * @return {@code true} if the form is empty
	 */
	public boolean isEmpty() {
		return this.size == 0;
	}

	/**
	 * Return the decoded name of the field at the given position.
	 * @param index the position of the field, from 0 to {@code size() - 1}
	 * @return the name
	 * @throws MalformedFormDataException if the name is not valid in the charset
	 */
	public String getName(int index) {
		checkIndex(index);
		@Nullable String[] names = this.decodedNames;
		if (names == null) {
			names = new String[this.size];
			this.decodedNames = names;
		}
		String name = names[index];
		if (name == null) {
			int at = index * STRIDE;
			name = decode(this.fields[at], this.fields[at + 1], index);
			names[index] = name;
		}
		return name;
	}

	/**
	 * Return the decoded value of the field at the given position.
	 * @param index the position of the field, from 0 to {@code size() - 1}
	 * @return the value, or {@code null} if the field has no {@code =}
	 * @throws MalformedFormDataException if the value is not valid in the charset
	 */
	public @Nullable String getValue(int index) {
		checkIndex(index);
		int at = index * STRIDE;
		int start = this.fields[at + 2];
		return (start != -1 ? decode(start, this.fields[at + 3], index) : null);
	}

	/**
	 * Return whether the form has a field with the given name.
	 * @param name the decoded name
	 * @return {@code true} if such a field exists
	 */
	public boolean contains(String name) {
		return indexOf(name, 0) >= 0;
	}

	/**
	 * Return the value of the first field with the given name.
	 * @param name the decoded name
	 * @return the value, or {@code null} if there is no such field or it has no {@code =}
	 */
	public @Nullable String getFirst(String name) {
		int index = indexOf(name, 0);
		return (index >= 0 ? getValue(index) : null);
	}

	/**
	 * Return the values of every field with the given name, in order.
	 * @param name the decoded name
	 * @return the values (elements are {@code null} for fields without {@code =}); empty
	 * if there is no such field
	 */
	public List<@Nullable String> getAll(String name) {
		int index = indexOf(name, 0);
		if (index < 0) {
			return Collections.emptyList();
		}
		int next = indexOf(name, index + 1);
		if (next < 0) {
			return Collections.singletonList(getValue(index));
		}
		List<@Nullable String> values = new ArrayList<>();
		values.add(getValue(index));
		while (next >= 0) {
			values.add(getValue(next));
			next = indexOf(name, next + 1);
		}
		return Collections.unmodifiableList(values);
	}

	/**
	 * Return the value with the given name as {@code @RequestParam} takes it: the value of
	 * the only field with the name, or the list of values if there are several; without
	 * the list {@link #getAll} makes for one value.
	 * @param name the decoded name
	 * @return the value or values, or {@code null} if there is no such field
	 */
	@Nullable Object valueOf(String name) {
		int index = indexOf(name, 0);
		if (index < 0) {
			return null;
		}
		return (indexOf(name, index + 1) < 0) ? getValue(index) : getAll(name);
	}

	/**
	 * Return the distinct names, in the order they first appear.
	 * @return the names
	 */
	public Set<String> names() {
		Set<String> names = this.names;
		if (names == null) {
			Set<String> distinct = new LinkedHashSet<>();
			for (int i = 0; i < this.size; i++) {
				distinct.add(getName(i));
			}
			names = Collections.unmodifiableSet(distinct);
			this.names = names;
		}
		return names;
	}

	/**
	 * Return the fields as a read-only multi-value map, equal to the one Spring's stock
	 * {@code FormHttpMessageReader} builds for the same body. Built on first call, then
	 * cached.
	 * @return the fields by name, in order
	 */
	public MultiValueMap<String, @Nullable String> toMultiValueMap() {
		MultiValueMap<String, @Nullable String> map = this.multiValueMap;
		if (map == null) {
			map = CollectionUtils.unmodifiableMultiValueMap(newMultiValueMap());
			this.multiValueMap = map;
		}
		return map;
	}

	/**
	 * Return a new, modifiable multi-value map of the fields.
	 * @return the fields by name, in order
	 */
	LinkedMultiValueMap<String, @Nullable String> newMultiValueMap() {
		LinkedMultiValueMap<String, @Nullable String> map = new LinkedMultiValueMap<>(this.size);
		for (int i = 0; i < this.size; i++) {
			map.add(getName(i), getValue(i));
		}
		return map;
	}

	/**
	 * Return the charset that percent-escapes are decoded with.
	 * @return the charset of the request
	 */
	public Charset getCharset() {
		return this.escapeCharset;
	}

	private int indexOf(String name, int from) {
		for (int i = from; i < this.size; i++) {
			if (nameEquals(i, name)) {
				return i;
			}
		}
		return -1;
	}

	private boolean nameEquals(int index, String name) {
		@Nullable String[] names = this.decodedNames;
		if (names != null && names[index] != null) {
			return name.equals(names[index]);
		}
		int at = index * STRIDE;
		int start = this.fields[at];
		if ((start & ENCODED) != 0) {
			return name.equals(getName(index));
		}
		// Plain ASCII: compare bytes with chars, without decoding
		int end = this.fields[at + 1];
		if (end - start != name.length()) {
			return false;
		}
		byte[] body = this.body;
		for (int i = 0; i < name.length(); i++) {
			if (body[start + i] != name.charAt(i)) {
				return false;
			}
		}
		return true;
	}

	private String decode(int start, int end, int index) {
		if ((start & ENCODED) == 0) {
			return new String(this.body, start, end - start, StandardCharsets.ISO_8859_1);
		}
		start &= ~ENCODED;
		try {
			return FormFieldDecoder.decode(this.body, start, end, this.textCharset, this.escapeCharset);
		}
		catch (CharacterCodingException ex) {
			int nameStart = this.fields[index * STRIDE] & ~ENCODED;
			String name = (nameStart == start) ? rawText(this.body, start, end) : getName(index);
			throw new MalformedFormDataException(
					"Form field '" + name + "' is not valid " + this.escapeCharset.name(), name);
		}
	}

	private void checkIndex(int index) {
		if (index < 0 || index >= this.size) {
			throw new IndexOutOfBoundsException("Field " + index + " of a form with " + this.size + " fields");
		}
	}

	/**
	 * Return the fields as a new map for logs and {@code toString()}: never throws, and
	 * shows bytes invalid in the charset as U+FFFD, as stock Spring would decode them.
	 */
	MultiValueMap<String, @Nullable String> toDisplayMap() {
		MultiValueMap<String, @Nullable String> map = new LinkedMultiValueMap<>(this.size);
		for (int i = 0; i < this.size; i++) {
			int at = i * STRIDE;
			int valueStart = this.fields[at + 2];
			map.add(displayText(this.fields[at], this.fields[at + 1]),
					(valueStart != -1) ? displayText(valueStart, this.fields[at + 3]) : null);
		}
		return map;
	}

	/**
	 * Return the distinct names for logs and {@code toString()}, as
	 * {@link #toDisplayMap()} shows them.
	 */
	Set<String> displayNames() {
		Set<String> names = new LinkedHashSet<>();
		for (int i = 0; i < this.size; i++) {
			int at = i * STRIDE;
			names.add(displayText(this.fields[at], this.fields[at + 1]));
		}
		return names;
	}

	private String displayText(int start, int end) {
		if ((start & ENCODED) == 0) {
			return new String(this.body, start, end - start, StandardCharsets.ISO_8859_1);
		}
		return FormFieldDecoder.decodeForDisplay(this.body, start & ~ENCODED, end, this.textCharset,
				this.escapeCharset);
	}

	@Override
	public String toString() {
		return "FormParameters" + displayNames();
	}

}
