// What the VM's files share (vm.h declares the VM; vm_eval.cpp, vm_exec.cpp,
// vm_options.cpp and vm_labels.cpp define it): the small helpers more than one of them
// calls, inline, so that each file inlines them on its hot paths as the VM did when it
// was one file.  Not for the VM's users (bots, search, batch, module): vm.h is theirs.
#pragma once

#include <algorithm>
#include <string>

#include "vm.h"

namespace cardlang {

inline std::string str(i64 v) { return std::to_string(v); }

// Python's % (the result has the divisor's sign)
inline i64 pymod(i64 a, i64 m) {
  i64 r = a % m;
  return (r != 0 && ((r < 0) != (m < 0))) ? r + m : r;
}

// a register set to a single value (vm.h: bind_scalar)
inline void bind_scalar(State& st, i64 slot, i64 v) { bind_scalar(st.regs[slot], v); }

// a (repeat N ...)'s count: none for a negative N, a rule error past the limit
// the rule error of a game whose allocation failed (vm_exec.cpp)
RuleErr out_of_memory();

inline i64 repeat_count(i64 count, i32 span, const Limits& lim) {
  if (count > lim.max_repeat)
    throw RuleErr{"(repeat " + str(count) + " ...) repeats more than " + str(lim.max_repeat) +
                      " times",
                  span};
  return std::max<i64>(count, 0);
}

// ---------------------------------------------------------------- players and teams

inline i64 VM::current_player(const State& st) const { return st.stack[st.stage_idx].f[S_PLAYER]; }

inline i64 VM::current_team(const State& st) const {
  const Frame& f = st.stack[st.stage_idx];
  if (f.f[S_TEAM]) return f.f[S_CUR];
  return st.team_of[f.f[S_CUR]];
}

inline i64 VM::cycle_size(const State& st, const Frame& f) const {
  return f.f[S_TEAM] ? (i64)st.teams.size() : st.nplayers;
}

inline i64 VM::next_in_cycle(const State& st) const {
  const Frame& f = st.stack[st.stage_idx];
  if (f.f[S_QUEUED] >= 0) return f.f[S_QUEUED];
  return pymod(f.f[S_CUR] + 1, cycle_size(st, f));
}

inline i64 VM::previous_in_cycle(const State& st) const {
  const Frame& f = st.stack[st.stage_idx];
  return pymod(f.f[S_CUR] - 1, cycle_size(st, f));
}

}  // namespace cardlang
