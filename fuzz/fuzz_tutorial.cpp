// A mutated tutorial.xml: loaded through TutorialLibrary (parse, prose, images), its prose laid
// out as text, and its steps played through against the repository's templates and arches.
// Errors are InputErrors (recorded as load errors), nothing else.
#include "fuzz_support.hpp"

#include "arch/arch_database.hpp"
#include "templates/template_library.hpp"
#include "tutorial/tutorial.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    static const kx::engine::ArchDatabase arches = kx::engine::ArchDatabase::loadFromDataRoot(KX_FUZZ_SOURCE_DIR);
    static const kx::engine::TemplateLibrary templates = kx::engine::TemplateLibrary::load(fs::path(KX_FUZZ_SOURCE_DIR) / "templates");
    const fs::path dir = kx::fuzz::scratchDir() / "tutorials";
    fs::create_directories(dir / "fuzzed");
    kx::fuzz::writeFile(dir / "fuzzed" / "tutorial.xml", data, size);
    const kx::engine::TutorialLibrary library = kx::engine::TutorialLibrary::load(dir);
    for (const auto& e : library.errors()) (void)e.message.size();
    for (const auto& t : library.tutorials()) {
        for (const auto& step : t->steps) kx::engine::proseToText(step.prose);
        try {
            kx::engine::stepTargets(*t, templates, arches);
        } catch (const kx::engine::InputError&) {
        }
    }
    return 0;
}
