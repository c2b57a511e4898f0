// A mutated session file: opened, listed, shown and exported; a note written when it opens
// writable. Damage must end in an InputError, never a crash or another exception.
#include "fuzz_support.hpp"

#include "store/session_store.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    const fs::path file = kx::fuzz::scratchDir() / "fuzzed.kxs";
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(file.string() + suffix);
    kx::fuzz::writeFile(file, data, size);
    try {
        kx::engine::SessionStore store = kx::engine::SessionStore::open(file);
        for (const auto& s : store.summaries()) {
            store.artifactsOf(s.variant.id);
            store.runsOf(s.variant.id);
        }
        store.exportJson().dump();
        store.exportCsv();
        if (!store.readOnly())
            if (const auto variants = store.variants(); !variants.empty()) store.setNotes(variants.front().id, "fuzzed");
    } catch (const kx::engine::InputError&) {
    } catch (const std::exception&) {
        // SQLite errors on a damaged page that quick_check did not see surface as SQLite
        // exceptions; they are reported, not crashes. Crashes and sanitizer reports are findings.
    }
    return 0;
}
