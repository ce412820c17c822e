package io.fastpath.form;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

import io.fastpath.codec.ReadListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LazyFormDecoding}.
 */
class LazyFormDecodingTests {

	@Test
	void replacesTheStockFormReaderInPlace() {
		List<HttpMessageReader<?>> readers = ServerCodecConfigurer.create().getReaders();
		int position = indexOfStockFormReader(readers);
		List<HttpMessageReader<?>> decorated = new LazyFormDecoding(7).decorate(readers);
		assertThat(decorated).hasSameSizeAs(readers);
		assertThat(decorated.get(position)).isInstanceOfSatisfying(LazyFormHttpMessageReader.class, (reader) -> {
			assertThat(reader.getStockReader()).isSameAs(readers.get(position));
			assertThat(reader.getMaxFields()).isEqualTo(7);
		});
		int multipart = indexOf(readers, MultipartHttpMessageReader.class);
		int partEvents = indexOf(readers, PartEventHttpMessageReader.class);
		for (int i = 0; i < readers.size(); i++) {
			if (i != position && i != multipart && i != partEvents) {
				assertThat(decorated.get(i)).isSameAs(readers.get(i));
			}
		}
	}

	@Test
	void leavesTheStockPartEventReaderWhenMultipartIsSwitchedOff() {
		PartEventHttpMessageReader stock = new PartEventHttpMessageReader();
		assertThat(new LazyFormDecoding(7, false, ReadListener.NONE).decorate(List.of(stock))).containsExactly(stock);
	}

	@Test
	void leavesACustomPartEventReaderAlone() {
		PartEventHttpMessageReader custom = new PartEventHttpMessageReader() {
		};
		assertThat(new LazyFormDecoding(7).decorate(List.of(custom))).containsExactly(custom);
	}

	@Test
	void isIdempotent() {
		LazyFormDecoding decoding = new LazyFormDecoding();
		List<HttpMessageReader<?>> once = decoding.decorate(ServerCodecConfigurer.create().getReaders());
		assertThat(decoding.decorate(once)).containsExactlyElementsOf(once);
	}

	@Test
	void leavesSubclassesOfTheStockReaderAlone() {
		HttpMessageReader<?> custom = new FormHttpMessageReader() {
		};
		HttpMessageReader<?> other = new DecoderHttpMessageReader<>(StringDecoder.allMimeTypes());
		assertThat(new LazyFormDecoding().decorate(List.of(other, custom))).containsExactly(other, custom);
	}

	private static int indexOfStockFormReader(List<HttpMessageReader<?>> readers) {
		return indexOf(readers, FormHttpMessageReader.class);
	}

	private static int indexOf(List<HttpMessageReader<?>> readers, Class<?> type) {
		for (int i = 0; i < readers.size(); i++) {
			if (readers.get(i).getClass() == type) {
				return i;
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in " + readers);
	}

}
