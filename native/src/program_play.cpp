// NativeProgram's play (native_program.h): a new game, its options, a move, the
// scores, native agents playing on and whole games played in a batch, and the card
// counts per card type (engine/tally.py).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "ir_loader.h"
#include "native_program.h"

namespace cardlang {

// ------------------------------------------------------------ the engine's calls
NativeProgram::NativeProgram(nb::dict ir) : vm(P) {
  load_ir(ir, P);  // read and prepared (ir_loader.cpp)
  vm.bind_tables();  // the tables are complete: the VM reads them directly
  kind_attribute = P.intern("KIND");
}

State NativeProgram::new_game(uint64_t rng, bool record, i64 max_decisions, i64 max_steps,
                              i64 max_work, i64 max_game_work) {
  return vm.new_game(rng, record, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
}

Options NativeProgram::options_of(State& st) {
  vm.legal_options(st);
  if (!st.options) return Options{std::make_shared<const OptionList>(), this};
  return Options{st.options, this};
}

void NativeProgram::apply(State& st, size_t index, i64 max_decisions, i64 max_steps, i64 max_work,
                          i64 max_game_work) {
  if (st.status != RUNNING) throw std::runtime_error("the game is over");
  const auto& options = vm.legal_options(st);
  if (index >= options.size()) throw nb::index_error("no such option");
  vm.apply(st, index, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
}

nb::object NativeProgram::scores(State& st) {
  if (!st.has_scores) return nb::none();
  nb::list out;
  for (const auto& s : st.scores) out.append(nb::tuple(nb::cast(s)));
  return out;
}

nb::object NativeProgram::table_scores(State& st) {
  if (P.table_score < 0) return nb::none();
  try {
    return nb::cast(vm.table_scores(st));
  } catch (const RuleErr& err) {
    throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
  }
}

nb::list NativeProgram::current_scores(State& st) {
  return per_seat_tuples([&] { return vm.current_scores(st); });
}

nb::list NativeProgram::ending_values(State& st) {
  return per_seat_tuples([&] { return vm.ending_values(st); });
}

// ------------------------------------------------------------ counts per card type
nb::object NativeProgram::card_counts(const State& st) {
  if (!st.tallying) return nb::none();
  struct Row {
    i32 seat, situation, type;  // type: the first card type of its text
    i64 count, first;
  };
  std::vector<Row> rows;
  for (const PickTally& t : st.tally)
    rows.push_back({t.seat, t.situation, same_type(t.card_type), t.count, t.first_turn});
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.seat != b.seat) return a.seat < b.seat;
    if (a.situation != b.situation) return P.strings[a.situation] < P.strings[b.situation];
    return type_texts_[a.type] < type_texts_[b.type];
  });
  nb::list cells;
  for (size_t i = 0; i < rows.size();) {
    Row r = rows[i++];
    for (; i < rows.size() && rows[i].seat == r.seat && rows[i].situation == r.situation &&
           rows[i].type == r.type; i++) {
      r.count += rows[i].count;
      r.first = std::min(r.first, rows[i].first);
    }
    for (nb::object cell : {nb::cast(r.seat), string_object(r.situation), type_object(r.type),
                            nb::cast(r.count), nb::cast(r.first)})
      cells.append(cell);
  }
  return nb::make_tuple(nb::tuple(cells), owned_cards(st));
}

nb::tuple NativeProgram::owned_cards(const State& st) {
  know_types();
  const size_t types = P.card_types.size();
  std::vector<i64>& by_type = owned_scratch_;
  by_type.assign((size_t)st.nplayers * types, 0);
  for (i32 k : st.zone_order) {
    const ZoneKey& z = P.keys[k];
    if (z.owner < 0 || z.owner >= st.nplayers || z.kind == 3) continue;
    i64* seat = by_type.data() + (size_t)z.owner * types;
    for (i64 card : st.zones[k]) seat[type_same_[(size_t)st.card_type[card]]]++;
  }
  nb::list out;
  for (i32 seat = 0; seat < st.nplayers; seat++)
    for (i32 type : types_by_text_) {
      i64 n = by_type[(size_t)seat * types + (size_t)type];
      if (n) {
        out.append(seat);
        out.append(type_object(type));
        out.append(n);
      }
    }
  return nb::tuple(out);
}

