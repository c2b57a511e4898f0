// The <visual> element of a manifest: how the tile visualizer draws a template's work split,
// declared as data (templates/README.md, "Tile view"). Parsed here, evaluated by
// analysis/tile_layout.hpp for a config, an arch, a device and problem sizes.
#pragma once

#include <map>
#include <string>

namespace tinyxml2 {
class XMLElement;
}

namespace kx::engine {

struct VisualSpec {
    // "gemm": C split into block tiles, warp tiles and fragments, with a K loop and shared-memory
    // stages. "blocks": a 1-D array split into block tiles of threads x items x vector.
    std::string kind;
    // gemm only: how a warp's tile of C is held. "thread" (each lane a TM x TN register tile),
    // "mma_m16n8k16" (mma.sync fragments), "wgmma_m64nNk16" (a warpgroup's wgmma accumulators).
    std::string fragment;
    std::map<std::string, std::string> exprs;  // attribute -> expression over the variables and sizes
    int line = 0;
};

// Reads <visual .../>: the kind, the fragment, and every other attribute as an expression.
// Throws InputError "file:line: reason" for an unknown kind or fragment, an attribute the kind
// does not take, or a required one that is missing.
VisualSpec parseVisualSpec(const std::string& file, const tinyxml2::XMLElement* element);

}  // namespace kx::engine
