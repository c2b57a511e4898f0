#include "tutorial/session_check.hpp"

#include "store/session_record.hpp"
#include "util/error.hpp"

#include <algorithm>

namespace kx::engine {

std::vector<RunFacts> sessionRuns(const SessionStore& store) {
    std::vector<std::pair<std::int64_t, RunFacts>> byId;
    for (const SessionVariant& v : store.variants())
        for (const StoredRun& run : store.runsOf(v.id)) byId.emplace_back(run.id, runFacts(run.report, v.config.templateId, v.config.values, v.config.flags.canonical()));
    std::sort(byId.begin(), byId.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RunFacts> out;
    for (auto& [id, facts] : byId) out.push_back(std::move(facts));
    return out;
}

TutorialState sessionVariantState(const SessionStore& store, const SessionVariant& variant, const TemplateLibrary& templates,
                                  const ArchDatabase& arches, const std::vector<RunFacts>& allRuns) {
    TutorialState s;
    s.templateId = variant.config.templateId;
    s.arch = variant.arch;
    s.config = variant.config.values;
    s.flags = variant.config.flags.canonical();
    s.runs = allRuns;
    const auto tmpl = templates.find(s.templateId);
    const Arch* arch = arches.findArch(variant.arch);
    if (!tmpl || !arch) {
        s.compileNote = "its template or architecture is unknown here";
        return s;
    }
    const std::string ptx = store.artifactOf(variant.id, ArtifactKind::Ptx).value_or("");
    std::vector<KernelResources> kernels;
    if (const auto resources = store.artifactOf(variant.id, ArtifactKind::Resources)) {
        try {
            kernels = parseResourcesJson(*resources);
        } catch (const InputError&) {
            s.compileNote = "its stored ptxas report is unreadable";
        }
    } else {
        s.compileNote = "the session holds no ptxas report for it";
    }
    setCompileFacts(s, *tmpl, *arch, variant.config, ptx, kernels);
    return s;
}

std::vector<StepCheck> checkSession(const Tutorial& tutorial, const SessionStore& store, const TemplateLibrary& templates,
                                    const ArchDatabase& arches) {
    const std::vector<StepTarget> targets = stepTargets(tutorial, templates, arches);
    const std::vector<RunFacts> runs = sessionRuns(store);
    const std::vector<SessionVariant> variants = store.variants();
    std::vector<TutorialState> states;
    for (const SessionVariant& v : variants) states.push_back(sessionVariantState(store, v, templates, arches, runs));

    std::vector<StepCheck> out;
    for (std::size_t i = 0; i < tutorial.steps.size(); ++i) {
        const StepTarget& target = targets[i];
        StepCheck best;
        int bestScore = -1;
        bool bestIsTarget = false;
        for (std::size_t v = 0; v < variants.size(); ++v) {
            if (!target.templateId.empty() && variants[v].config.templateId != target.templateId) continue;
            std::vector<CheckVerdict> verdicts = evaluateStep(tutorial, static_cast<int>(i), targets, states[v]);
            const int score = static_cast<int>(std::count_if(verdicts.begin(), verdicts.end(), [](const CheckVerdict& c) { return c.status == CheckStatus::Pass; }));
            const bool isTarget = variants[v].config.values == target.config && variants[v].config.flags.canonical() == target.flags;
            // Variants come oldest first, so >= on equal merit prefers the newer one.
            if (score > bestScore || (score == bestScore && (isTarget || !bestIsTarget))) {
                best = {variants[v].name, std::move(verdicts)};
                bestScore = score;
                bestIsTarget = isTarget;
            }
        }
        if (bestScore < 0) {
            TutorialState none;
            none.runs = runs;
            none.compileNote = target.templateId.empty() ? "the session has no variant"
                                                         : "the session has no variant of " + target.templateId + ": follow the step in the app, or kx run it with --session";
            best = {"", evaluateStep(tutorial, static_cast<int>(i), targets, none)};
            for (CheckVerdict& c : best.verdicts)
                if (c.status == CheckStatus::Fail) c.reason = none.compileNote;
        }
        out.push_back(std::move(best));
    }
    return out;
}

}  // namespace kx::engine
