// The user's own templates: ordinary template folders (manifest.xml and the sources it names)
// kept under the user's data folder (util/data_paths.hpp userTemplatesRoot()). This file makes
// them: from a kernel pasted as text, from a copy of another template, or from the files a share
// string carries; and reads a folder's files back for editing.
#pragma once

#include "templates/template_library.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kx::engine {

// A template folder's files as text: "manifest.xml" and the sources, by their names in the folder.
using TemplateFiles = std::map<std::string, std::string>;

inline constexpr const char* kManifestFileName = "manifest.xml";
// The most files, and the most bytes in all, a user template folder is read or written with.
inline constexpr std::size_t kMaxUserTemplateFiles = 16;
inline constexpr std::size_t kMaxUserTemplateBytes = 4u << 20;

// A minimal template for one kernel pasted as text: the kernel's name becomes ${KERNEL_NAME}
// (with extern "C" added when missing, so the entry point has that name), and a manifest with one
// parameter BLOCK (threads per block of a 1-D launch over a size n) and no <args>. It compiles and
// shows PTX, SASS, resources and occupancy; running needs <args> written into the manifest.
// Throws InputError when the text holds no `__global__ void NAME(` outside comments, more than
// one, or a templated kernel (those need a manifest that instantiates them).
TemplateFiles templateForKernel(const std::string& kernelText, const std::string& id);

// The name of the single __global__ function of kernelText (as templateForKernel finds it).
std::string pastedKernelName(const std::string& kernelText);

// `text` as a template id: lower case, runs of characters other than letters, digits and '_'
// as one '_', a leading digit prefixed with 'k', at most 48 characters; "kernel" when nothing is left.
std::string templateIdFrom(const std::string& text);

// `base`, or base_2, base_3 ... : the first id that neither the library nor a folder under root uses.
std::string freeTemplateId(const TemplateLibrary& library, const std::filesystem::path& root, const std::string& base);

// The manifest with its <template id="..."> set to `id` (its other text as it was). Throws
// InputError when the XML does not parse or its root is not <template>.
std::string manifestWithId(const std::string& manifestXml, const std::string& id);

// The files of a template as loaded: its manifest.xml, the sources it names and its own pieces.
TemplateFiles filesOfTemplate(const Template& tmpl);

// Every regular file directly in `folder` (a template folder that may not load: the editor opens
// it to be fixed). Throws InputError beyond kMaxUserTemplateFiles files or kMaxUserTemplateBytes.
TemplateFiles readTemplateFolder(const std::filesystem::path& folder);

// Checks a file name of a template folder: a plain name (letters, digits, '.', '_', '-'; not
// starting with '.'), no folders. Throws InputError naming it.
void checkTemplateFileName(const std::string& name);

// Writes files into folder (created when absent), each through a temporary file renamed over the
// old one. Throws InputError on a bad file name and OutputError when a write fails.
void writeTemplateFolder(const std::filesystem::path& folder, const TemplateFiles& files);

}  // namespace kx::engine
