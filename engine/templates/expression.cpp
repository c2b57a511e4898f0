#include "templates/expression.hpp"

#include "util/error.hpp"

#include <muParser.h>

#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>

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

// A parsed expression over its own copy of the variables: muparser binds variables by address
// and turns the expression into bytecode on the first evaluation, so a parser kept for the same
// expression and the same variable names only needs the new values. Editing a config validates
// every constraint for every value of every parameter (the editor marks the values that would
// break a rule), which made building a parser per evaluation most of a frame's work.
struct ParsedExpression {
    VariableMap storage;  // a std::map: the addresses muparser holds stay put
    mu::Parser parser;
};

// Per thread, by expression and variable names; the templates hold a few hundred expressions.
thread_local std::unordered_map<std::string, std::unique_ptr<ParsedExpression>> t_parsed;

std::string parserKey(const std::string& expr, const VariableMap& vars) {
    std::string key = expr;
    key += '\n';
    for (const auto& entry : vars) {
        key += entry.first;
        key += ',';
    }
    return key;
}

ParsedExpression& parsedFor(const std::string& key, const std::string& expr, const VariableMap& vars) {
    std::unique_ptr<ParsedExpression>& slot = t_parsed[key];
    if (slot) {
        // The same names in the same (sorted) order: copy the values across.
        auto to = slot->storage.begin();
        for (auto from = vars.begin(); from != vars.end(); ++from, ++to) to->second = from->second;
        return *slot;
    }
    auto parsed = std::make_unique<ParsedExpression>();
    parsed->storage = vars;
    mu::Parser& parser = parsed->parser;
    parser.DefineOprt("%", modulo, mu::prMUL_DIV, mu::oaLEFT, true);
    parser.DefineInfixOprt("!", logicalNot);
    parser.DefineFun("ceil", ceilFn);
    parser.DefineFun("floor", floorFn);
    parser.DefineFun("ceil_div", ceilDiv);
    parser.DefineFun("is_pow2", isPow2);
    for (auto& [name, value] : parsed->storage) parser.DefineVar(name, &value);
    parser.SetExpr(expr);
    slot = std::move(parsed);
    return *slot;
}

double evaluate(const std::string& expr, const VariableMap& vars) {
    const std::string key = parserKey(expr, vars);
    try {
        double result = 0;
        try {
            result = parsedFor(key, expr, vars).parser.Eval();
        } catch (...) {
            t_parsed.erase(key);  // a parser that threw is not kept (its state is muparser's business)
            throw;
        }
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
