// Instruction Mix: what the current variant's code is made of, by category (FP32 FMA, tensor
// core, global/shared/local memory, barriers, shuffles, ...) as horizontal bars, the widths of
// its global and shared loads and stores, and warnings (local memory = spills or run-time-indexed
// arrays) in the error colour. Every bar teaches in its tooltip.
//
// Static counts (engine/analysis/instruction_mix.hpp): each instruction in the listing once.
// The PTX mix is computed when the compile result changes (its cache key), never per frame.
// The SASS mix needs nvdisasm or cuobjdump: the view disassembles the CUBIN on its own worker
// thread (the model has no SASS hook) and takes the result back through a Mailbox it drains at
// the start of drawContent(); a result for an older compile is dropped. Without the tools the
// SASS choice is disabled and says why.
#pragma once

#include "analysis/instruction_mix.hpp"
#include "jobs/job_queue.hpp"
#include "views/view.hpp"

#include <memory>
#include <optional>
#include <string>

namespace kx::app {

class InstructionMixView final : public View {
public:
    explicit InstructionMixView(ViewContext context);
    ~InstructionMixView() override;

protected:
    void drawContent() override;

private:
    enum class SassState { None, Running, Ready, Unavailable };

    void refresh();  // recompute when the compile result changed
    void startSass(const std::string& cubin);
    void drawToolbar(const engine::InstructionMix& shown);
    void drawWarnings(const engine::InstructionMix& shown);
    void drawCategories(const engine::MixCounts& counts, bool dimmed);
    void drawWidths(const engine::MixCounts& counts, bool dimmed);
    void drawWidthRow(const char* label, const engine::WidthCounts& widths, const std::string& teach, bool dimmed);

    std::string m_key;  // cache key of the compile result the mixes below belong to
    std::optional<engine::InstructionMix> m_ptx;
    std::optional<engine::InstructionMix> m_sass;
    SassState m_sassState = SassState::None;
    std::string m_sassError;  // why there is no SASS mix
    bool m_showSass = false;  // the user's choice; falls back to PTX while SASS is missing
    int m_kernel = -1;        // -1: all kernels, else an index into the shown mix's kernels
    bool m_showEmpty = false; // also list categories with no instruction

    std::shared_ptr<engine::Job> m_sassJob;
    // Declared last: the queue joins its worker before the mailbox it posts to goes away.
    engine::Mailbox m_mailbox;
    engine::JobQueue m_jobs{1, engine::WorkerPriority::Background};  // nvdisasm: the frames go first
};

}  // namespace kx::app
