// What the VM's files share (vm.h declares the VM; vm_eval*.cpp, vm_exec.cpp,
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

// ---------------------------------------------------------------- cards and randomness
// (inline: ev_node's families read them in both vm_eval_scalar.cpp and
// vm_eval_measure.cpp, and vm_eval.cpp's collections read the attributes too)

// engine/state.py: rand_below (splitmix64 is inline in vm.h)
inline i64 VM::rand_below(State& st, uint64_t n) {
  uint64_t z = splitmix_next(st.rng);
  return (i64)(((unsigned __int128)z * n) >> 64);
}

// a card's attribute NAME, if its type has one
inline Typed VM::attribute(const State& st, i64 card, i32 name, bool& found) const {
  const CardType& t = P.card_types[st.card_type[card]];
  if ((size_t)name < t.by_name.size() && t.by_name[name].tag >= 0) {
    found = true;
    return t.by_name[name];
  }
  found = false;
  return Typed{0, 0};
}

// (attr NAME CARD): the card's attribute, else the value the kinds declare for it; the
// top card of an empty location is a rule error (inlined: it is on the evaluator's hot path)
__attribute__((always_inline)) inline Typed VM::attr_value(State& st, const Node& n) {
  i64 c = ev(st, kd(n, 0));
  if (c == NO_CARD) attr_of_no_card(n);
  return attr_of(st, n, c);
}

}  // namespace cardlang
