package io.fastpath.sample;

import java.util.List;
import java.util.Optional;

import io.fastpath.form.FormParam;
import io.fastpath.form.FormParameters;
import io.fastpath.form.RequestParameters;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Form fields ({@code application/x-www-form-urlencoded} or {@code multipart/form-data})
 * bound to controller arguments with {@code @FormParam}, file parts included, the whole
 * form as {@link FormParameters}, and query + form parameters as one
 * {@link RequestParameters} view. WebFlux's own {@code @RequestParam} reads the query
 * string only.
 */
@RestController
class SignupController {

	@PostMapping("/signup")
	Signup signup(@FormParam String email, @FormParam(defaultValue = "1") int seats,
			@FormParam(name = "tag", required = false) List<String> tags, @FormParam Optional<String> referrer,
			@FormParam(defaultValue = "STANDARD") Plan plan) {
		return new Signup(email, seats, (tags != null) ? tags : List.of(), referrer.orElse("none"), plan);
	}

	/**
	 * A multipart form ({@code curl -F}) with file parts: each attachment is read from
	 * memory or from the disk Spring's multipart reader stored it on, and measured.
	 */
	@PostMapping("/support")
	Mono<SupportRequest> support(@FormParam String subject,
			@FormParam(name = "attachment", required = false) List<FilePart> attachments) {
		return Flux.fromIterable((attachments != null) ? attachments : List.of())
			.concatMap((attachment) -> attachment.content().map((buffer) -> {
				int size = buffer.readableByteCount();
				DataBufferUtils.release(buffer);
				return size;
			}).reduce(0, Integer::sum).map((size) -> new Attachment(attachment.filename(), size)))
			.collectList()
			.map((measured) -> new SupportRequest(subject, measured));
	}

	@PostMapping("/search")
	Search search(FormParameters form, RequestParameters parameters) {
		return new Search(form.size(), List.copyOf(form.names()), parameters.getAll("q"),
				parameters.getFirst("page"));
	}

	/**
	 * What the service answers for a support request.
	 *
	 * @param subject what it is about
	 * @param attachments the files attached, in order
	 */
	record SupportRequest(String subject, List<Attachment> attachments) {

	}

	/**
	 * A file attached to a support request.
	 *
	 * @param filename its name
	 * @param bytes its size
	 */
	record Attachment(String filename, int bytes) {

	}

	enum Plan {

		STANDARD, PREMIUM

	}

	/**
	 * What the service answers for a search.
	 *
	 * @param formFields how many fields the form had
	 * @param formNames the names in the form
	 * @param q every {@code q}, from the query then the form
	 * @param page the first {@code page}, from the query or else the form
	 */
	record Search(int formFields, List<String> formNames, List<String> q, String page) {

	}

	/**
	 * What the service answers for a signup.
	 *
	 * @param email who signed up
	 * @param seats how many seats
	 * @param tags the tags chosen
	 * @param referrer who referred them
	 * @param plan the plan chosen
	 */
	record Signup(String email, int seats, List<String> tags, String referrer, Plan plan) {

	}

}
