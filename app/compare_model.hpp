// Variants pinned for comparison: immutable snapshots of everything the Compare view shows
// (source, PTX, SASS, resources, launch, occupancy, instruction mix, predicted intensity, the
// latest successful run), taken when the user pins a compiled variant.
//
// A snapshot holds copies, never pointers into the live model, so it stays exactly as pinned
// while the user edits on. Snapshots are shared as shared_ptr<const VariantSnapshot>: views may
// key their caches (diffs, tables) on the pointer. The one thing that arrives later is the SASS
// listing (nvdisasm/cuobjdump run on a worker): it replaces the pin with a new snapshot that has
// it, so no snapshot ever changes under a reader.
//
// Runs made after pinning are not in the snapshot; latestRun() looks them up in the RunModel's
// history by name and arch so the comparison shows the newest measurement.
// Not thread-safe: call everything from the UI thread.
#pragma once

#include "analysis/instruction_mix.hpp"
#include "analysis/occupancy.hpp"
#include "compile/compiler.hpp"
#include "jobs/job_queue.hpp"
#include "run/variant_run.hpp"
#include "templates/template.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::app {

class ExplorerModel;
class RunModel;

struct VariantSnapshot {
    std::string name;          // procedural config name
    std::string templateId;
    std::string arch;          // "sm_90"
    engine::Config config;
    std::string source;        // rendered source
    std::string ptx;
    std::string sass;          // empty unless a disassembler was found
    std::string sassNote;      // why there is no SASS (empty while it is being made, or when present)
    engine::KernelResources resources;  // the first kernel of the ptxas report
    std::optional<engine::LaunchGeometry> launch;  // at the template's default sizes
    std::optional<engine::OccupancyResult> occupancy;
    std::string occupancyNote;            // why there is no occupancy
    engine::InstructionMix mix;           // of the PTX
    std::optional<engine::RunReport> run; // the latest successful run when pinned
    double flops = 0;                     // at the default sizes
    double minBytes = 0;
    double predictedAi = 0;               // flops / minBytes; 0 when the template gives none
    std::string pinnedAt;                 // local time "14:03:12"

    // "name (sm_90)", for captions.
    std::string label() const { return name + " (" + arch + ")"; }
};

using SnapshotPtr = std::shared_ptr<const VariantSnapshot>;

class CompareModel {
public:
    // More columns than this make the metrics table unreadable and the pins list a chore; the
    // view compares up to kMaxSelected of them at once.
    static constexpr std::size_t kMaxPins = 8;
    static constexpr std::size_t kMaxSelected = 4;

    CompareModel();
    ~CompareModel();
    CompareModel(const CompareModel&) = delete;
    CompareModel& operator=(const CompareModel&) = delete;

    // Why the current variant cannot be pinned now; empty when it can (compiled and assembled).
    static std::string cannotPinReason(const ExplorerModel& model);
    // Pins the current variant, replacing a pin of the same name and arch (it keeps its place).
    // Throws engine::InputError with cannotPinReason() or when kMaxPins are pinned already.
    // Returns the new snapshot.
    SnapshotPtr pin(const ExplorerModel& model);
    // Removes the pin at index (no-op when out of range).
    void unpin(std::size_t index);
    void clear();

    const std::vector<SnapshotPtr>& pins() const { return m_pins; }
    // Index of the pin named so: its exact name, the tail of a procedural name after an
    // underscore when only one pin ends so ("64x128x32_w32x64_s2"), or its 1-based position in
    // pins(). -1 when none or ambiguous.
    int find(const std::string& nameOrSuffix) const;
    // Bumped on every change of pins (including a SASS arrival): caches key on it.
    std::uint64_t revision() const { return m_revision; }

    // The newest successful run of the snapshot's variant on its arch: from the history when one
    // was made after pinning, else the one pinned with it; nullptr when none.
    static const engine::RunReport* latestRun(const VariantSnapshot& s, const RunModel& runs);

    // Once per frame on the UI thread: applies arrived SASS listings.
    void update();

private:
    void startSass(const SnapshotPtr& snapshot, const std::string& cubin);

    std::vector<SnapshotPtr> m_pins;
    std::uint64_t m_revision = 0;

    // Declared last: the queue joins its worker before the mailbox it posts to goes away.
    engine::Mailbox m_mailbox;
    engine::JobQueue m_jobs{1};
};

}  // namespace kx::app
