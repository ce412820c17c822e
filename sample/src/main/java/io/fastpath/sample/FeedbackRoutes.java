package io.fastpath.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * A functional endpoint that reads a form with {@code ServerRequest.formData()}: Fastpath's
 * lazy form reader serves it as it serves {@code getFormData()} in controllers.
 */
@Configuration(proxyBeanMethods = false)
class FeedbackRoutes {

	@Bean
	RouterFunction<ServerResponse> feedbackRoute() {
		return RouterFunctions.route()
			.POST("/feedback", (request) -> request.formData().flatMap((form) -> {
				String rating = form.getFirst("rating");
				String comment = form.getFirst("comment");
				return ServerResponse.ok()
					.bodyValue(new Feedback((rating != null) ? rating : "-", (comment != null) ? comment : ""));
			}))
			.build();
	}

	/**
	 * What the service answers for feedback.
	 *
	 * @param rating the rating given
	 * @param comment the comment given
	 */
	record Feedback(String rating, String comment) {

	}

}
