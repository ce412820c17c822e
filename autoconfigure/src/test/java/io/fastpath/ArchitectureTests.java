package io.fastpath;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The library's layout as rules over its compiled classes: only its auto-configuration
 * knows Spring Boot, so that plain WebFlux users can register the codecs by hand; and its
 * packages depend on each other one way, each package apart from its subpackages, so that
 * each can be read, and changed, before the ones that use it.
 */
class ArchitectureTests {

	private static final JavaClasses LIBRARY = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.fastpath");

	@Test
	void onlyTheAutoConfigurationKnowsSpringBoot() {
		noClasses().that()
			.resideOutsideOfPackage("io.fastpath.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.boot..")
			.check(LIBRARY);
	}

	@Test
	void thePackagesHaveNoCycles() {
		slices().matching("io.fastpath.(**)").should().beFreeOfCycles().check(LIBRARY);
	}

}
