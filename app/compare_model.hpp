// What the Compare view compares: the variants kept in the session, as immutable snapshots
// (variant_snapshot.hpp) built from what the session file holds. "Keep" (Ctrl+P) adds the current
// compiled variant to the session; its SASS is disassembled on the session's worker.
// Not thread-safe: call everything from the UI thread.
#pragma once

#include "session_model.hpp"
#include "variant_snapshot.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kx::app {

class ExplorerModel;

class CompareModel {
public:
    // The view compares up to kMaxSelected variants at once: more columns make the metrics
    // table unreadable.
    static constexpr std::size_t kMaxSelected = 4;

    explicit CompareModel(SessionModel& session) : m_session(session) {}
    CompareModel(const CompareModel&) = delete;
    CompareModel& operator=(const CompareModel&) = delete;

    // Why the current variant cannot be kept now; empty when it can (compiled and assembled, and
    // a writable session is open).
    static std::string cannotKeepReason(const ExplorerModel& model);
    // Keeps the current variant in the session (asynchronously: it appears in pins() once
    // written). Throws engine::InputError with cannotKeepReason().
    void keep(const ExplorerModel& model);

    // The session's variants, by id (empty while no session is open).
    const std::vector<SnapshotPtr>& pins() const;
    // Index of the variant named so: its exact name, the tail of a procedural name after an
    // underscore when only one ends so ("64x128x32_w32x64_s2"), or its 1-based position in
    // pins(). -1 when none or ambiguous.
    int find(const std::string& nameOrSuffix) const;
    // Changes whenever pins() may have changed: caches key on it.
    std::uint64_t revision() const { return m_session.revision(); }

    // The newest successful run of the variant; nullptr when none.
    static const engine::RunReport* latestRun(const VariantSnapshot& s) { return s.run ? &*s.run : nullptr; }

private:
    SessionModel& m_session;
    mutable std::vector<SnapshotPtr> m_pins;
    mutable std::uint64_t m_pinsRevision = ~std::uint64_t{0};
};

}  // namespace kx::app
