// Program's binding (bindings.h): NativeProgram (native_program.h) as cardlang._native's
// Program, the calls engine/native.py makes on a game's states.
#include <string>

#include "bindings.h"
#include "native_program.h"
#include "transfer.h"

namespace cardlang {

void bind_program(nb::module_& m) {
  nb::class_<NativeProgram>(m, "Program")
      .def(nb::init<nb::dict>())
      .def("new_game", &NativeProgram::new_game)
      .def("option_count", &NativeProgram::option_count)
      .def("options_of", &NativeProgram::options_of)
      .def("apply", &NativeProgram::apply)
      .def("play_batch", &NativeProgram::play_batch)
      .def("card_counts", &NativeProgram::card_counts)
      .def("vector_batch", &NativeProgram::vector_batch, nb::rv_policy::take_ownership,
           nb::keep_alive<0, 1>())
      .def_prop_ro("shared_guard_expressions",
                   [](const NativeProgram& p) { return p.P.n_memo_slots; })
      .def("scores", &NativeProgram::scores)
      .def("current_scores", &NativeProgram::current_scores)
      .def("table_scores", &NativeProgram::table_scores)
      .def("ending_values", &NativeProgram::ending_values)
      .def("error", &NativeProgram::error)
      .def("events", &NativeProgram::events)
      .def("awards", &NativeProgram::awards)
      .def("zones", &NativeProgram::zones)
      .def("card_zone", &NativeProgram::card_zone)
      .def("zone_keys", &NativeProgram::zone_keys)
      .def("top_attributes", &NativeProgram::top_attributes)
      .def("set_move_key_names", &NativeProgram::set_move_key_names)
      .def_prop_ro("move_key_names",
                   [](const NativeProgram& p) { return nb::make_tuple(p.named_types, p.named_slots); })
      .def_prop_ro("card_type_count",
                   [](const NativeProgram& p) { return p.P.card_types.size(); })
      .def("card_types", &NativeProgram::card_types)
      .def("card_type_of",
           [](NativeProgram&, const State& st, i64 card) {
             if (card < 0 || card >= (i64)st.card_type.size()) throw nb::index_error("no such card");
             return st.card_type[card];
           })
      .def("card_type_attrs", &NativeProgram::card_type_attrs)
      .def("ints", &NativeProgram::ints)
      .def("strs", &NativeProgram::strs)
      .def("regs", &NativeProgram::regs)
      .def("zone_get", &NativeProgram::zone_get)
      .def("int_get", &NativeProgram::int_get)
      .def("card_zone_of", &NativeProgram::card_zone_of)
      .def("determinized", &NativeProgram::determinized)
      // a state sent to another process (transfer.h): its bytes, and the tables they need
      .def("save_state",
           [](const NativeProgram&, const State& st) {
             std::string b = save_state(st);
             return nb::bytes(b.data(), b.size());
           })
      .def("load_state",
           [](const NativeProgram& p, nb::bytes b) {
             return load_state(std::string(b.c_str(), b.size()), p.P);
           })
      .def("save_tables",
           [](const NativeProgram& p) {
             std::string b = save_tables(p.P);
             return nb::bytes(b.data(), b.size());
           })
      .def("load_tables",
           [](NativeProgram& p, nb::bytes b) { load_tables(p.P, std::string(b.c_str(), b.size())); })
      .def("deal_plan", &NativeProgram::deal_plan)
      .def(
          "ismcts", [](NativeProgram& p) { return new Ismcts(p.vm, p.key_names); },
          nb::rv_policy::take_ownership, nb::keep_alive<0, 1>())
      .def("frames", &NativeProgram::frames)
      .def("picks", &NativeProgram::picks)
      .def_prop_ro("has_simultaneous", [](const NativeProgram& p) { return p.P.has_simultaneous; })
      .def("hide_picks", [](NativeProgram& p, State& st, int seat) { p.vm.hide_picks(st, seat); })
      .def("blank_picks", [](NativeProgram& p, const State& st) { return p.vm.blank_picks(st); })
      .def("pick_option_count", &NativeProgram::pick_option_count)
      .def("set_pick", &NativeProgram::set_pick)
      .def("play", &NativeProgram::play)
      // the bot reads the program's tables: it keeps the program alive
      .def("dominion_bot", &NativeProgram::dominion_bot, nb::rv_policy::take_ownership,
           nb::keep_alive<0, 1>());
}

}  // namespace cardlang
