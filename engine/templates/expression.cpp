#include "templates/expression.hpp"

#include "util/error.hpp"

#include <muParser.h>

#include <cmath>

namespace kx::engine {
namespace {

double modulo(double a, double b) { return std::fmod(a, b); }
double logicalNot(double x) { return x == 0 ? 1 : 0; }
double ceilFn(double x) { return std::ceil(x); }
double floorFn(double x) { return std::floor(x); }
double ceilDiv(double a, double b) { return std::ceil(a / b); }
double isPow2(double x) {
    if (x < 1 || x != std::floor(x)) return 0;
    const auto v = static_cast<unsigned long long>(x);
    return (v & (v - 1)) == 0 ? 1 : 0;
}

}  // namespace

double evaluateExpression(const std::string& expr, const VariableMap& vars) {
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

}  // namespace kx::engine
