// Speculative compiles of the configs one edit away from the one on screen, while the user
// reads it: when the next edit lands on one of them (the common case: the next tile size, the
// other dtype, one more stage), its PTX is already in the Compiler's cache and appears at once.
//
// A round starts after the current config compiled and stops at the next edit. It goes through
// the neighbours in the order a user is likely to take them: the parameter edited last first
// (its next value in the same direction, then back), then every other parameter's adjacent
// values in manifest order; invalid configs are skipped. PTX for all of them first, then the
// ptxas stage, one config at a time on its own worker so the user's own compile (on another
// core) never waits behind it; a compile of the same config that is in flight here is joined, not
// repeated (Compiler dedupes by key). Results stay in the Compiler's memory cache only: the
// disk cache gets what the user actually looked at.
#pragma once

#include "arch/arch.hpp"
#include "compile/compiler.hpp"
#include "jobs/job_queue.hpp"
#include "templates/template.hpp"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace kx::engine {

// Every value a parameter may take, in its order, as canonical text.
std::vector<std::string> parameterValues(const ParamSpec& p);

// The valid configs one parameter away from `config`: each Int parameter's previous and next
// allowed value (or ±1 in a range), each other choice of an Enum or Bool; ordered as above, with
// `lastEdited` (may be empty) first and `previousValue` (its value before that edit, may be
// empty) last among its neighbours, since the user just left it.
std::vector<Config> neighbourConfigs(const Template& tmpl, const Config& config, const Arch& arch,
                                     const std::string& lastEdited = "", const std::string& previousValue = "");

class NeighbourPrefetcher {
public:
    explicit NeighbourPrefetcher(std::shared_ptr<Compiler> compiler);
    ~NeighbourPrefetcher();  // stops the round; the compile in flight finishes first
    NeighbourPrefetcher(const NeighbourPrefetcher&) = delete;
    NeighbourPrefetcher& operator=(const NeighbourPrefetcher&) = delete;

    // Replaces the current round with one for the neighbours of `config`.
    void start(std::shared_ptr<const Template> tmpl, const Config& config, const Arch& arch, const std::string& lastEdited = "",
               const std::string& previousValue = "");
    // Ends the round: no further compile starts (the one in flight runs to its end).
    void stop();
    bool idle() const { return !m_job || m_job->finished(); }

    // Configs compiled by rounds so far (PTX stage), for tests and benchmarks.
    int ptxCompiled() const { return m_ptxCompiled.load(); }

private:
    std::shared_ptr<Compiler> m_compiler;
    std::shared_ptr<Job> m_job;
    std::atomic<int> m_ptxCompiled{0};
    JobQueue m_jobs{1};  // last: joins its worker before the rest goes
};

}  // namespace kx::engine
