#!/usr/bin/env python3
"""Holds the structure the code was brought to, so that it does not drift back.

Checked on the source tree (app/, models/, widgets/):
  - no source file over 1,200 lines, and app/mainwindow.cpp at most 500: the window wires,
    controllers decide;
  - at most 10 function bodies over 80 lines (switch dispatchers such as the lexer count too);
  - a VariantExpectation is made in one place (Analysis::expectationFor), so the rules, the
    grid and generation cannot disagree on what a cell must look like;
  - Catalog::builtin() only where a catalog is first made, never as a default in between;
  - no include from a lower engine library upward (nix < matrix < vcs, facts < analysis <
    pins < changes, eval, builds < sessions < itemmodels), nor between siblings,
    and models/ includes no widgets and no app code.
Prints every violation and exits 1 when there is one.

usage: check_structure.py SOURCE_DIR
"""
import os
import re
import sys

MAX_FILE_LINES = 1200
MAX_WINDOW_LINES = 500
MAX_FUNCTION_LINES = 80
MAX_LONG_FUNCTIONS = 10
EXPECTATION_MAKERS = {"models/analysis/analysis.cpp"}
CATALOG_MAKERS = {
    "models/matrix/catalog.cpp",     # the built-in catalog itself
    "models/analysis/analysis.h",    # an analysis starts on it until the analyzer extends it
    "models/analysis/analyzer.cpp",  # Analyzer(): what a spec extends
    "models/pins/pinalignment.cpp",  # each branch's own spec extends it
    "app/exportcicommand.cpp",       # export-ci reads no spec
}
LAYERS = {"nix": 0, "matrix": 1, "vcs": 2, "facts": 2, "analysis": 3, "pins": 4, "changes": 5,
          "eval": 5, "builds": 5, "sessions": 6, "itemmodels": 7}


def sources(root):
    for top in ("app", "models", "widgets"):
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".cpp", ".h")):
                    path = os.path.join(directory, name)
                    yield os.path.relpath(path, root), open(path, encoding="utf-8").read()


def long_functions(text):
    """(first line, length) of each body over the limit: a line that is only "{" at column 0
    or 4 after a signature line, to the "}" at the same column."""
    lines = text.split("\n")
    found = []
    i = 1
    while i < len(lines):
        opening = re.match(r"^( {0,4})\{\s*$", lines[i])
        signature = lines[i - 1]
        if opening and re.search(r"[()]|const\s*$", signature) and not re.search(
                r"\b(class|struct|namespace|enum|union)\b", signature):
            indent = opening.group(1)
            end = i + 1
            while end < len(lines) and not re.match("^" + indent + r"\}", lines[end]):
                end += 1
            start = i - 1
            while start > 0 and lines[start - 1].strip() and not re.search(
                    r"[;{}]\s*$|^\s*//", lines[start - 1]):
                start -= 1
            length = end - start + 1
            if length > MAX_FUNCTION_LINES:
                found.append((start + 1, length))
            i = end
        i += 1
    return found


def main():
    root = sys.argv[1]
    problems = []
    long_ones = []
    for path, text in sources(root):
        count = text.count("\n")
        if count > MAX_FILE_LINES:
            problems.append(f"{path}: {count} lines (at most {MAX_FILE_LINES})")
        if path == "app/mainwindow.cpp" and count > MAX_WINDOW_LINES:
            problems.append(f"{path}: {count} lines (the window at most {MAX_WINDOW_LINES})")
        long_ones += [(length, f"{path}:{line}") for line, length in long_functions(text)]
        if "VariantExpectation::of(" in text and path not in EXPECTATION_MAKERS | {
                "models/matrix/variantexpectation.cpp", "models/matrix/variantexpectation.h"}:
            problems.append(f"{path}: makes a VariantExpectation (use Analysis::expectationFor)")
        if "Catalog::builtin()" in text and path not in CATALOG_MAKERS:
            problems.append(f"{path}: Catalog::builtin() where a catalog is passed on "
                            "(take the analysis's or the caller's)")
        parts = path.split("/")
        if parts[0] == "models" and len(parts) > 2 and parts[1] not in LAYERS:
            problems.append(f"{path}: models/{parts[1]}/ has no layer in LAYERS")
        for included in re.findall(r'^#include "([a-z]+)/', text, re.M):
            if parts[0] == "models" and included in ("widgets", "app"):
                problems.append(f"{path}: the engine includes {included}/")
            if parts[0] == "models" and parts[1] in LAYERS and included in LAYERS and (
                    LAYERS[included] > LAYERS[parts[1]] or
                    (LAYERS[included] == LAYERS[parts[1]] and included != parts[1])):
                problems.append(f"{path}: includes {included}/, a library above or beside it")
    if len(long_ones) > MAX_LONG_FUNCTIONS:
        problems.append(f"{len(long_ones)} functions over {MAX_FUNCTION_LINES} lines "
                        f"(at most {MAX_LONG_FUNCTIONS}):")
        problems += [f"  {where}: {length} lines" for length, where in sorted(long_ones,
                                                                              reverse=True)]
    for problem in problems:
        print(problem)
    if not problems:
        print(f"structure holds: {len(long_ones)} functions over {MAX_FUNCTION_LINES} lines")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
