// `kx occupancy --csv`: one NVIDIA launch per row in, the same rows with blocks_per_sm out.
#pragma once

#include "arch/arch_database.hpp"

#include <istream>
#include <string>

namespace kx::engine {

// Reads the CSV (header arch,regs,static_smem,block,dyn_smem,carveout) and returns it with a
// blocks_per_sm column. Every row is computed before any is returned, so a bad row leaves no
// partial output. Throws InputError "row N[, column C]: reason" for a bad header, column count,
// unknown or AMD arch, a value out of its range (never wrapped), a line over 4096 characters or
// a NUL byte (binary input such as /dev/zero ends at once).
std::string occupancyCsv(std::istream& in, const ArchDatabase& arches);

}  // namespace kx::engine
