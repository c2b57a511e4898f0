// Loading cuDNN (see cudnn_library.hpp) and the backend descriptor helper.
#include "baselines/cudnn_library.hpp"

#if KX_HAVE_CUDNN_HEADER

#include <dlfcn.h>
#include <glob.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>
#include <vector>

namespace kx::runner {

namespace {

// [SECTION] Loading cuDNN

std::vector<std::string> cudnnCandidates() {
    const std::string soname = "libcudnn.so." + std::to_string(CUDNN_MAJOR);
    std::vector<std::string> candidates;
    if (const char* path = std::getenv("KX_CUDNN_LIBRARY"); path && *path) candidates.push_back(path);
    candidates.push_back(soname);
    candidates.push_back("libcudnn.so");
#ifdef KX_CUDA_LIBRARY_DIR
    candidates.push_back(std::string(KX_CUDA_LIBRARY_DIR) + "/" + soname);
#endif
    std::vector<std::string> patterns = {"/usr/lib/python3*/dist-packages", "/usr/local/lib/python3*/dist-packages",
                                         "/usr/local/lib/python3*/site-packages"};
    if (const char* home = std::getenv("HOME"); home && *home) patterns.push_back(std::string(home) + "/.local/lib/python3*/site-packages");
    for (const std::string& packages : patterns) {
        glob_t found{};
        if (glob((packages + "/nvidia/cudnn/lib/" + soname).c_str(), 0, nullptr, &found) == 0)
            for (std::size_t i = 0; i < found.gl_pathc; ++i) candidates.push_back(found.gl_pathv[i]);
        globfree(&found);
    }
    return candidates;
}

// Fills api from an opened library; false with *why when it is not a complete cuDNN of the
// major version of the header the runner was built with (the ABI the declarations describe).
bool resolveCudnn(void* library, CudnnApi& api, std::string* why) {
#define KX_CUDNN_RESOLVE(name)                                                                  \
    api.name = reinterpret_cast<decltype(&::name)>(dlsym(library, #name));                      \
    if (!api.name) {                                                                            \
        *why = "has no " #name;                                                                 \
        return false;                                                                           \
    }
    KX_CUDNN_FUNCTIONS(KX_CUDNN_RESOLVE)
#undef KX_CUDNN_RESOLVE
    api.version = api.cudnnGetVersion();
    if (api.version / 10000 != CUDNN_MAJOR) {
        *why = "reports version " + std::to_string(api.version) + "; this runner needs cuDNN " + std::to_string(CUDNN_MAJOR);
        return false;
    }
    return true;
}

CudnnApi loadCudnn() {
    const char* chosen = std::getenv("KX_CUDNN_LIBRARY");
    std::string reasons;  // why the user's choice, or a file that exists, would not do
    for (const std::string& candidate : cudnnCandidates()) {
        void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            // A bare name the loader did not find, or a guessed path with no file, is no news.
            const char* error = dlerror();
            const bool news = (chosen && candidate == chosen) || (candidate.find('/') != std::string::npos && access(candidate.c_str(), F_OK) == 0);
            if (news && error) reasons += std::string("; ") + error;
            continue;
        }
        CudnnApi api;
        std::string why;
        if (resolveCudnn(library, api, &why)) return api;  // stays loaded for the process's life
        reasons += "; " + candidate + " " + why;
        dlclose(library);
    }
    CudnnApi none;
    none.error = "no libcudnn.so." + std::to_string(CUDNN_MAJOR) + " in KX_CUDNN_LIBRARY, the loader's path, the CUDA Toolkit's " +
                 "lib folder or Python's nvidia/cudnn wheels" + reasons;
    return none;
}

}  // namespace

const CudnnApi& cudnnApi() {
    static const CudnnApi api = loadCudnn();
    return api;
}

std::string cudnnVersionText(const CudnnApi& api) {
    const std::size_t v = api.version;
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string cudnnLastErrorText(const CudnnApi& api) {
    char message[1024] = {};
    api.cudnnGetLastErrorString(message, sizeof message);
    return message;
}

std::string cudnnFailureText(const CudnnApi& api, cudnnStatus_t status, const std::string& what) {
    const std::string message = cudnnLastErrorText(api);
    return what + ": " + api.cudnnGetErrorString(status) + (message.empty() ? "" : " (" + message + ")");
}

// [SECTION] Backend descriptors

CudnnDescriptor::CudnnDescriptor(const CudnnApi& api, cudnnBackendDescriptorType_t type, std::string what)
    : m_api(&api), m_what(std::move(what)) {
    check(m_api->cudnnBackendCreateDescriptor(type, &m_desc), "creating");
}

CudnnDescriptor::~CudnnDescriptor() {
    if (m_desc) m_api->cudnnBackendDestroyDescriptor(m_desc);
}

CudnnDescriptor::CudnnDescriptor(CudnnDescriptor&& other) noexcept
    : m_api(other.m_api), m_desc(std::exchange(other.m_desc, nullptr)), m_what(std::move(other.m_what)) {}

CudnnDescriptor& CudnnDescriptor::operator=(CudnnDescriptor&& other) noexcept {
    if (this != &other) {
        if (m_desc) m_api->cudnnBackendDestroyDescriptor(m_desc);
        m_api = other.m_api;
        m_desc = std::exchange(other.m_desc, nullptr);
        m_what = std::move(other.m_what);
    }
    return *this;
}

CudnnDescriptor& CudnnDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const void* values,
                                      std::int64_t count) {
    check(m_api->cudnnBackendSetAttribute(m_desc, name, type, count, values), "setting attribute " + std::to_string(name) + " of");
    return *this;
}

CudnnDescriptor& CudnnDescriptor::set(cudnnBackendAttributeName_t name, const CudnnDescriptor& value) {
    const cudnnBackendDescriptor_t desc = value.get();
    check(m_api->cudnnBackendSetAttribute(m_desc, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &desc),
          "setting " + value.what() + " (attribute " + std::to_string(name) + ") of");
    return *this;
}

CudnnDescriptor& CudnnDescriptor::finalize() {
    check(m_api->cudnnBackendFinalize(m_desc), "finalizing");
    return *this;
}

std::int64_t CudnnDescriptor::get(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, void* value) const {
    std::int64_t count = 0;
    check(m_api->cudnnBackendGetAttribute(m_desc, name, type, 1, &count, value), "reading attribute " + std::to_string(name) + " of");
    return count;
}

void CudnnDescriptor::check(cudnnStatus_t status, const std::string& doing) const {
    if (status != CUDNN_STATUS_SUCCESS) throw CudnnRefused(cudnnFailureText(*m_api, status, doing + " " + m_what));
}

}  // namespace kx::runner

#endif  // KX_HAVE_CUDNN_HEADER
