// Arithmetic expressions in manifests (constraints, derived values, launch geometry, formulas),
// evaluated with muparser.
//
// Language: numbers, variables, + - * / ^ %, comparisons, && || !, ?:, and the functions
// min max abs sqrt log2 floor ceil ceil_div(a,b) is_pow2(x). Comparisons yield 1 or 0.
#pragma once

#include <map>
#include <string>

namespace kx::engine {

using VariableMap = std::map<std::string, double>;

// Evaluates expr over vars. Throws InputError "reason in 'expr'" naming an unknown variable
// or a syntax error with its position.
double evaluateExpression(const std::string& expr, const VariableMap& vars);

// As evaluateExpression, but a remainder or ceil_div by zero, or an infinite result (a division
// by zero), throws InputError saying so instead of yielding NaN or inf. Manifest checks and
// constraint validation use it, so that `BM % WM` with WM = 0 is reported as what it is.
double evaluateExpressionStrict(const std::string& expr, const VariableMap& vars);

}  // namespace kx::engine
