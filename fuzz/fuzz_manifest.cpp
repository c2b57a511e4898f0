// A mutated manifest.xml: loaded (with the load-time checks), and every template that loads has
// its default config validated, named, rendered and resolved. Errors are InputErrors, nothing else.
#include "fuzz_support.hpp"

#include "templates/manifest_checks.hpp"
#include "templates/template_library.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    const fs::path lib = kx::fuzz::scratchDir() / "templates";
    const fs::path folder = lib / "fuzzed";
    fs::create_directories(folder);
    // A kernel source that uses placeholders, so rendering does some work when the names match.
    static const bool sourceWritten = [&] {
        const std::string source = "// ${KERNEL_NAME} for ${ARCH}\nextern \"C\" __global__ void ${KERNEL_NAME}() {}\n";
        for (const char* name : {"tiny.cu", "gemm.cu", "kernel.cu", "reduce.cu"})
            kx::fuzz::writeFile(folder / name, reinterpret_cast<const std::uint8_t*>(source.data()), source.size());
        return true;
    }();
    (void)sourceWritten;
    kx::fuzz::writeFile(folder / "manifest.xml", data, size);
    const kx::engine::TemplateLibrary library = kx::engine::TemplateLibrary::load(lib);
    const kx::engine::Arch arch = kx::engine::manifestCheckArch(false);
    for (const auto& t : library.templates()) {
        try {
            const kx::engine::Config c = t->defaultConfig();
            t->validate(c, arch);
            t->configName(c);
            t->render(c, arch);
            t->resolveArgs(c, arch, t->defaultSizes());
            t->launches(c, arch, t->defaultSizes());
            t->flops(c, arch, t->defaultSizes());
        } catch (const kx::engine::InputError&) {
        }
    }
    return 0;
}
