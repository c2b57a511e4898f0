// Device code that several templates share lives once, in templates/common/NAME.cuh. A template's
// source names a piece with a line of its own, `#include "common/NAME.cuh"`, and rendering puts
// the piece's text in that line's place: every generated kernel stays one self-contained file
// (what NVRTC compiles, what the Source view shows and what a share string carries), while the
// template folders hold each wrapper and helper once.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kx::engine {

// Piece name ("common/mma_sync.cuh") -> its text.
using SharedPieces = std::map<std::string, std::string>;

struct SharedPieceInclude {
    int line = 0;      // 1-based line of the #include in the source
    std::string name;  // "common/mma_sync.cuh"
};

// The shared-piece includes of a source, in order. A line is one when, trimmed, it reads
// `#include "common/NAME.cuh"`; other includes are left to the compiler.
std::vector<SharedPieceInclude> sharedPieceIncludes(const std::string& source);

// The folder holding common/: dataRoot()/templates, for shipped and user templates alike.
std::filesystem::path sharedPiecesRoot();

// Reads every piece the source includes from templatesDir (the folder holding common/). Throws
// InputError "where:line: reason" when a name is not lower-case letters, digits and '_' before
// .cuh, or its file is missing, too large, or includes a piece itself (pieces do not nest).
SharedPieces readSharedPieces(const std::string& source, const std::filesystem::path& templatesDir, const std::string& where);

}  // namespace kx::engine
