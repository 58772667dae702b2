// State's and Options' bindings (bindings.h): a game's state (state.h) as Python reads
// it, and the options of one decision, converted by the program that listed them.
#include <cstddef>

#include "bindings.h"
#include "native_program.h"

namespace cardlang {

void bind_state(nb::module_& m) {
  nb::class_<State>(m, "State")
      .def("clone", [](const State& st) { return State(st); })
      .def_prop_ro("status", [](const State& st) { return STATUS_NAMES[st.status]; })
      .def_prop_ro("over", [](const State& st) { return st.status != RUNNING; })
      .def_prop_ro("end_reason", [](const State& st) { return st.end_reason; })
      .def_prop_ro("mover", [](const State& st) { return st.mover; })
      .def_prop_ro("current_seat",
                   [](const State& st) {
                     return st.stack.empty() ? (i64)0 : st.stack[st.stage_idx].f[S_PLAYER];
                   })
      .def_prop_ro("decisions", [](const State& st) { return st.decisions; })
      .def_prop_ro("turns", [](const State& st) { return st.turns; })
      .def_prop_ro("work", [](const State& st) { return st.work; })
      .def_prop_ro("nplayers", [](const State& st) { return st.nplayers; })
      .def_prop_ro("pending", [](const State& st) { return st.pending; })
      .def_prop_rw(
          "rng", [](const State& st) { return st.rng; },
          [](State& st, uint64_t rng) { st.rng = rng; })
      .def_prop_ro("log_size", [](const State& st) { return st.log.size(); })
      .def_prop_ro("n_cards", [](const State& st) { return st.card_type.size(); })
      .def_prop_ro("recording", [](const State& st) { return st.recording; })
      .def_prop_rw(
          "tallying", [](const State& st) { return st.tallying; },
          [](State& st, bool on) { st.tallying = on; })
      .def_prop_ro("team_of", [](const State& st) { return st.team_of; })
      .def_prop_ro("teams", [](const State& st) { return st.teams; })
      .def_prop_ro("options_listed", [](const State& st) { return (bool)st.options; })
      .def("forget_options", [](State& st) { st.options.reset(); })
      .def_prop_ro("memory_bytes", [](const State& st) {
        // what the state's own containers hold (shared options and loop items counted
        // once per state that holds them)
        size_t n = sizeof(State);
        for (const Coll& z : st.zones) n += sizeof(Coll) + z.capacity() * sizeof(i64);
        n += st.zone_made.capacity() + st.zone_order.capacity() * sizeof(i32);
        n += (st.card_zone.capacity() + st.card_type.capacity()) * sizeof(i32);
        n += st.ints.bytes() + st.strs.bytes() + st.points.bytes();
        n += st.regs.capacity() * sizeof(Val);
        for (const Val& v : st.regs)
          if (v.list) n += v.list->capacity() * sizeof(i64);
        for (const auto& t : st.teams) n += sizeof(t) + t.capacity() * sizeof(i64);
        n += st.team_of.capacity() * sizeof(i64) + st.stack.capacity() * sizeof(Frame);
        for (const Frame& f : st.stack)
          if (f.items) n += f.items->capacity() * sizeof(Val);
        n += st.picks.capacity() * sizeof(Pick);
        for (const Pick& p : st.picks)
          n += p.steps.capacity() * sizeof(Step) + (p.held.capacity() + p.regs.capacity()) * sizeof(Val);
        if (st.options) n += st.options->steps.capacity() * sizeof(Step);
        n += st.log.capacity() * sizeof(Event);
        return n;
      });
}

void bind_options(nb::module_& m) {
  nb::class_<Options>(m, "Options")
      .def("__len__", [](const Options& o) { return o.list->size(); })
      .def("steps", [](Options& o, size_t i) { return o.program->steps_of(*o.list, i); })
      .def("kinds", [](Options& o, const State& st, int seat) {
        return o.program->option_kinds(st, *o.list, seat);
      })
      .def("move_keys", [](Options& o, const State& st) {
        return o.program->move_keys(*o.list, st);
      });
}

}  // namespace cardlang
