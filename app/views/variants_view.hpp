// Variants: the session's kept variants under the configuration. A table (the parameters that
// differ between them, arch, runs, best time; the variant now in the editor in bold), and for
// the selected one (the one in the editor whenever the editor holds a kept one): Load into the
// editor (or double-click), Rename, Duplicate, Delete (asks first), its notes (saved when the
// field loses focus) and its run history. The header names the session file and says whether
// changes are being written; session errors show here in red until dismissed.
#pragma once

#include "views/view.hpp"

#include <cstdint>
#include <string>

namespace kx::app {

class VariantsView final : public View {
public:
    explicit VariantsView(ViewContext context) : View("Variants", Slot::LeftBottom, context) {}

    // Selects the variant with this id (scripts); false when the session has none.
    bool select(std::int64_t variantId);

protected:
    void drawContent() override;

private:
    void drawHeader();
    void drawTable();
    void drawSelected();
    void drawRuns(std::int64_t variantId);

    std::int64_t m_selected = 0;
    std::int64_t m_newestSeen = 0;      // the highest variant id seen, to select new ones
    std::int64_t m_renaming = 0;        // the variant whose name is being edited
    std::string m_nameEdit;
    std::int64_t m_notesFor = 0;        // the variant m_notes was loaded from
    std::string m_notes;
    std::int64_t m_confirmDelete = 0;
    std::string m_editorKey;            // arch and config of the editor when last looked at
};

}  // namespace kx::app
