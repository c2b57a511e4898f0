#!/usr/bin/env python3
"""Keeps the sources short: no file over 600 lines and no function over 100 lines in app/,
engine/, cli/ and runner/ (*.cpp, *.hpp, *.cu, *.cuh, *.h) without a reason.

A file or function may be longer when the file's header comment (its first comment block) says
why, one line each:

    // Long: NAME — reason          a function (NAME as written: runKernel, PcSampler::sample)
    // Long: file — reason          the file itself

("--" may stand for the dash). Allowances for work in progress live in an allow-list file
(default scripts/code_shape_allow.txt), one per line: `PATH NAME — reason`, PATH relative to the
root, NAME a function or `file`; '#' starts a comment.

Functions are found by matching braces in the text with comments, string and character literals
(raw strings too) and preprocessor lines blanked: a brace at namespace or class scope whose head
ends in a parameter list (after qualifiers, a trailing return type or a constructor's initializer
list) opens a function, which ends at its matching brace. Lambdas and local classes count toward
the function that holds them. A function's length runs from the line of its name to the line of
its closing brace, as lizard counts it (lizard is not needed; unlike lizard, raw strings holding
apostrophes do not throw the count off).

Prints one line per excess ("PATH:LINE: function NAME is N lines (limit 100)"), and a note per
allow-list entry that is no longer needed. Exit status: 0 when nothing exceeds a limit without a
reason, 1 otherwise, 2 on a bad command line or allow-list.
"""

import argparse
import bisect
import os
import re
import sys

DEFAULT_DIRS = ("app", "engine", "cli", "runner")
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".h")
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 100

# [SECTION] Blanking what is not code

_NOISE = re.compile(
    r"""(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"   # raw string
    |//[^\n]*                                                                      # line comment
    |/\*.*?\*/                                                                     # block comment
    |"(?:\\.|[^"\\\n])*"                                                           # string
    |(?<![A-Za-z0-9_])(?:u8|u|U|L)?'(?:\\.|[^'\\\n])+'                             # character
    """,
    re.DOTALL | re.VERBOSE,
)
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)


def _blank(match):
    # Keep newlines so that positions keep their line numbers.
    return re.sub(r"[^\n]", " ", match.group(0))


def code_only(text):
    """The text with comments, literals and preprocessor lines replaced by blanks."""
    return _DIRECTIVE.sub(_blank, _NOISE.sub(_blank, text))


# [SECTION] Reading a brace's head

_ACCESS = re.compile(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+")
_QUALIFIER = re.compile(
    r"^\s*(?:const|volatile|noexcept(?:\s*\([^()]*\))?|override|final|mutable|constexpr|&&|&"
    r"|\[\[[^\]]*\]\]|->\s*[\w:<>,\s*&]+?(?=\s*(?:$|:(?!:)|\b(?:override|final|noexcept)\b)))"
)
_NAME = re.compile(
    r"((?:[A-Za-z_]\w*\s*(?:<[^<>()]*>)?\s*::\s*)*"
    r"(?:(?:~\s*)?[A-Za-z_]\w*|operator\s*(?:\(\s*\)|\[\s*\]|[^\s\w()]+|\s[\w:<>\s*&]+)))\s*$"
)
_NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "alignas",
                  "static_assert", "__launch_bounds__", "__attribute__", "throw", "new", "delete", "noexcept"}


def _groups(head):
    """(start, end) of each parenthesised group at depth 0 of head, end just past ')'."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(head):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append((start, i + 1))
    return out


def _rest_is_tail(rest):
    """(True, has_initializers) when what follows a parameter list is only qualifiers, a trailing
    return type and perhaps a constructor's initializer list; (False, False) otherwise."""
    while True:
        m = _QUALIFIER.match(rest)
        if not m or not m.group(0).strip():
            break
        rest = rest[m.end():]
    rest = rest.strip()
    if not rest:
        return True, False
    if rest.startswith(":") and not rest.startswith("::"):
        return True, True
    return False, False


def function_head(head):
    """For the text before a '{' at namespace or class scope: (name, name offset in head,
    has_initializers) when it is a function's head, else None. With an initializer list the brace
    may still be one of the list's (see _opens_body)."""
    head = _ACCESS.sub(lambda m: " " * len(m.group(0)), head)
    for start, end in _groups(head):
        ok, initializers = _rest_is_tail(head[end:])
        if not ok:
            continue
        m = _NAME.search(head[:start])
        if not m:
            continue
        name = re.sub(r"\s+", "", m.group(1))
        if name.split("::")[-1] in _NOT_FUNCTIONS:
            continue
        return name, m.start(1), initializers
    return None


_CLASS = re.compile(r"\b(?:class|struct|union)\b(?:\s+(?:alignas\s*\([^()]*\)|\[\[[^\]]*\]\]|__\w+__(?:\([^()]*\))?))*\s*([A-Za-z_]\w*)?")


def scope_kind(head):
    """'namespace', ('class', name) or 'other' for a '{' that does not open a function."""
    h = head.strip()
    if re.search(r"\bnamespace\b", h) or re.fullmatch(r"(?:\w+\s+)*extern", h):
        return "namespace"
    if re.search(r"\benum\b", h):
        return "other"
    m = None
    for m in _CLASS.finditer(h):  # the last one: "template <class T> struct X"
        pass
    # A class body follows the name, its bases or final; "struct X x = {" is an initializer.
    if m and re.match(r"\s*(?:$|:|final\b)", h[m.end():]):
        return ("class", m.group(1) or "")
    return "other"


# [SECTION] Finding functions


class Function:
    def __init__(self, name, first, last):
        self.name, self.first, self.last = name, first, last

    @property
    def length(self):
        return self.last - self.first + 1


