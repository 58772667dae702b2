// cardlang._native's bindings, by topic (module.cpp's NB_MODULE calls them in the order
// below, which is the order of the module's attributes and of its stub, _native.pyi):
//
//   bind_kernels.cpp   bind_tables (IR_VERSION, the op and type names, game_seeds,
//                      splitmix64) and bind_kernels (the Deep Sets network's kernels)
//   bind_batch.cpp     bind_batch (VectorBatch)
//   bind_state.cpp     bind_state (State) and bind_options (Options)
//   bind_search.cpp    bind_agents (NativeAgent, RandomAgent, DominionBot, PyRandom) and
//                      bind_search (DealPlan, SearchTree, Ismcts)
//   bind_program.cpp   bind_program (Program: NativeProgram, native_program.h)
//
// native_program.h brings the STL's casters, so that every file that binds sees the same.
#pragma once

#include "native_program.h"

namespace cardlang {

void bind_tables(nb::module_& m);
void bind_kernels(nb::module_& m);
void bind_batch(nb::module_& m);
void bind_state(nb::module_& m);
void bind_options(nb::module_& m);
void bind_agents(nb::module_& m);
void bind_search(nb::module_& m);
void bind_program(nb::module_& m);

}  // namespace cardlang
