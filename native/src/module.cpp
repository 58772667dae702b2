// cardlang._native: the native engine's Python interface (nanobind).
//
// ``Program(ir)`` reads the IR that cardlang/compiler/ir.py builds (plain Python lists;
// the reading is ir_loader.cpp's); its methods are the engine protocol's calls on
// ``State`` objects, and the readers that turn a state's board, options and events into
// the Python engine's values (location keys as (owner, kind, name) tuples, cards as ids,
// None for no card).
// cardlang/engine/native.py wraps these into the engine protocol.
//
// The program is native_program.h's NativeProgram (its methods in program_*.cpp); the
// bindings are bind_*.cpp's, by topic (bindings.h), called here in the order of the
// module's attributes.
#include "bindings.h"

NB_MODULE(_native, m) {
  using namespace cardlang;
  m.doc() = "cardlang's native engine: a C++ VM for a game's IR (see cardlang.engine.native)";
  // A game a daemon thread still holds at exit (`cardlang serve` stopped with Ctrl-C,
  // a person's game left unfinished) is freed with the process: no leak to report.
  nb::set_leak_warnings(false);
  bind_tables(m);
  bind_kernels(m);
  bind_batch(m);
  bind_state(m);
  bind_options(m);
  bind_agents(m);
  bind_search(m);
  bind_program(m);
}
