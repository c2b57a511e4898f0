// Every template under a folder (templates/<id>/manifest.xml).
#pragma once

#include "arch/arch.hpp"
#include "templates/template.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

namespace kx::engine {

// Parses one manifest. Throws InputError "file:line: reason" on a malformed file.
TemplateManifest parseManifest(const std::filesystem::path& manifestFile);

// The largest kernel source (or other file a manifest names) that is read.
inline constexpr std::uintmax_t kMaxTemplateFileBytes = 16u << 20;

// A file the manifest m names (relative to its folder) as text. Throws InputError
// "manifest:line: reason" unless it is a regular file of at most kMaxTemplateFileBytes inside
// the template's folder (links followed): devices, folders, absolute paths and paths leading out
// of the folder are refused.
std::string readTemplateFile(const TemplateManifest& m, const std::string& relative, int line);

class TemplateLibrary {
public:
    // Loads every folder of dir holding a manifest.xml, sorted by id. A malformed template is
    // recorded in errors() with file and line and skipped.
    static TemplateLibrary load(const std::filesystem::path& dir);

    const std::vector<std::shared_ptr<const Template>>& templates() const { return m_templates; }
    const std::vector<LoadError>& errors() const { return m_errors; }
    std::shared_ptr<const Template> find(std::string_view id) const;  // nullptr when unknown

    // The templates by their manifests' category: categories in alphabetical order, templates
    // by title within each, for pickers and listings.
    struct Category {
        std::string name;
        std::vector<std::shared_ptr<const Template>> templates;
    };
    std::vector<Category> byCategory() const;

private:
    std::vector<std::shared_ptr<const Template>> m_templates;
    std::vector<LoadError> m_errors;
};

}  // namespace kx::engine
