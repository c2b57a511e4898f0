// A mutated preselected.xml for one of the repository's templates (the first byte picks which, in
// the order of TemplateLibrary's list): its sets loaded, each one's configs laid over the
// defaults, named and validated for sm_90, and its problem sizes resolved and printed. A
// malformed file is an InputError naming file and line, nothing else.
#include "fuzz_support.hpp"

#include "arch/arch_database.hpp"
#include "sweep/preselected.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    namespace e = kx::engine;
    static const e::ArchDatabase arches = e::ArchDatabase::loadFromDataRoot(KX_FUZZ_SOURCE_DIR);
    static const e::TemplateLibrary templates = e::TemplateLibrary::load(fs::path(KX_FUZZ_SOURCE_DIR) / "templates");
    static const e::Arch* sm90 = arches.findArch("sm_90");
    if (size < 1 || templates.templates().empty() || !sm90) return 0;
    const e::Template& tmpl = *templates.templates()[data[0] % templates.templates().size()];
    const fs::path file = kx::fuzz::scratchDir() / "preselected.xml";
    kx::fuzz::writeFile(file, data + 1, size - 1);
    std::vector<e::PreselectedSet> sets;
    try {
        sets = e::loadPreselected(tmpl, file);
    } catch (const e::InputError& error) {
        // "file:line: reason"
        if (std::string(error.what()).rfind(file.string() + ":", 0) != 0) __builtin_trap();
        return 0;
    }
    for (const e::PreselectedSet& set : sets) {
        (void)set.coversArch("sm_90a");
        for (const e::Config& c : e::preselectedConfigs(set, tmpl.defaultConfig())) {
            (void)tmpl.configName(c);
            (void)tmpl.validate(c, *sm90);
            (void)e::preselectedConfigXml(tmpl, c);
        }
        (void)e::preselectedSizes(tmpl, &set, {});  // checked when loaded: never throws here
        (void)e::preselectedSizesText(set);
    }
    return 0;
}
