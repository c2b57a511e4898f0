// A mutated manifest expression, evaluated plainly and strictly over typical variables.
#include "fuzz_support.hpp"

#include "templates/expression.hpp"
#include "util/error.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) return 0;
    const std::string expr(reinterpret_cast<const char*>(data), size);
    static const kx::engine::VariableMap vars = {{"BM", 128}, {"BN", 64}, {"WM", 0}, {"elem_bytes", 2}, {"M", 4096}, {"cc", 90},
                                                 {"warp_size", 32}, {"max_threads_per_block", 1024}, {"huge", 1e308}};
    for (auto evaluate : {kx::engine::evaluateExpression, kx::engine::evaluateExpressionStrict}) {
        try {
            evaluate(expr, vars);
        } catch (const kx::engine::InputError&) {
        }
    }
    return 0;
}
