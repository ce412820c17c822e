package io.fastpath.form;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;

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
		for (int i = 0; i < readers.size(); i++) {
			if (i != position && i != multipart) {
				assertThat(decorated.get(i)).isSameAs(readers.get(i));
			}
		}
	}

	@Test
	void replacesTheStockMultipartReaderInPlaceWithOneThatCountsParts() {
		List<HttpMessageReader<?>> readers = ServerCodecConfigurer.create().getReaders();
		int position = indexOf(readers, MultipartHttpMessageReader.class);
		MultipartHttpMessageReader stock = (MultipartHttpMessageReader) readers.get(position);
		stock.setEnableLoggingRequestDetails(true);
		List<HttpMessageReader<?>> decorated = new LazyFormDecoding(7).decorate(readers);
		assertThat(decorated.get(position)).isInstanceOfSatisfying(MultipartHttpMessageReader.class, (reader) -> {
			assertThat(reader).isNotSameAs(stock);
			assertThat(reader.isEnableLoggingRequestDetails()).isTrue();
			assertThat(reader.getPartReader()).isInstanceOf(PartCountingReader.class)
				.hasFieldOrPropertyWithValue("parts", stock.getPartReader())
				.hasFieldOrPropertyWithValue("maxParts", 7);
		});
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
