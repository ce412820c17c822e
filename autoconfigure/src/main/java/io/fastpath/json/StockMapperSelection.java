package io.fastpath.json;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.util.MimeType;

/**
 * The mapper a stock Jackson JSON codec reads or writes a type with, for Fastpath's
 * decoder and encoders, which read and write as the stock codec they replace would. The
 * codec's own selection is protected; it is derived here from what the codec makes
 * public (its default mapper and its registrations by type), to the same result. Public
 * for the writers of {@code io.fastpath.json.write}, not an API for applications.
 *
 * @author Fastpath
 */
public final class StockMapperSelection {

	private StockMapperSelection() {
	}

	/**
	 * Return the mapper the codec selects for the type and MIME type, through its public
	 * registrations.
	 * @param codec the stock codec, a {@code JacksonJsonDecoder} or {@code JacksonJsonEncoder}
	 * @param type the type read or written
	 * @param mimeType the MIME type, or {@code null} if none
	 * @return the mapper, or {@code null} when the type has registrations and none for
	 * the MIME type
	 */
	public static @Nullable JsonMapper select(JacksonCodecSupport<JsonMapper> codec, ResolvableType type,
			@Nullable MimeType mimeType) {
		if (mimeType == null) {
			return codec.getMapper();
		}
		Map<MimeType, JsonMapper> registrations = codec.getMappersForType(type.toClass());
		if (registrations == null || registrations.isEmpty()) {
			return codec.getMapper();
		}
		for (Map.Entry<MimeType, JsonMapper> registration : registrations.entrySet()) {
			if (registration.getKey().includes(mimeType)) {
				return registration.getValue();
			}
		}
		return null;
	}

}
