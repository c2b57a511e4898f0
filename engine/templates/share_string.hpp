// Share strings: one line of text that names a variant completely (template, arch, parameter
// values, compiler flags, problem sizes) and, for a user template, carries the template itself,
// so that pasting it into another Kernel Explorer (Edit > Open share string, `kx open`) shows the
// same variant there.
//
// [SECTION] Format, version 1
//   "kx1:" + base64url (RFC 4648 section 5, no padding) of zlib data (RFC 1950) holding UTF-8 JSON:
//   {"template": "gemm", "arch": "sm_90", "config": {"BM": "64", ...}, "flags": "maxrregcount=64",
//    "sizes": {"M": 4096, ...}, "files": {"manifest.xml": "...", "kernel.cu": "..."}}
//   "flags" is CompileFlags::canonical() ("" for the defaults); "sizes" may be empty; "files" is
//   present only for user templates (their manifest and every source it names). A later format
//   gets another prefix (kx2:) and this one is still read.
//
// [SECTION] Decoding is strict
//   Every field is checked for its type and bounds, unknown fields are refused, and the decoded
//   data is capped (kMaxShareStringChars characters in, kMaxShareJsonBytes bytes inflated), so a
//   truncated, altered or hostile string ends in one InputError line, never in a crash or a
//   large allocation.
#pragma once

#include "arch/arch_database.hpp"
#include "templates/compile_flags.hpp"
#include "templates/template_library.hpp"
#include "templates/user_template.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace kx::engine {

inline constexpr std::string_view kSharePrefix = "kx1:";
inline constexpr std::size_t kMaxShareStringChars = 8u << 20;
inline constexpr std::size_t kMaxShareJsonBytes = 8u << 20;

struct ShareData {
    std::string templateId;
    std::string arch;
    std::map<std::string, std::string> config;  // parameter -> canonical text
    CompileFlags flags;
    std::map<std::string, long long> sizes;     // may be empty: the template's defaults
    TemplateFiles files;                        // a user template's files; empty for a shipped one

    bool operator==(const ShareData&) const = default;
};

// The share string of `data` (deterministic: the same data gives the same text).
std::string encodeShareString(const ShareData& data);
// The share string around any JSON text (compressed and encoded as above, nothing checked):
// what encodeShareString does with the data's JSON, and how tests and the fuzz target hand the
// decoder JSON that no encoder would write.
std::string shareStringOfJson(std::string_view json);

// The data of a share string; surrounding blanks (a copied line break) are ignored. Throws
// InputError with one line beginning "share string: " when it is not one this version reads.
ShareData decodeShareString(std::string_view text);

// What to share of a variant: a user template (library.isUser) carries its files.
ShareData shareDataOf(const TemplateLibrary& library, const Template& tmpl, const std::string& arch, const Config& config,
                      const SizeMap& sizes);

// A share string opened: what the editor or a command should show.
struct OpenedShare {
    std::shared_ptr<const Template> tmpl;
    const Arch* arch = nullptr;
    Config config;                        // flags included
    SizeMap sizes;                        // the template's defaults with the shared sizes over them
    bool carriedTemplate = false;         // the string carried a user template
    bool installed = false;               // ... which was written to userRoot now (else an identical one was there)
    std::filesystem::path folder;         // where that template lives
};

// Resolves `data` against this installation. A carried user template is checked, then reused
// when a user template with its id and the same files is loaded already, else written to a new
// folder under userRoot (under a free id, base_2 ..., when its id is taken) and added to the
// library. Throws InputError naming what does not fit (an unknown template or arch, a parameter
// value the template does not allow, a malformed carried manifest with its line) before anything
// is written; OutputError when the folder cannot be written.
OpenedShare openShare(const ShareData& data, TemplateLibrary& library, const ArchDatabase& arches, const std::filesystem::path& userRoot);

}  // namespace kx::engine
