package io.fastpath.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * An HTTP/1.1 client on one kept-alive loopback connection that allocates next to nothing
 * per request: the request is bytes made once, and the answer is read into an array
 * reused from call to call. For benchmarks whose B/op must be the server's. Reads
 * answers framed by a {@code Content-Length}, which WebFlux gives a single value, and
 * chunked answers (a {@code Flux} response), without trailers.
 */
final class RawHttpClient implements AutoCloseable {

	private static final int READ_TIMEOUT_MILLIS = 10_000;

	private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] CHUNKED = "transfer-encoding: chunked".getBytes(StandardCharsets.US_ASCII);

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private byte[] answer = new byte[16 * 1024];

	/** Where the body of the last answer starts and ends in {@link #answer}. */
	private int bodyStart;

	private int bodyEnd;

	RawHttpClient(int port) throws IOException {
		this.socket = new Socket("127.0.0.1", port);
		this.socket.setTcpNoDelay(true);
		this.socket.setSoTimeout(READ_TIMEOUT_MILLIS);
		this.in = this.socket.getInputStream();
		this.out = this.socket.getOutputStream();
	}

	/**
	 * The bytes of a POST request with a {@code Content-Length}.
	 */
	static byte[] post(String path, String contentType, byte[] body) {
		ByteArrayOutputStream request = new ByteArrayOutputStream();
		String head = "POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + contentType
				+ "\r\nContent-Length: " + body.length + "\r\n\r\n";
		request.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
		request.writeBytes(body);
		return request.toByteArray();
	}

	/**
	 * The bytes of a GET request that accepts the given media type.
	 */
	static byte[] get(String path, String accept) {
		return ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: " + accept + "\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * Send a request and read the whole answer.
	 * @return the answer's status
	 */
	int exchange(byte[] request) throws IOException {
		this.out.write(request);
		this.out.flush();
		int length = 0;
		int headEnd;
		int scanned = 0;
		while ((headEnd = indexOfBlankLine(scanned, length)) < 0) {
			// The blank line may straddle two reads: rescan only the last three bytes.
			scanned = Math.max(0, length - 3);
			length = read(length);
		}
		this.bodyStart = headEnd + 4;
		if (headerAt(CHUNKED, headEnd) >= 0) {
			length = readChunks(length);
			if (length > this.bodyEnd) {
				throw new IOException("More bytes than the chunked answer: a pipelining client is not one");
			}
			return digit(9) * 100 + digit(10) * 10 + digit(11);
		}
		this.bodyEnd = this.bodyStart + contentLength(headEnd);
		if (this.bodyEnd > this.answer.length) {
			byte[] larger = new byte[this.bodyEnd];
			System.arraycopy(this.answer, 0, larger, 0, length);
			this.answer = larger;
		}
		while (length < this.bodyEnd) {
			length = read(length);
		}
		if (length > this.bodyEnd) {
			throw new IOException("More bytes than the answer's Content-Length: a pipelining client is not one");
		}
		return digit(9) * 100 + digit(10) * 10 + digit(11);
	}

	/**
	 * Send a request and describe its answer, for checking before measuring.
	 * @return the status and the body
	 */
	String answer(byte[] request) throws IOException {
		int status = exchange(request);
		if (headerAt(CHUNKED, this.bodyStart - 4) < 0) {
			return status + " " + new String(this.answer, this.bodyStart, this.bodyEnd - this.bodyStart,
					StandardCharsets.UTF_8);
		}
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		int at = this.bodyStart;
		for (;;) {
			int lineEnd = indexOfLineEnd(at, this.bodyEnd);
			int size = chunkSize(at, lineEnd);
			if (size == 0) {
				return status + " " + body.toString(StandardCharsets.UTF_8);
			}
			body.write(this.answer, lineEnd + 2, size);
			at = lineEnd + 2 + size + 2;
		}
	}

	/**
	 * Read the chunks of a chunked answer, growing the array as needed, up to the last
	 * chunk, and set where the body (its chunks, framing included) ends.
	 * @return how many bytes of the answer are read
	 */
	private int readChunks(int length) throws IOException {
		int at = this.bodyStart;
		for (;;) {
			int lineEnd;
			while ((lineEnd = indexOfLineEnd(at, length)) < 0) {
				length = readGrowing(length);
			}
			int size = chunkSize(at, lineEnd);
			int end = lineEnd + 2 + size + 2;
			while (length < end) {
				length = readGrowing(length);
			}
			at = end;
			if (size == 0) {
				this.bodyEnd = end;
				return length;
			}
		}
	}

	private int readGrowing(int length) throws IOException {
		if (length == this.answer.length) {
			byte[] larger = new byte[this.answer.length * 2];
			System.arraycopy(this.answer, 0, larger, 0, length);
			this.answer = larger;
		}
		return read(length);
	}

	private int indexOfLineEnd(int from, int length) {
		for (int i = from; i + 1 < length; i++) {
			if (this.answer[i] == '\r' && this.answer[i + 1] == '\n') {
				return i;
			}
		}
		return -1;
	}

	private int chunkSize(int from, int lineEnd) {
		int size = 0;
		for (int i = from; i < lineEnd; i++) {
			size = size * 16 + Character.digit(this.answer[i], 16);
		}
		return size;
	}

	private int read(int length) throws IOException {
		int read;
		try {
			read = this.in.read(this.answer, length, this.answer.length - length);
		}
		catch (SocketTimeoutException ex) {
			// A server that stops answering mid-body is found only by the time it took:
			// what every thread was doing then tells a busy event loop from a lost wake-up
			System.err.println("No answer for " + READ_TIMEOUT_MILLIS + " ms after " + length
					+ " bytes of an answer; the JVM's threads:");
			printThreads();
			throw ex;
		}
		if (read < 0) {
			throw new EOFException("Connection closed after " + length + " bytes of an answer");
		}
		return length + read;
	}

	/** Every thread of this JVM with its whole stack and what it waits for, to standard error. */
	private static void printThreads() {
		for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
			System.err.println("\"" + thread.getThreadName() + "\" " + thread.getThreadState()
					+ ((thread.getLockName() != null) ? " on " + thread.getLockName() : ""));
			for (StackTraceElement frame : thread.getStackTrace()) {
				System.err.println("\tat " + frame);
			}
		}
	}

	private int indexOfBlankLine(int from, int length) {
		for (int i = from; i + 3 < length; i++) {
			if (this.answer[i] == '\r' && this.answer[i + 1] == '\n' && this.answer[i + 2] == '\r'
					&& this.answer[i + 3] == '\n') {
				return i;
			}
		}
		return -1;
	}

	/** Where the head has a line that starts with the given lower-case text, or -1. */
	private int headerAt(byte[] name, int headEnd) {
		for (int i = 0; i + name.length <= headEnd; i++) {
			if ((i == 0 || this.answer[i - 1] == '\n') && startsWithIgnoringCase(name, i)) {
				return i;
			}
		}
		return -1;
	}

	private int contentLength(int headEnd) throws IOException {
		for (int i = 0; i + CONTENT_LENGTH.length < headEnd; i++) {
			if ((i == 0 || this.answer[i - 1] == '\n') && startsWithIgnoringCase(CONTENT_LENGTH, i)) {
				int at = i + CONTENT_LENGTH.length;
				while (this.answer[at] == ' ') {
					at++;
				}
				int value = 0;
				while (this.answer[at] >= '0' && this.answer[at] <= '9') {
					value = value * 10 + (this.answer[at++] - '0');
				}
				return value;
			}
		}
		throw new IOException("An answer without a Content-Length");
	}

	private boolean startsWithIgnoringCase(byte[] text, int at) {
		for (int i = 0; i < text.length; i++) {
			if (Character.toLowerCase(this.answer[at + i]) != text[i]) {
				return false;
			}
		}
		return true;
	}

	private int digit(int at) {
		return this.answer[at] - '0';
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
