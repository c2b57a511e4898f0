#include "run/run_limits.hpp"

#include "run/dtype.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace kx::engine {

namespace {

std::string gib(long double bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes / (1024.0L * 1024 * 1024))); }

}  // namespace

std::string notRunnableReason(const Template& tmpl) {
    if (!tmpl.manifest().args.empty()) return {};
    return tmpl.id() + "'s manifest describes no kernel arguments (<args>), so there is nothing to pass to the kernel: "
                       "list them in " + tmpl.manifest().manifestFile + " to run it (templates/README.md)";
}

void checkSizeTypes(const Template& tmpl, const SizeMap& sizes) {
    if (const std::string why = notRunnableReason(tmpl); !why.empty()) throw InputError(why);
    for (const ArgSpec& a : tmpl.manifest().args) {
        if (a.role != "size") continue;
        const auto it = sizes.find(a.name);
        if (it == sizes.end()) continue;
        const DtypeInfo* type = findDtypeOfCType(a.type);
        if (!type || type->bytes >= 8) continue;
        const bool isUnsigned = type->name.front() == 'u';
        const long long bits = 8LL * type->bytes - (isUnsigned ? 0 : 1);
        const long long most = static_cast<long long>((1ULL << bits) - 1);
        if (it->second > most)
            throw InputError(fmt::format("size {}={} is too large: the kernel takes {} as {} ({}-bit), which holds at most {}", a.name,
                                         it->second, a.name, a.type, 8 * type->bytes, most));
    }
}

void checkRunLimits(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes, long long deviceMemoryBytes) {
    checkSizeTypes(tmpl, sizes);
    long double total = 0;
    for (const ResolvedArg& a : tmpl.resolveArgs(config, arch, sizes)) {
        if (a.role != "in" && a.role != "out" && a.role != "inout" && a.role != "scratch") continue;
        const DtypeInfo* type = findDtypeOfCType(a.type);
        const long long elemBytes = type ? type->bytes : 1;
        long long bytes = 0;
        if (__builtin_mul_overflow(a.count, elemBytes, &bytes))
            throw InputError(fmt::format("buffer '{}' would hold {} elements of {} bytes: its size overflows a 64-bit byte count", a.name,
                                         a.count, elemBytes));
        total += bytes;
        if (deviceMemoryBytes > 0 && bytes > deviceMemoryBytes)
            throw InputError(fmt::format("buffer '{}' needs {} ({} elements of {} bytes), more than the device's {} of memory", a.name,
                                         gib(bytes), a.count, elemBytes, gib(deviceMemoryBytes)));
    }
    if (deviceMemoryBytes > 0 && total > deviceMemoryBytes)
        throw InputError(fmt::format("the buffers need {} together, more than the device's {} of memory (smaller sizes: --size)", gib(total),
                                     gib(deviceMemoryBytes)));
}

}  // namespace kx::engine
