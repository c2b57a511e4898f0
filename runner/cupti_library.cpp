#include "cupti_library.hpp"

#include <cstdlib>
#include <mutex>
#include <vector>

namespace kx::runner {

CuptiLibrary::CuptiLibrary(void* handle) : m_handle(handle) { resolve(m_resultString, "cuptiGetResultString"); }

const CuptiLibrary* CuptiLibrary::open(const std::string& purpose, std::string* error) {
    static std::once_flag once;
    static const CuptiLibrary* library = nullptr;
    std::call_once(once, [] {
        std::vector<std::string> candidates;
        if (const char* path = std::getenv("KX_CUPTI")) candidates.push_back(path);
        for (const char* name : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) candidates.push_back(name);
        for (const char* dir : {"/usr/local/cuda/lib64/", "/usr/local/cuda/extras/CUPTI/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/"})
            candidates.push_back(std::string(dir) + "libcupti.so");
        for (const std::string& candidate : candidates)
            if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
                library = new CuptiLibrary(handle);  // kept for the process's life (see the header)
                break;
            }
    });
    if (!library)
        *error = purpose + " needs CUPTI (libcupti.so from the CUDA Toolkit), which could not be loaded; set KX_CUPTI to its path";
    return library;
}

std::string CuptiLibrary::describe(CUptiResult status) const {
    const char* text = nullptr;
    if (m_resultString) m_resultString(status, &text);
    std::string words = text ? text : "CUPTI error " + std::to_string(static_cast<int>(status));
    if (status == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        words += " (profiling is restricted to administrators on this machine: run as root, or load the driver with "
                 "NVreg_RestrictProfilingToAdminUsers=0)";
    return words;
}

}  // namespace kx::runner
