// libcupti, opened with dlopen the first time a request asks for PC sampling or hardware
// counters, so that kx-runner starts, and runs without either, where the toolkit's CUPTI is
// absent. The library stays loaded for the life of the process: CUPTI keeps threads and
// callbacks in it.
#pragma once

#include <cupti_result.h>
#include <dlfcn.h>

#include <string>

namespace kx::runner {

class CuptiLibrary {
public:
    // The process's libcupti (KX_CUPTI names it; else the loader's search path, then the
    // toolkit's folders), or nullptr with *error saying what `purpose` ("PC sampling") needs.
    static const CuptiLibrary* open(const std::string& purpose, std::string* error);

    // Sets fn to the entry point `name`; false when this libcupti has none.
    template <class Fn>
    bool resolve(Fn& fn, const char* name) const {
        fn = reinterpret_cast<Fn>(dlsym(m_handle, name));
        return fn != nullptr;
    }

    // CUPTI's words for a status, with what to do when profiling is restricted to administrators.
    std::string describe(CUptiResult status) const;

private:
    explicit CuptiLibrary(void* handle);
    void* m_handle = nullptr;
    decltype(&::cuptiGetResultString) m_resultString = nullptr;
};

}  // namespace kx::runner

// An API's entry points are named once, in a list macro taking X (`#define MY_FNS(X) X(cuptiFoo)
// X(cuptiBar)`). KX_CUPTI_ENTRY_POINTS(MY_FNS, feature, missing) inside a struct expands it
// twice: one null pointer member per entry point (KX_CUPTI_DECLARE), and load(), which opens
// libcupti for `feature` and resolves each from `library` (KX_CUPTI_RESOLVE: every one is tried,
// and a missing one clears `complete`), setting *error to `missing` when this libcupti lacks any.
#define KX_CUPTI_DECLARE(name) decltype(&::name) name = nullptr;
#define KX_CUPTI_RESOLVE(name) complete = library->resolve(name, #name) && complete;
#define KX_CUPTI_ENTRY_POINTS(FNS, feature, missing)                   \
    const CuptiLibrary* library = nullptr;                             \
    FNS(KX_CUPTI_DECLARE)                                              \
    bool load(std::string* error) {                                    \
        library = CuptiLibrary::open(feature, error);                  \
        if (!library) return false;                                    \
        bool complete = true;                                          \
        FNS(KX_CUPTI_RESOLVE)                                          \
        if (!complete) *error = missing;                               \
        return complete;                                               \
    }
