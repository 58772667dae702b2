// The IR loader (ir_loader.h): compiler/ir.py's tables, read into a Program.
#include "ir_loader.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace cardlang {

void load_ir(nb::dict ir, Program& P) {
  if (nb::cast<int>(ir["version"]) != IR_VERSION)
    throw std::runtime_error("the IR's version does not match the native engine's");
  P.nplayers = nb::cast<i32>(ir["nplayers"]);
  P.n_registers = nb::cast<i32>(ir["n_registers"]);
  for (nb::handle s : nb::cast<nb::list>(ir["strings"])) P.intern(nb::cast<std::string>(s));
  for (nb::handle t : nb::cast<nb::list>(ir["nodes"])) {
    nb::tuple rec = nb::cast<nb::tuple>(t);
    Node n{};
    n.op = (int16_t)nb::cast<int>(rec[0]);
    n.type = (int16_t)nb::cast<int>(rec[1]);
    n.span = nb::cast<i32>(rec[2]);
    n.flags = nb::cast<i32>(rec[3]);
    for (int i = 0; i < 4; i++) n.p[i] = nb::cast<i64>(rec[4 + i]);
    n.kid0 = (i32)P.kids.size();
    n.nkids = (i32)rec.size() - 8;
    for (size_t i = 8; i < rec.size(); i++) P.kids.push_back(nb::cast<i32>(rec[i]));
    if (n.op < 0 || n.op >= O_COUNT) throw std::runtime_error("an IR node of no known kind");
    P.nodes.push_back(n);
  }
  for (nb::handle l : nb::cast<nb::list>(ir["lists"])) P.lists.push_back(nb::cast<Coll>(l));
  for (nb::handle v : nb::cast<nb::list>(ir["values"]))
    P.values.push_back(Typed{item<int>(v, 0), item<i64>(v, 1)});
  for (nb::handle k : nb::cast<nb::list>(ir["kinds"])) {
    CardType t;
    t.kind = item<i32>(k, 0);
    for (nb::handle a : nb::cast<nb::list>(k[1]))
      t.attrs.push_back({item<i32>(a, 0), P.values[item<i32>(a, 1)]});
    t.name = P.strings[t.kind];
    t.index();
    P.kind_types[t.kind] = (i32)P.card_types.size();
    P.card_types.push_back(std::move(t));
  }
  for (nb::handle d : nb::cast<nb::list>(ir["decks"])) {
    std::vector<std::vector<std::pair<i32, i32>>> cards;
    for (nb::handle c : nb::cast<nb::list>(d))
      cards.push_back(nb::cast<std::vector<std::pair<i32, i32>>>(c));
    P.decks.push_back(std::move(cards));
  }
  for (nb::handle p : nb::cast<nb::list>(ir["procedures"])) {
    Procedure proc;
    proc.name = item<i32>(p, 0);
    proc.param_slots = item<std::vector<i32>>(p, 1);
    proc.low = item<i32>(p, 2);
    proc.high = item<i32>(p, 3);
    proc.recursive = item<bool>(p, 4);
    proc.has_decision = item<bool>(p, 5);
    proc.body = item<i32>(p, 6);
    proc.hooks = item<std::vector<std::pair<i32, i32>>>(p, 7);
    proc.param_types = item<std::vector<int>>(p, 8);
    P.procedures.push_back(std::move(proc));
  }
  P.setup = nb::cast<std::vector<i32>>(ir["setup"]);
  P.program = nb::cast<i32>(ir["program"]);
  P.scoring = nb::cast<std::vector<std::pair<int, i32>>>(ir["scoring"]);
  P.table_score = nb::cast<i32>(ir["table_score"]);
  P.ending = nb::cast<std::vector<i32>>(ir["ending"]);
  for (nb::handle t : nb::cast<nb::list>(ir["slot_types"]))
    P.slot_types.push_back((int16_t)nb::cast<int>(t));
  P.snippets = nb::cast<std::vector<i32>>(ir["snippets"]);
  nb::dict lim = nb::cast<nb::dict>(ir["limits"]);
  P.limits.max_options = nb::cast<i64>(lim["max_options"]);
  P.limits.max_call_depth = nb::cast<i64>(lim["max_call_depth"]);
  P.limits.max_range = nb::cast<i64>(lim["max_range"]);
  P.limits.max_repeat = nb::cast<i64>(lim["max_repeat"]);
  if (lim.contains("max_cards")) P.limits.max_cards = nb::cast<i64>(lim["max_cards"]);
  if (lim.contains("max_option_passes"))
    P.limits.max_option_passes = nb::cast<i64>(lim["max_option_passes"]);
  P.prepare();
}

}  // namespace cardlang
