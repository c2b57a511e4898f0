// A share string as a user pastes it (templates/share_string.hpp): decoded, and a user template
// it carries parsed from memory as `kx open` would before writing it. The first byte picks the
// input's form: 0, the text itself; 1, the JSON inside, compressed and encoded here
// (shareStringOfJson) so that mutations reach the field checks past zlib's checksum. Errors are
// InputErrors, nothing else.
#include "fuzz_support.hpp"

#include "templates/share_string.hpp"
#include "util/error.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::string text = data[0] % 2 == 0 ? body : kx::engine::shareStringOfJson(body);
    try {
        const kx::engine::ShareData share = kx::engine::decodeShareString(text);
        kx::engine::encodeShareString(share);
        if (!share.files.empty())
            kx::engine::templateFromText(share.files.at(kx::engine::kManifestFileName), share.files, kx::fuzz::scratchDir() / share.templateId);
    } catch (const kx::engine::InputError&) {
    }
    return 0;
}
