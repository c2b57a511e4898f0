// What the Compare view shows of one session variant: an immutable snapshot of its stored
// artifacts (source, PTX, SASS, ptxas report), what follows from them (launch, occupancy,
// instruction mix, predicted intensity) and its newest successful run.
//
// Snapshots are built on the session's worker thread from what the session file holds, and shared
// as shared_ptr<const VariantSnapshot>: a snapshot never changes under a reader, and views may
// key their caches (diffs, tables) on the pointer.
#pragma once

#include "analysis/instruction_mix.hpp"
#include "analysis/occupancy.hpp"
#include "arch/arch_database.hpp"
#include "compile/compiler.hpp"
#include "run/variant_run.hpp"
#include "store/session_store.hpp"
#include "templates/template.hpp"
#include "templates/template_library.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

struct VariantSnapshot {
    std::int64_t variantId = 0;  // in the session
    std::string name;            // the variant's name in the session
    std::string templateId;
    std::string arch;            // "sm_90"
    engine::Config config;
    std::string notes;
    std::string source;          // rendered source
    std::string ptx;
    std::string sass;            // empty when none was stored
    std::string sassNote;        // why there is no SASS; empty when there is
    engine::KernelResources resources;  // the primary launch's kernel in the ptxas report
    bool hasResources = false;
    std::optional<engine::LaunchGeometry> launch;  // at the template's default sizes
    std::optional<engine::OccupancyResult> occupancy;
    std::string occupancyNote;            // why there is no occupancy
    engine::InstructionMix mix;           // of the PTX
    std::optional<engine::RunReport> run; // the newest successful run
    int runCount = 0;
    double flops = 0;                     // at the default sizes
    double minBytes = 0;
    double predictedAi = 0;               // flops / minBytes; 0 when the template gives none
    std::string rooflineUnit = "fp32";  // the compute roof its template names for this config
    std::string updatedAt;                // ISO 8601 UTC, from the session

    // "name (sm_90)", for captions.
    std::string label() const { return name + " (" + arch + ")"; }
};

using SnapshotPtr = std::shared_ptr<const VariantSnapshot>;

// What the session holds of one variant.
struct StoredVariant {
    engine::SessionVariant variant;
    std::string source, ptx, sass;
    std::vector<engine::KernelResources> kernels;  // empty when no ptxas report was stored
    std::vector<engine::StoredRun> runs;           // oldest first
};

// Builds the snapshot. Never throws: what cannot be derived (unknown template or arch, formulas
// that fail) is left empty with a note.
SnapshotPtr makeSnapshot(const StoredVariant& stored, const engine::TemplateLibrary& library, const engine::ArchDatabase& arches);

}  // namespace kx::app