i32 NativeProgram::same_type(i32 type) {
  know_types();
  return type_same_[(size_t)type];
}

void NativeProgram::know_types() {
  if (type_texts_.size() < P.card_types.size()) {
    std::unordered_map<std::string, i32> first;
    for (size_t t = 0; t < type_texts_.size(); t++) first.emplace(type_texts_[t], type_same_[t]);
    while (type_texts_.size() < P.card_types.size()) {
      i32 t = (i32)type_texts_.size();
      type_texts_.push_back(P.card_type_text(P.card_types[(size_t)t]));
      type_same_.push_back(first.emplace(type_texts_.back(), t).first->second);
    }
    types_by_text_.clear();
    for (size_t t = 0; t < type_same_.size(); t++)
      if (type_same_[t] == (i32)t) types_by_text_.push_back((i32)t);
    std::sort(types_by_text_.begin(), types_by_text_.end(),
              [&](i32 a, i32 b) { return type_texts_[a] < type_texts_[b]; });
  }
}

// ------------------------------------------------------------ play
DominionBot* NativeProgram::dominion_bot(nb::list rules, std::vector<std::string> play) {
  std::vector<BuyRule> buy;
  for (nb::handle r : rules) {
    BuyRule rule;
    rule.card = P.intern(nb::cast<std::string>(r[0]));
    for (nb::handle c : nb::cast<nb::list>(r[1])) {
      Cond node;
      node.op = nb::cast<int>(c[0]);
      node.value = nb::cast<double>(c[1]);
      node.arg = nb::cast<int>(c[2]);
      std::string card = nb::cast<std::string>(c[3]);
      node.card = card.empty() ? -1 : P.intern(card);
      node.kids = nb::cast<std::vector<int>>(c[4]);
      rule.cond.push_back(std::move(node));
    }
    buy.push_back(std::move(rule));
  }
  std::vector<i32> order;
  for (const auto& name : play) order.push_back(P.intern(name));
  return new DominionBot(P, std::move(buy), std::move(order));
}

i64 NativeProgram::play(State& st, nb::list seats, i64 limit, i64 max_decisions, i64 max_steps,
                        i64 max_work, i64 max_game_work) {
  std::vector<NativeAgent*> agents;
  for (nb::handle a : seats) agents.push_back(a.is_none() ? nullptr : nb::cast<NativeAgent*>(a));
  return vm.play(st, agents, limit, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
}

nb::list NativeProgram::play_batch(std::vector<uint64_t> seeds, nb::list seat_sets,
                                   std::vector<i64> which, bool tally, i64 max_decisions,
                                   i64 max_steps, i64 max_work, i64 max_game_work) {
  std::vector<std::vector<NativeAgent*>> sets;
  for (nb::handle set : seat_sets) {
    std::vector<NativeAgent*> agents;
    for (nb::handle a : set) agents.push_back(nb::cast<NativeAgent*>(a));
    sets.push_back(std::move(agents));
  }
  if (which.size() != seeds.size()) throw nb::value_error("one seat set per game");
  EngineLimits limits{max_decisions, max_steps, max_work, max_game_work};
  nb::list out;
  for (size_t g = 0; g < seeds.size(); g++) {
    if (which[g] < 0 || which[g] >= (i64)sets.size()) throw nb::index_error("no such seat set");
    const auto& seats = sets[which[g]];
    for (size_t seat = 0; seat < seats.size(); seat++)
      seats[seat]->start_game(agent_seed(seeds[g], seat));
    State st = vm.new_game(seeds[g], false, limits);
    if ((size_t)st.nplayers != seats.size() && st.status == RUNNING)
      throw nb::value_error("one agent per seat");
    st.tallying = tally;  // no decision is taken before the first
    vm.play(st, seats, INT64_MAX, limits);
    out.append(nb::make_tuple(STATUS_NAMES[st.status], nb::str(st.end_reason.c_str()), scores(st),
                              st.decisions, st.turns, nb::cast(st.team_of), card_counts(st)));
  }
  return out;
}

}  // namespace cardlang
