// A tutorial's checkpoints judged on a session file (`kx tutorial check NAME --session FILE`):
// the session's variants, their stored PTX and ptxas reports, and their runs.
//
// Each step is judged on the session variant that satisfies most of its checkpoints, among the
// variants of the step's template (any variant when the step selects none); ties go to the
// variant whose config is the step's target (what its "Show me" actions set up), then to the
// newest. So a learner who explored past the suggested config is judged on what they kept.
#pragma once

#include "arch/arch_database.hpp"
#include "store/session_store.hpp"
#include "templates/template_library.hpp"
#include "tutorial/checkpoint.hpp"
#include "tutorial/tutorial.hpp"

#include <string>
#include <vector>

namespace kx::engine {

// What a stored variant holds, as a checkpoint sees it, with every run of the session.
TutorialState sessionVariantState(const SessionStore& store, const SessionVariant& variant, const TemplateLibrary& templates,
                                  const ArchDatabase& arches, const std::vector<RunFacts>& allRuns);

// Every run of every variant in the session, oldest first.
std::vector<RunFacts> sessionRuns(const SessionStore& store);

struct StepCheck {
    std::string variant;                 // the variant judged; empty when the session had none to offer
    std::vector<CheckVerdict> verdicts;  // one per checkpoint, in order
};

// One entry per step. Throws InputError (file:line) when the tutorial's actions do not fit the
// templates (see stepTargets).
std::vector<StepCheck> checkSession(const Tutorial& tutorial, const SessionStore& store, const TemplateLibrary& templates,
                                    const ArchDatabase& arches);

}  // namespace kx::engine
