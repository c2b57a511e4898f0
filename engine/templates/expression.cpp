#include "templates/expression.hpp"

#include "util/error.hpp"

#include <muParser.h>

#include <cmath>

namespace kx::engine {
namespace {

// Set while a strict evaluation runs: muparser calls these functions through plain pointers, so
// the mode reaches them through the thread rather than an argument.
thread_local bool t_strict = false;

[[noreturn]] void divisionByZero(const char* what) { throw InputError(std::string(what) + " by zero"); }

double modulo(double a, double b) {
    if (t_strict && b == 0) divisionByZero("a remainder (%)");
    return std::fmod(a, b);
}
double logicalNot(double x) { return x == 0 ? 1 : 0; }
double ceilFn(double x) { return std::ceil(x); }
double floorFn(double x) { return std::floor(x); }
double ceilDiv(double a, double b) {
    if (t_strict && b == 0) divisionByZero("ceil_div");
    return std::ceil(a / b);
}
double isPow2(double x) {
    if (x < 1 || x != std::floor(x)) return 0;
    const auto v = static_cast<unsigned long long>(x);
    return (v & (v - 1)) == 0 ? 1 : 0;
}

}  // namespace

namespace {

double evaluate(const std::string& expr, const VariableMap& vars) {
    // muparser binds variables by address, so evaluate over a private copy.
    VariableMap storage = vars;
    try {
        mu::Parser parser;
        parser.DefineOprt("%", modulo, mu::prMUL_DIV, mu::oaLEFT, true);
        parser.DefineInfixOprt("!", logicalNot);
        parser.DefineFun("ceil", ceilFn);
        parser.DefineFun("floor", floorFn);
        parser.DefineFun("ceil_div", ceilDiv);
        parser.DefineFun("is_pow2", isPow2);
        for (auto& [name, value] : storage) parser.DefineVar(name, &value);
        parser.SetExpr(expr);
        const double result = parser.Eval();
        if (std::isnan(result)) throw InputError("expression '" + expr + "' is not a number");
        return result;
    } catch (const mu::Parser::exception_type& e) {
        std::string reason = e.GetMsg();
        if (e.GetCode() == mu::ecUNASSIGNABLE_TOKEN && !e.GetToken().empty())
            reason = "unknown name '" + e.GetToken() + "'";
        throw InputError(reason + " in expression '" + expr + "'");
    }
}

}  // namespace

double evaluateExpression(const std::string& expr, const VariableMap& vars) { return evaluate(expr, vars); }

double evaluateExpressionStrict(const std::string& expr, const VariableMap& vars) {
    struct StrictScope {
        bool previous = t_strict;
        StrictScope() { t_strict = true; }
        ~StrictScope() { t_strict = previous; }
    } scope;
    double result = 0;
    try {
        result = evaluate(expr, vars);
    } catch (const InputError& e) {
        const std::string what = e.what();
        if (what.find(" by zero") != std::string::npos && what.find(expr) == std::string::npos)
            throw InputError("expression '" + expr + "' takes " + what);
        throw;
    }
    if (std::isinf(result)) throw InputError("expression '" + expr + "' is infinite (a division by zero)");
    return result;
}

}  // namespace kx::engine
