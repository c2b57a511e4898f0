// A mutated kernel source in a copy of one of the repository's templates (the first byte picks
// which; its manifest is the real one): loaded, then up to 32 configs of its space validated,
// named and rendered for sm_90 (and gfx942 when it has HIP). Errors are InputErrors, nothing else.
#include "fuzz_support.hpp"

#include "arch/arch_database.hpp"
#include "sweep/space.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <regex>
#include <sstream>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct RepoTemplate {
    fs::path folder;
    std::string manifest;
    std::string sourceFile;  // the manifest's first <source file="...">
};

std::vector<RepoTemplate> repoTemplates() {
    std::vector<RepoTemplate> out;
    std::vector<fs::path> folders;
    for (const auto& e : fs::directory_iterator(fs::path(KX_FUZZ_SOURCE_DIR) / "templates"))
        if (fs::exists(e.path() / "manifest.xml")) folders.push_back(e.path());
    std::sort(folders.begin(), folders.end());  // scripts/fuzz.sh numbers the seeds in this order
    for (const fs::path& f : folders) {
        std::ifstream in(f / "manifest.xml", std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        std::smatch m;
        const std::string manifest = text.str();
        if (!std::regex_search(manifest, m, std::regex("<source file=\"([^\"]+)\""))) continue;
        out.push_back({f, manifest, m[1]});
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::vector<RepoTemplate> repo = repoTemplates();
    static const kx::engine::ArchDatabase arches = kx::engine::ArchDatabase::loadFromDataRoot(KX_FUZZ_SOURCE_DIR);
    if (size == 0 || repo.empty()) return 0;
    const RepoTemplate& chosen = repo[data[0] % repo.size()];
    const fs::path lib = kx::fuzz::scratchDir() / "render" / std::to_string(data[0] % repo.size());
    const fs::path folder = lib / chosen.folder.filename();
    if (!fs::exists(folder)) {
        fs::create_directories(lib);
        fs::copy(chosen.folder, folder, fs::copy_options::recursive);
    }
    kx::fuzz::writeFile(folder / chosen.sourceFile, data + 1, size - 1);
    const kx::engine::TemplateLibrary library = kx::engine::TemplateLibrary::load(lib);
    for (const auto& t : library.templates()) {
        std::vector<std::string> varies;
        for (const auto& p : t->manifest().params) varies.push_back(p.name);
        std::vector<kx::engine::Config> configs;
        try {
            configs = kx::engine::spaceConfigs(kx::engine::makeSpace(*t, {t->defaultConfig()}, varies), 32, 1);
        } catch (const kx::engine::InputError&) {
            configs = {t->defaultConfig()};
        }
        for (const char* archName : {"sm_90", "gfx942"}) {
            const kx::engine::Arch* arch = arches.findArch(archName);
            if (!arch) continue;
            for (const kx::engine::Config& c : configs) {
                try {
                    t->validate(c, *arch);
                    t->configName(c);
                    t->render(c, *arch);
                } catch (const kx::engine::InputError&) {
                }
            }
        }
    }
    return 0;
}
