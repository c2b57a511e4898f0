// Mutated `kx occupancy --csv` input: every row parsed and computed. Errors are InputErrors
// ("row N, column C: reason"), nothing else.
#include "fuzz_support.hpp"

#include "analysis/occupancy_csv.hpp"
#include "arch/arch_database.hpp"
#include "util/error.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const kx::engine::ArchDatabase arches = kx::engine::ArchDatabase::loadFromDataRoot(KX_FUZZ_SOURCE_DIR);
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        kx::engine::occupancyCsv(in, arches);
    } catch (const kx::engine::InputError&) {
    }
    return 0;
}
