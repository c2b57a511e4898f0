// Every template under a folder (templates/<id>/manifest.xml).
#pragma once

#include "arch/arch.hpp"
#include "templates/template.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <memory>
#include <string_view>
#include <vector>

namespace kx::engine {

// Parses one manifest. Throws InputError "file:line: reason" on a malformed file.
TemplateManifest parseManifest(const std::filesystem::path& manifestFile);
// The same from the manifest's text, as if it were read from manifestFile (which need not exist:
// errors name it, and the manifest's folder is its parent).
TemplateManifest parseManifestText(const std::string& xml, const std::filesystem::path& manifestFile);

// The largest kernel source (or other file a manifest names) that is read.
inline constexpr std::uintmax_t kMaxTemplateFileBytes = 16u << 20;

// A file the manifest m names (relative to its folder) as text. Throws InputError
// "manifest:line: reason" unless it is a regular file of at most kMaxTemplateFileBytes inside
// the template's folder (links followed): devices, folders, absolute paths and paths leading out
// of the folder are refused.
std::string readTemplateFile(const TemplateManifest& m, const std::string& relative, int line);

// One template folder (folder/manifest.xml and the sources it names), checked as the library
// checks every template. Throws InputError "file:line: reason".
std::shared_ptr<const Template> loadTemplateFolder(const std::filesystem::path& folder);

// A template from text alone: the manifest's XML and its source files by the names the manifest
// gives them ("kernel.cu" -> text), as if they lay in `folder`. Checked like loadTemplateFolder;
// a source the manifest names and `files` lacks is an InputError naming the manifest line.
std::shared_ptr<const Template> templateFromText(const std::string& manifestXml, const std::map<std::string, std::string>& files,
                                                 const std::filesystem::path& folder);

// Where a template came from: shipped with Kernel Explorer (templates/), or the user's own (the
// user's data folder, kx --templates, a share string). A user template travels with its source
// in share strings; a shipped one is named only.
enum class TemplateOrigin { Shipped, User };

// Thread-safety: find() and isUser() may be called from any thread while the thread that owns
// the library calls putUser(); everything else belongs to the owning thread.
class TemplateLibrary {
public:
    // Loads every folder of dir holding a manifest.xml, sorted by id, as shipped templates. A
    // malformed template is recorded in errors() with file and line and skipped.
    static TemplateLibrary load(const std::filesystem::path& dir);
    // The shipped templates of `shipped`, then the user templates of each of `userDirs` (see
    // addFolder).
    static TemplateLibrary load(const std::filesystem::path& shipped, const std::vector<std::filesystem::path>& userDirs);

    TemplateLibrary();
    TemplateLibrary(TemplateLibrary&&) noexcept;
    TemplateLibrary& operator=(TemplateLibrary&&) noexcept;
    ~TemplateLibrary();

    // Adds the templates under dir: dir is one template folder (it holds manifest.xml) or a folder
    // of them. A malformed one, a missing dir, or an id the library has already, is recorded in
    // errors() and skipped; the others load.
    void addFolder(const std::filesystem::path& dir, TemplateOrigin origin);

    const std::vector<std::shared_ptr<const Template>>& templates() const { return m_templates; }
    const std::vector<LoadError>& errors() const { return m_errors; }
    std::shared_ptr<const Template> find(std::string_view id) const;  // nullptr when unknown
    bool isUser(std::string_view id) const;

    // Adds a user template, or replaces the user template with its id (an edit). Throws
    // InputError when a shipped template has the id. Templates already handed out stay valid.
    void putUser(std::shared_ptr<const Template> tmpl);

    // The templates by their manifests' category: categories in alphabetical order, templates
    // by title within each, for pickers and listings.
    struct Category {
        std::string name;
        std::vector<std::shared_ptr<const Template>> templates;
    };
    std::vector<Category> byCategory() const;

private:
    void loadOne(const std::filesystem::path& manifestFile, TemplateOrigin origin);

    std::vector<std::shared_ptr<const Template>> m_templates;
    std::vector<std::string> m_userIds;
    std::vector<LoadError> m_errors;
    std::unique_ptr<std::mutex> m_mutex;  // guards m_templates and m_userIds against putUser()
};

}  // namespace kx::engine
