// Every template in the repository is documented where a user looks for it: its own README says
// what it measured (or, for one that no GPU here can run, how it was checked without one), and
// the project README's template table has its row with a link to that README.
#include "../test_support.hpp"

#include "compile/compile_files.hpp"
#include "templates/template_library.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

namespace fs = std::filesystem;
using namespace kx::engine;

TEST_CASE("every template has a README with its measurements and a row in the project README's table", "[templates][docs]") {
    const TemplateLibrary lib = TemplateLibrary::load(kx::test::sourceDir() / "templates");
    const std::string projectReadme = compile_files::readFile(kx::test::sourceDir() / "README.md");
    REQUIRE_FALSE(projectReadme.empty());
    REQUIRE(lib.templates().size() >= 10);
    for (const auto& tmpl : lib.templates()) {
        const TemplateManifest& m = tmpl->manifest();
        INFO("template " << m.id);
        const fs::path readme = fs::path(m.folder) / "README.md";
        REQUIRE(fs::is_regular_file(readme));
        const std::string text = compile_files::readFile(readme);
        const bool runsHere = std::find(m.languages.begin(), m.languages.end(), "cuda") != m.languages.end();
        if (runsHere)
            CHECK(text.find("\n## Measured") != std::string::npos);
        else
            CHECK(text.find("\n## Checked without the hardware") != std::string::npos);
        const std::string row = "\n| [" + m.id + "](templates/" + m.id + "/README.md) |";
        CHECK(projectReadme.find(row) != std::string::npos);
    }
}
