// Device code that several templates share lives once, in templates/common/NAME.cuh; a large
// template may also split its own source into pieces in its folder, NAME.cuh. A template's source
// names a piece with a line of its own, `#include "common/NAME.cuh"` or `#include "NAME.cuh"`, and
// rendering puts the piece's text in that line's place: every generated kernel stays one
// self-contained file (what NVRTC compiles, what the Source view shows and what a share string
// carries), while the template folders hold each wrapper and helper once.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kx::engine {

// Piece name ("common/mma_sync.cuh", or a template's own "halo_gather.cuh") -> its text.
using SharedPieces = std::map<std::string, std::string>;

struct SharedPieceInclude {
    int line = 0;        // 1-based line of the #include in the source
    std::string name;    // "common/mma_sync.cuh", or "halo_gather.cuh"
    bool local = false;  // a piece in the template's own folder
};

// The piece includes of a source, in order. A line is one when, trimmed, it reads
// `#include "common/NAME.cuh"` (shared) or `#include "NAME.cuh"` with no folder in NAME (the
// template's own); other includes are left to the compiler.
std::vector<SharedPieceInclude> sharedPieceIncludes(const std::string& source);

// The folder holding common/: dataRoot()/templates, for shipped and user templates alike.
std::filesystem::path sharedPiecesRoot();

// A template's own piece by name ("halo_gather.cuh"): its text. Throws InputError, its message
// starting with `location`, when the piece cannot be had.
using LocalPieceReader = std::function<std::string(const std::string& name, const std::string& location)>;

// Reads every piece the source includes: shared ones from templatesDir (the folder holding
// common/), the template's own through readLocal (from its folder, or from the files a share
// string carries). Throws InputError "where:line: reason" when a name is not lower-case letters,
// digits and '_' before .cuh, or its file is missing, too large, or includes a piece itself
// (pieces do not nest), or when a source without a folder (readLocal empty) names its own piece.
SharedPieces readSharedPieces(const std::string& source, const std::filesystem::path& templatesDir, const std::string& where,
                              const LocalPieceReader& readLocal = {});

// readLocal for a template folder on disk.
LocalPieceReader localPiecesIn(const std::filesystem::path& folder);

}  // namespace kx::engine
