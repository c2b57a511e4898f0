// Shared fixtures of the sweep tests: gemm_mma (of the shipped templates, test_support.hpp), and the
// message of an InputError.
#pragma once

#include "../test_support.hpp"

#include "templates/template_library.hpp"
#include "util/error.hpp"

#include <functional>
#include <string>

namespace kx::test {

inline const engine::Template& gemmMma() { return *shippedTemplates().find("gemm_mma"); }

// What fn throws as InputError; "" when it throws nothing.
inline std::string errorOf(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const engine::InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace kx::test
