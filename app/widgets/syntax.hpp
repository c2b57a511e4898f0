// Line tokenizers for the code view: CUDA C++ and PTX. Purely lexical (no parsing), fast enough
// to run on the visible lines every frame, and tolerant of anything: unknown text is Plain.
#pragma once

#include "theme.hpp"

#include <string_view>
#include <vector>

namespace kx::app {

enum class CodeLanguage { Plain, Cuda, Ptx };

struct SyntaxToken {
    int start = 0;   // byte offset in the line
    int length = 0;
    SyntaxClass cls = SyntaxClass::Plain;
};

// Appends the tokens of one line (without its newline) to out; whitespace gets no token.
// inBlockComment carries the state of a /* ... */ comment from the previous line to the next.
void tokenizeLine(std::string_view line, CodeLanguage language, bool& inBlockComment,
                  std::vector<SyntaxToken>& out);

}  // namespace kx::app
