// The IR loader: the Program of the IR that src/cardlang/compiler/ir.py builds (a dict
// of plain Python lists: strings, nodes, lists, typed values, card kinds, decks,
// procedures, the program, its scoring and its limits), read table by table and then
// prepared (program_prepare.cpp).  Program(ir) calls it (program_play.cpp: NativeProgram's
// constructor); compiler/ir.py is its Python twin, the writer of what it reads.
#pragma once

#include <cstddef>

#include <nanobind/nanobind.h>

#include "program.h"

namespace cardlang {

// the IR's version this VM reads (compiler/ir.py: IR_VERSION); another is refused
constexpr int IR_VERSION = 6;

// element ``i`` of a Python sequence as a C++ value
template <typename T>
T item(nanobind::handle seq, size_t i) {
  return nanobind::cast<T>(seq[i]);
}

// read ``ir`` into ``P`` (a Program as constructed, empty) and prepare it; a
// std::runtime_error for an IR of another version or an unknown node
void load_ir(nanobind::dict ir, Program& P);

}  // namespace cardlang