def functions_in(text):
    """Every function in the C++ or CUDA text, with its first and last line (1-based)."""
    code = code_only(text)
    newlines = [i for i, ch in enumerate(code) if ch == "\n"]

    def line_of(pos):
        return bisect.bisect_left(newlines, pos) + 1

    found = []
    scopes = []  # 'namespace', ('class', name) or 'other'
    head_start = 0
    braces = re.compile(r"[{};]")
    pos = 0
    while True:
        m = braces.search(code, pos)
        if not m:
            break
        pos = m.end()
        ch = m.group(0)
        if ch == ";":
            head_start = pos
            continue
        if ch == "}":
            if scopes:
                scopes.pop()
            head_start = pos
            continue
        # '{'
        in_other = any(s == "other" for s in scopes)
        head = code[head_start:m.start()]
        fn = None if in_other else function_head(head)
        if fn and fn[2] and not _opens_body(head):
            # A brace inside a constructor's initializer list (m_a{x}, f({x})): skip it, the head
            # goes on.
            pos = _matching_brace(code, m.start()) + 1
            continue
        if fn:
            end = _matching_brace(code, m.start())
            classes = [s[1] for s in scopes if isinstance(s, tuple) and s[1]]
            name = "::".join(classes + [fn[0]])
            found.append(Function(name, line_of(head_start + fn[1]), line_of(end)))
            pos = end + 1
            head_start = pos
            continue
        scopes.append(scope_kind(head) if not in_other else "other")
        head_start = pos
    return found


def _opens_body(head):
    """For a head with a constructor's initializer list: true when a '{' after it opens the body,
    i.e. the last initializer is complete: parentheses balanced, ending in ')' or '}'."""
    return head.count("(") == head.count(")") and re.search(r"[)}]\s*$", head) is not None


_BRACE = re.compile(r"[{}]")


def _matching_brace(code, open_pos):
    depth = 0
    for m in _BRACE.finditer(code, open_pos):
        depth += 1 if m.group(0) == "{" else -1
        if depth == 0:
            return m.start()
    return len(code) - 1


# [SECTION] Reasons


_MARKER = re.compile(r"\bLong:\s*(\S+)\s*(?:—|--)\s*(\S.*)$")


def header_reasons(text):
    """NAME -> reason from the 'Long: NAME — reason' lines of the first comment block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    block = []
    if i < len(lines) and lines[i].lstrip().startswith("/*"):
        while i < len(lines):
            block.append(lines[i])
            if "*/" in lines[i]:
                break
            i += 1
    else:
        while i < len(lines) and lines[i].lstrip().startswith("//"):
            block.append(lines[i])
            i += 1
    reasons = {}
    for line in block:
        m = _MARKER.search(line)
        if m:
            reasons[m.group(1)] = m.group(2).strip()
    return reasons


def read_allow_list(path):
    """{(PATH, NAME): reason} from the allow-list file; SystemExit(2) on a malformed line."""
    allowed = {}
    if not path or not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"(\S+)\s+(\S+)\s+(?:—|--)\s*(\S.*)", line)
            if not m:
                print(f"{path}:{number}: expected 'PATH NAME — reason', got '{line}'", file=sys.stderr)
                raise SystemExit(2)
            allowed[(m.group(1), m.group(2))] = m.group(3)
    return allowed


def names_match(marker, name):
    return marker == name or name.endswith("::" + marker)


# [SECTION] The check


def source_files(root, dirs):
    for d in dirs:
        for folder, subdirs, files in os.walk(os.path.join(root, d)):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith(EXTENSIONS):
                    yield os.path.relpath(os.path.join(folder, f), root).replace(os.sep, "/")


def check(root, dirs, allowed, max_file, max_function, list_over=None):
    """The excess lines to print, and the allow-list entries used."""
    problems, used = [], set()

    def reason_for(path, name, reasons):
        for marker in reasons:
            if names_match(marker, name):
                return True
        for (allow_path, allow_name) in allowed:
            if allow_path == path and names_match(allow_name, name):
                used.add((allow_path, allow_name))
                return True
        return False

    for path in source_files(root, dirs):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        reasons = header_reasons(text)
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > max_file and not reason_for(path, "file", reasons):
            problems.append(f"{path}: {lines} lines (limit {max_file})")
        for fn in functions_in(text):
            if list_over is not None and fn.length > list_over:
                print(f"{fn.length:6d} {fn.name}@{fn.first}-{fn.last}@{path}")
            if fn.length > max_function and not reason_for(path, fn.name, reasons):
                problems.append(f"{path}:{fn.first}: function {fn.name} is {fn.length} lines (limit {max_function})")
    return problems, used


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="*", default=list(DEFAULT_DIRS), help="folders under the root (default: app engine cli runner)")
    parser.add_argument("--root", default=os.path.dirname(here), help="the repository root (default: this script's parent folder)")
    parser.add_argument("--allow", default=os.path.join(here, "code_shape_allow.txt"), help="the allow-list file")
    parser.add_argument("--max-file-lines", type=int, default=MAX_FILE_LINES)
    parser.add_argument("--max-function-lines", type=int, default=MAX_FUNCTION_LINES)
    parser.add_argument("--list", type=int, metavar="N", help="also print every function over N lines, reasons or not")
    args = parser.parse_args(argv)

    allowed = read_allow_list(args.allow)
    problems, used = check(args.root, args.dirs, allowed, args.max_file_lines, args.max_function_lines, args.list)
    for path, name in sorted(set(allowed) - used):
        print(f"note: {os.path.relpath(args.allow, args.root)}: {path} {name} is within the limits now; remove its entry")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} over the limits: split them, or give the reason in the file's header comment "
              f"('// Long: NAME — reason'; see scripts/code_shape.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
