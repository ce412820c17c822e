package io.fastpath.integration;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One HTTP/1.1 connection over a plain socket, for what a client library hides: several
 * requests on the same keep-alive connection, bodies written a byte at a time, a client
 * that goes away mid-body.
 */
final class RawHttpConnection implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	RawHttpConnection(int port) throws IOException {
		this.socket = new Socket("localhost", port);
		this.socket.setSoTimeout(10_000);
		this.socket.setTcpNoDelay(true);
		this.in = this.socket.getInputStream();
		this.out = this.socket.getOutputStream();
	}

	/**
	 * Send a request with a Content-Length, or chunked (in 7-byte chunks, written at once),
	 * and read the response.
	 */
	Response exchange(String method, String path, String contentType, byte[] body, boolean chunked)
			throws IOException {
		writeHead(method, path, contentType, chunked ? -1 : body.length);
		if (chunked) {
			ByteArrayOutputStream chunks = new ByteArrayOutputStream();
			for (int at = 0; at < body.length; at += 7) {
				int length = Math.min(7, body.length - at);
				chunks.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
				chunks.write(body, at, length);
				chunks.write("\r\n".getBytes(StandardCharsets.US_ASCII));
			}
			chunks.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
			write(chunks.toByteArray());
		}
		else {
			write(body);
		}
		return readResponse();
	}

	/** Write a request head, a negative length meaning chunked, and return its length in bytes. */
	int writeHead(String method, String path, String contentType, long contentLength) throws IOException {
		StringBuilder head = new StringBuilder().append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
			.append("Host: localhost\r\n")
			.append("Content-Type: ").append(contentType).append("\r\n");
		if (contentLength >= 0) {
			head.append("Content-Length: ").append(contentLength).append("\r\n");
		}
		else {
			head.append("Transfer-Encoding: chunked\r\n");
		}
		byte[] bytes = head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
		write(bytes);
		return bytes.length;
	}

	/** The client's end of the connection, as the server sees it. */
	int localPort() {
		return this.socket.getLocalPort();
	}

	void write(byte[] bytes) throws IOException {
		this.out.write(bytes);
		this.out.flush();
	}

	Response readResponse() throws IOException {
		String statusLine = readLine();
		if (statusLine == null) {
			throw new IOException("Connection closed before a response");
		}
		int status = Integer.parseInt(statusLine.split(" ")[1]);
		Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		for (String line = readLine(); line != null && !line.isEmpty(); line = readLine()) {
			int colon = line.indexOf(':');
			headers.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
		}
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		if (headers.containsKey("Content-Length")) {
			body.write(this.in.readNBytes(Integer.parseInt(headers.get("Content-Length"))));
		}
		else if ("chunked".equals(headers.getOrDefault("Transfer-Encoding", "").toLowerCase(Locale.ROOT))) {
			for (int length = Integer.parseInt(readLine().trim(), 16); length > 0;
					length = Integer.parseInt(readLine().trim(), 16)) {
				body.write(this.in.readNBytes(length));
				readLine();
			}
			readLine();
		}
		return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
	}

	private String readLine() throws IOException {
		StringBuilder line = new StringBuilder();
		int b;
		while ((b = this.in.read()) != -1) {
			if (b == '\n') {
				return line.toString();
			}
			if (b != '\r') {
				line.append((char) b);
			}
		}
		return (line.isEmpty() ? null : line.toString());
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

	record Response(int status, Map<String, String> headers, String body) {

	}

}
