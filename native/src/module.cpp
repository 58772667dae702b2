// cardlang._native: the native engine's Python interface (nanobind).
//
// ``Program(ir)`` reads the IR that cardlang/compiler/ir.py builds (plain Python lists;
// the reading is ir_loader.cpp's); its methods are the engine protocol's calls on
// ``State`` objects, and the readers that turn a state's board, options and events into
// the Python engine's values (location keys as (owner, kind, name) tuples, cards as ids,
// None for no card).
// cardlang/engine/native.py wraps these into the engine protocol.
#include <algorithm>
#include <cmath>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bots.h"
#include "batch.h"
#include "ir_loader.h"
#include "search.h"
#include "tensor_kernels.h"
#include "transfer.h"
#include "vm.h"

namespace nb = nanobind;
using namespace cardlang;

namespace {

const char* KIND_NAMES[] = {"vloc", "iloc", "hloc", "mem"};
const char* STATUS_NAMES[] = {"running", "completed", "failed", "cutoff"};

class NativeProgram;

// One search agent's tree: the subtree kept between its decisions (ismcts.py: Node).
struct SearchTree {
  std::unique_ptr<SearchNode> root = std::make_unique<SearchNode>();
};

// The options of one decision, kept alive by whoever holds them: the state may move on,
// these stay what they were (engine/native.py converts each on first use).
struct Options {
  std::shared_ptr<const OptionList> list;
  NativeProgram* program;
};

class NativeProgram {
 public:
  Program P;
  VM vm;
  std::vector<nb::object> key_objects;  // location keys as Python tuples, made once
  i32 kind_attribute = -1;              // the string KIND (option_kinds reads it)

  explicit NativeProgram(nb::dict ir) : vm(P) {
    load_ir(ir, P);  // read and prepared (ir_loader.cpp)
    vm.bind_tables();  // the tables are complete: the VM reads them directly
    kind_attribute = P.intern("KIND");
  }

  // ------------------------------------------------------------ values for Python
  nb::object key(i32 k) {
    while ((i32)key_objects.size() < (i32)P.keys.size()) {
      const ZoneKey& z = P.keys[key_objects.size()];
      key_objects.push_back(
          nb::make_tuple(z.owner, KIND_NAMES[z.kind], nb::str(P.strings[z.name].c_str())));
    }
    return key_objects[k];
  }

  nb::object storage_key(i32 k) {
    const auto& s = P.storage_keys[k];
    return nb::make_tuple(s.first, nb::str(P.strings[s.second].c_str()));
  }

  nb::object value(const Val& v, int type) {
    if (v.is_none) return nb::none();
    if (v.lists) {
      nb::list out;
      for (const Coll& g : *v.lists) out.append(nb::cast(g));
      return out;
    }
    if (v.list) {
      if (type == T_STRS) {
        nb::list out;
        for (i64 s : *v.list) out.append(nb::str(P.strings[s].c_str()));
        return out;
      }
      if (type == T_LOCS) {
        nb::list out;
        for (i64 k : *v.list) out.append(key((i32)k));
        return out;
      }
      return nb::cast(*v.list);
    }
    switch (type) {
      case T_CARD:
        return v.i == NO_CARD ? nb::none() : nb::cast(v.i);
      case T_LOC:
      case T_MEMLOC:
        return key((i32)v.i);
      case T_STR:
        return nb::str(P.strings[v.i].c_str());
      case T_BOOL:
        return nb::bool_(v.i != 0);
      default:
        return nb::cast(v.i);
    }
  }

  int slot_type(i32 slot) const {
    return slot >= 0 && slot < (i32)P.slot_types.size() ? P.slot_types[slot] : T_ANY;
  }

  // ------------------------------------------------------------ the engine's calls
  // the engine's Limits (engine/gamemaster.py) come with every call that plays on
  State new_game(uint64_t rng, bool record, i64 max_decisions, i64 max_steps, i64 max_work,
                   i64 max_game_work) {
    return vm.new_game(rng, record, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
  }

  size_t option_count(State& st) { return vm.legal_options(st).size(); }

  Options options_of(State& st) {
    vm.legal_options(st);
    if (!st.options) return Options{std::make_shared<const OptionList>(), this};
    return Options{st.options, this};
  }

  // views.py: option_kinds -- per option the KIND of the first bound card the seat sees
  // (None where it sees none or the card has no KIND); None for the whole list where a
  // KIND is not a string (the view then reads the options itself)
  nb::object option_kinds(const State& st, const OptionList& list, int seat) {
    vm.first_seen_cards(st, list, seat, seen_cards_);
    nb::object out = nb::steal(PyTuple_New((Py_ssize_t)seen_cards_.size()));
    for (size_t i = 0; i < seen_cards_.size(); i++) {
      i64 card = seen_cards_[i];
      nb::object kind_name = nb::none();
      if (card >= 0) {
        const CardType& t = P.card_types[st.card_type[card]];
        Typed kind = (size_t)kind_attribute < t.by_name.size() ? t.by_name[kind_attribute]
                                                                : Typed{-1, 0};
        if (kind.tag == 1)
          kind_name = string_object(kind.v);
        else if (kind.tag != -1)
          return nb::none();
      }
      PyTuple_SET_ITEM(out.ptr(), (Py_ssize_t)i, kind_name.release().ptr());
    }
    return out;
  }
  std::vector<i64> seen_cards_;  // option_kinds' scratch

  // a string of the program as a Python str, made once (the bots read KINDs every decision)
  nb::object string_object(i64 id) {
    if ((size_t)id >= string_objects_.size()) string_objects_.resize(P.strings.size());
    nb::object& found = string_objects_[(size_t)id];
    if (!found.is_valid()) found = nb::str(P.strings[(size_t)id].c_str());
    return found;
  }
  std::vector<nb::object> string_objects_;

  // ------------------------------------------------------------ search's move keys
  // agents/search/common.py: MoveKeys.key, for every option of a decision at once, made
  // by the engine's search (search.h: move_key_parts) and turned into Python's tuples.
  // The names come from Python (set_move_key_names): per card type, the card's type as
  // card_type() names it; per node, id() of its AST node; the card slots.
  MoveKeyNames key_names;
  i64 named_types = -1;  // what the names were last given for (move_key_names)
  std::vector<i32> named_slots;
  std::vector<nb::object> text_objects_;

  void set_move_key_names(nb::list types, nb::list actions, std::vector<i32> card_slots) {
    key_names.type_text.clear();
    for (nb::handle t : types) key_names.type_text.push_back(key_names.text(nb::cast<std::string>(t)));
    key_names.action.clear();
    for (nb::handle a : actions) key_names.action.push_back(nb::cast<i64>(a));
    key_names.card_slot.assign(P.slot_types.size(), 0);
    for (i32 slot : card_slots)
      if (slot >= 0 && (size_t)slot < key_names.card_slot.size()) key_names.card_slot[slot] = 1;
    key_names.unseen = key_names.text("?");
    named_types = (i64)types.size();
    named_slots = card_slots;
  }

  // None where Python must make them: a card type not named yet, a card that lies
  // nowhere, a collection of collections
  nb::object move_keys(const OptionList& list, const State& st) {
    nb::list out;
    std::vector<i64> parts;
    for (size_t i = 0; i < list.size(); i++) {
      parts.clear();
      try {
        move_key_parts(vm, key_names, st, list[i], parts);
      } catch (const Unnamed&) {
        return nb::none();
      } catch (const std::exception&) {
        return nb::none();
      }
      out.append(key_object(parts));
    }
    return out;
  }

  nb::object text_object(i64 text) {
    if ((size_t)text >= text_objects_.size()) text_objects_.resize(key_names.text_of.size());
    nb::object& found = text_objects_[(size_t)text];
    if (!found.is_valid()) found = nb::str(key_names.text_of[(size_t)text].c_str());
    return found;
  }

  // a key's parts (search.h: KeyTag) as the tuple MoveKeys.key makes
  nb::object key_object(const std::vector<i64>& parts) {
    nb::list items;
    size_t at = 0;
    while (at < parts.size()) {
      switch (parts[at++]) {
        case K_ACTION:
        case K_NUMBER:
          items.append(nb::cast(parts[at++]));
          break;
        case K_TEXT:
          items.append(text_object(parts[at++]));
          break;
        case K_NONE:
          items.append(nb::none());
          break;
        case K_LOCATION:
          items.append(key((i32)parts[at++]));
          break;
        default: {  // K_LIST
          i64 kind = parts[at++], n = parts[at++];
          nb::list elements;
          for (i64 j = 0; j < n; j++, at++)
            elements.append(kind == L_TEXTS       ? text_object(parts[at])
                            : kind == L_LOCATIONS ? key((i32)parts[at])
                                                  : nb::cast(parts[at]));
          items.append(nb::tuple(elements));
        }
      }
    }
    return nb::tuple(items);
  }

  nb::list steps_of(const OptionList& list, size_t index) {
    if (index >= list.size()) throw nb::index_error("no such option");
    return option_steps(list[index]);
  }

  nb::list option_steps(OptionRef option) {
    nb::list out;
    for (const Step& s : option) {
      if (s.slot >= 0)
        out.append(nb::make_tuple(s.slot, value(option.value(s), slot_type(s.slot)),
                                  nb::str(P.strings[s.var].c_str())));
      else
        out.append(nb::make_tuple(-1, s.node, nb::none()));
    }
    return out;
  }

  void apply(State& st, size_t index, i64 max_decisions, i64 max_steps, i64 max_work,
                   i64 max_game_work) {
    if (st.status != RUNNING) throw std::runtime_error("the game is over");
    const auto& options = vm.legal_options(st);
    if (index >= options.size()) throw nb::index_error("no such option");
    vm.apply(st, index, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
  }

  nb::object scores(State& st) {
    if (!st.has_scores) return nb::none();
    nb::list out;
    for (const auto& s : st.scores) out.append(nb::tuple(nb::cast(s)));
    return out;
  }

  nb::object table_scores(State& st) {
    if (P.table_score < 0) return nb::none();
    try {
      return nb::cast(vm.table_scores(st));
    } catch (const RuleErr& err) {
      throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
    }
  }

  nb::list current_scores(State& st) {
    return per_seat_tuples([&] { return vm.current_scores(st); });
  }

  nb::list ending_values(State& st) {
    return per_seat_tuples([&] { return vm.ending_values(st); });
  }

  // each seat's values as a tuple; a rule error as "rule:SPAN:TEXT" (native.py: _scores)
  template <class F>
  nb::list per_seat_tuples(F evaluate) {
    nb::list out;
    try {
      for (const auto& s : evaluate()) out.append(nb::tuple(nb::cast(s)));
    } catch (const RuleErr& err) {
      throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
    }
    return out;
  }

  nb::object error(State& st) {
    if (!st.has_error) return nb::none();
    return nb::make_tuple(nb::str(st.error.message.c_str()), st.error.span);
  }

  nb::list events(State& st, size_t start) {
    nb::list out;
    for (size_t i = start; i < st.log.size(); i++) {
      const Event& e = st.log[i];
      switch (e.kind) {
        case E_CREATE:
          out.append(nb::make_tuple("create", e.a, key((i32)e.b)));
          break;
        case E_MOVE:
          out.append(nb::make_tuple("move", e.a, key((i32)e.b), key((i32)e.c), e.d));
          break;
        case E_SET_INT:
          out.append(nb::make_tuple("set", storage_key((i32)e.a), e.b));
          break;
        case E_SET_STR:
          out.append(nb::make_tuple("set", storage_key((i32)e.a), nb::str(P.strings[e.b].c_str())));
          break;
        case E_SET_POINTS:
          out.append(nb::make_tuple("set-points", storage_key((i32)e.a), e.b));
          break;
        case E_SHUFFLE:
          out.append(nb::make_tuple("shuffle", key((i32)e.a), nb::tuple(nb::cast(e.cards))));
          break;
        case E_REMEMBER:
          out.append(nb::make_tuple("remember", e.a, key((i32)e.b)));
          break;
        case E_DECISION:
        case E_REVEAL:
          out.append(nb::make_tuple(e.kind == E_DECISION ? "decision" : "reveal", e.a,
                                    nb::str(e.label.c_str()), e.b,
                                    nb::str(P.strings[e.c].c_str())));
          break;
      }
    }
    return out;
  }

  // a point map's awards, as engine/points.py's PointMap holds them
  nb::tuple awards(i64 pm) {
    nb::list out;
    if (pm < 0) return nb::tuple(out);
    for (const Award& a : P.pointmaps[pm].awards) {
      nb::list conds;
      for (const auto& c : a.conds) {
        nb::object v = c.second.tag == 0 ? nb::object(nb::cast(c.second.v))
                                         : nb::object(nb::str(P.strings[c.second.v].c_str()));
        conds.append(nb::make_tuple(nb::str(P.strings[c.first].c_str()), v));
      }
      out.append(nb::make_tuple(nb::tuple(conds), a.points));
    }
    return nb::tuple(out);
  }

  nb::dict zones(State& st) {
    nb::dict out;
    for (i32 k : st.zone_order) out[key(k)] = nb::cast(st.zones[k]);
    return out;
  }

  // every made location's top card, in the order made (empty ones left out)
  nb::list top_attributes(State& st, nb::list by_type) {
    // every non-empty location's (key, its top card's attributes), in the order the
    // locations were made; by_type holds each card type's attributes (Python's objects)
    nb::list out;
    for (i32 k : st.zone_order) {
      if (st.zones[k].empty()) continue;
      size_t type = (size_t)st.card_type[(size_t)st.zones[k].back()];
      if (type >= nb::len(by_type)) throw nb::index_error("a card type without attributes");
      out.append(nb::make_tuple(key(k), by_type[type]));
    }
    return out;
  }

  nb::list zone_keys(State& st) {
    // the made locations' keys, in the order made (as zones() orders them)
    nb::list out;
    for (i32 k : st.zone_order) out.append(key(k));
    return out;
  }

  nb::list card_zone(State& st) {
    nb::list out;
    for (i32 k : st.card_zone) out.append(k < 0 ? nb::none() : key(k));
    return out;
  }

  std::vector<i32> card_types(State& st) { return st.card_type; }

  nb::list card_type_attrs(i32 type) {
    nb::list out;
    for (const auto& a : P.card_types[type].attrs) {
      nb::object v;
      if (a.second.tag == 0)
        v = nb::cast(a.second.v);
      else if (a.second.tag == 1)
        v = nb::str(P.strings[a.second.v].c_str());
      else {
        nb::list items;
        for (i64 s : P.lists[a.second.v]) items.append(nb::str(P.strings[s].c_str()));
        v = nb::tuple(items);
      }
      out.append(nb::make_tuple(nb::str(P.strings[a.first].c_str()), v));
    }
    return out;
  }

  nb::dict ints(State& st) {
    nb::dict out;
    for (i32 k : st.ints.order) out[storage_key(k)] = st.ints.values[k];
    return out;
  }

  nb::dict strs(State& st) {
    nb::dict out;
    for (i32 k : st.strs.order) out[storage_key(k)] = nb::str(P.strings[st.strs.values[k]].c_str());
    return out;
  }

  nb::list regs(State& st) {
    nb::list out;
    for (size_t s = 0; s < st.regs.size(); s++) out.append(value(st.regs[s], slot_type((i32)s)));
    return out;
  }

  // a scripted Dominion bot (agents/scripted/dominion.py) inside the engine: its buy rules
  // as (card, condition nodes), each node (op, value, arg, card, kids)
  DominionBot* dominion_bot(nb::list rules, std::vector<std::string> play) {
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

  // ------------------------------------------------------------ counts per card type
  // engine/tally.py: card_counts -- (picks, owned), each sorted and flat (CardCounts's
  // cells: 5 a pick row, 3 an owned row), or None for a state made without counting.
  // Counts are kept by card type and told by its text (card_type): two types that read
  // alike are one (same_type).
  nb::object card_counts(const State& st) {
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

  // engine/tally.py: owned_cards -- per seat and card type (by its text), sorted, the
  // cards in the seat's locations (memory locations hold references only: left out)
  nb::tuple owned_cards(const State& st) {
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

  // the first card type whose text is the text of ``type``
  i32 same_type(i32 type) {
    know_types();
    return type_same_[(size_t)type];
  }
  // the tables of card types by text, grown as the game makes types (named decks')
  void know_types() {
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
  nb::object type_object(i32 type) {
    if (type_objects_.size() < type_texts_.size()) type_objects_.resize(type_texts_.size());
    nb::object& found = type_objects_[(size_t)type];
    if (!found.is_valid()) found = nb::str(type_texts_[(size_t)type].c_str());
    return found;
  }
  std::vector<std::string> type_texts_;  // per card type, its text (card_type)
  std::vector<i32> type_same_;           // per card type, the first of its text
  std::vector<i32> types_by_text_;       // the first types of each text, by text
  std::vector<nb::object> type_objects_;
  std::vector<i64> owned_scratch_;

  // ------------------------------------------------------------ single reads
  // (what a view asks for one at a time: no table is converted whole)
  i32 find_string(const std::string& s) const {
    auto it = P.string_ids.find(s);
    return it == P.string_ids.end() ? -1 : it->second;
  }

  i32 find_zone_key(i32 owner, const std::string& kind, const std::string& name) const {
    i32 k = -1;
    for (int i = 0; i < 4; i++)
      if (kind == KIND_NAMES[i]) k = i;
    i32 n = find_string(name);
    if (k < 0 || n < 0) return -1;
    i64 packed = ((i64)owner * 8 + k) * 4294967296LL + (i64)(uint32_t)n;
    auto it = P.key_ids.find(packed);
    return it == P.key_ids.end() ? -1 : it->second;
  }

  nb::object zone_get(State& st, i32 owner, const std::string& kind, const std::string& name) {
    i32 k = find_zone_key(owner, kind, name);
    if (k < 0 || !st.made(k)) return nb::none();
    return nb::cast(st.zones[k]);
  }

  nb::object int_get(State& st, i32 owner, const std::string& name) {
    i32 n = find_string(name);
    if (n < 0) return nb::none();
    auto it = P.storage_ids.find((i64)owner * 4294967296LL + (i64)(uint32_t)n);
    if (it == P.storage_ids.end()) return nb::none();
    i32 k = it->second;
    return st.ints.has(k) ? nb::cast(st.ints.values[k]) : nb::none();
  }

  // A determinization (information/knowledge.py: Skeleton.determinize): a copy of ``st``
  // whose hidden locations hold the cards given, the references the flow holds to
  // unidentified cards mapped to the cards now in their places, and a new RNG.
  State determinized(const State& st, nb::list zones, nb::dict mapping, uint64_t rng,
                     std::vector<i64> unplaced) {
    std::vector<std::pair<i32, Coll>> placed;
    for (nb::handle item : zones) {
      nb::tuple key = nb::cast<nb::tuple>(item[0]);
      i32 k = find_zone_key(nb::cast<i32>(key[0]), nb::cast<std::string>(key[1]),
                            nb::cast<std::string>(key[2]));
      if (k < 0) throw nb::value_error("no such location in this game");
      placed.emplace_back(k, nb::cast<Coll>(item[1]));
    }
    std::unordered_map<i64, i64> map;
    for (auto kv : mapping) map[nb::cast<i64>(kv.first)] = nb::cast<i64>(kv.second);
    auto card = [&](i64 c) {
      auto it = map.find(c);
      return it == map.end() ? c : it->second;
    };
    return determinized_state(P, st, placed, !map.empty(), card, rng, unplaced);
  }

  // A determinization's plan for the engine's search (search.h: DealPlan), from
  // knowledge.py's skeleton: the hidden locations and their entries, the pools' members,
  // each pool's places ((location index, i) or (-1 - pool, i)) and the stand-ins' places
  DealPlan deal_plan(nb::list hidden, std::vector<Coll> members,
                     std::vector<std::vector<std::pair<i32, i32>>> places,
                     std::vector<std::pair<i32, i32>> refs) {
    DealPlan plan;
    for (nb::handle item : hidden) {
      nb::tuple key = nb::cast<nb::tuple>(item[0]);
      i32 k = find_zone_key(nb::cast<i32>(key[0]), nb::cast<std::string>(key[1]),
                            nb::cast<std::string>(key[2]));
      if (k < 0) throw nb::value_error("no such location in this game");
      plan.zone_keys.push_back(k);
      plan.entries.push_back(nb::cast<Coll>(item[1]));
    }
    if (places.size() != members.size()) throw nb::value_error("one list of places per pool");
    auto fits = [&](i32 target, i32 i) {
      if (target >= 0) return (size_t)target < plan.entries.size() && i >= 0 &&
                              (size_t)i < plan.entries[(size_t)target].size();
      size_t q = (size_t)(-1 - (i64)target);
      return q < members.size() && i >= 0 && (size_t)i < members[q].size();
    };
    for (size_t pool = 0; pool < places.size(); pool++) {
      if (places[pool].size() != members[pool].size())
        throw nb::value_error("a pool's places and members differ in number");
      for (auto [target, i] : places[pool])
        if (!fits(target, i)) throw nb::index_error("a place outside the plan");
    }
    for (auto [h, i] : refs)
      if (h < 0 || !fits(h, i)) throw nb::index_error("a stand-in's place outside the plan");
    plan.members = std::move(members);
    plan.places = std::move(places);
    plan.refs = std::move(refs);
    return plan;
  }

  // the frame stack, for equality tests (engine/state.py: fingerprint)
  nb::list frames(State& st) {
    nb::list out;
    for (const Frame& f : st.stack) {
      nb::list fields;
      fields.append((int)f.kind);
      fields.append(f.node);
      for (i64 v : f.f) fields.append(v);
      if (f.items) fields.append((i64)f.items->size());
      out.append(nb::tuple(fields));
    }
    return out;
  }

  nb::object card_zone_of(State& st, i64 card) {
    if (card < 0 || card >= (i64)st.card_zone.size()) throw nb::index_error("no such card");
    i32 k = st.card_zone[card];
    return k < 0 ? nb::none() : key(k);
  }

  // the running (simultaneous ...) block's picks, for equality tests (engine/state.py:
  // fingerprint): per pick (mover, choice node, blank, its steps as steps_of gives
  // them, its registers)
  nb::list picks(State& st) {
    nb::list out;
    for (const Pick& p : st.picks) {
      nb::list regs;
      for (size_t s = 0; s < p.regs.size(); s++) regs.append(value(p.regs[s], slot_type((i32)s)));
      out.append(nb::make_tuple(p.mover, p.choice, p.blank, nb::tuple(option_steps(p.option())),
                                nb::tuple(regs)));
    }
    return out;
  }

  // engine/picks.py: pick_option_count and set_pick (a rule error while listing as
  // current_scores reports one)
  size_t pick_option_count(State& st, size_t k) {
    try {
      return vm.pick_option_count(st, k);
    } catch (const RuleErr& err) {
      throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
    }
  }

  void set_pick(State& st, size_t k, size_t index) {
    try {
      vm.set_pick(st, k, index);
    } catch (const RuleErr& err) {
      throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
    }
  }

  // env/batch.py: plan_for -- the BatchPlan of a VectorEnv, from plain data
  BatchPlan batch_plan(nb::dict d) {
    BatchPlan plan;
    plan.nplayers = nb::cast<i32>(d["nplayers"]);
    plan.width = nb::cast<i32>(d["width"]);
    plan.n_actions = nb::cast<i32>(d["n_actions"]);
    plan.learner = nb::cast<i32>(d["learner"]);
    if (plan.nplayers != P.nplayers || plan.width <= 0 || plan.n_actions <= 0 ||
        plan.learner < -1 || plan.learner >= plan.nplayers)
      throw nb::value_error("a batch plan of another game");
    for (nb::handle seat : nb::cast<nb::list>(d["seats"])) {
      ObsSeat s;
      s.current = nb::cast<i32>(seat["current"]);
      for (nb::handle t : nb::cast<nb::list>(seat["storages"]))
        s.storages.push_back({item<i32>(t, 0), P.storage_key(item<i32>(t, 1), P.intern(item<std::string>(t, 2)))});
      for (nb::handle z : nb::cast<nb::list>(seat["zones"]))
        s.zones.push_back(ObsZone{plan_key(z[0]), item<i32>(z, 1), item<i32>(z, 2), item<i32>(z, 3)});
      for (nb::handle ends : nb::cast<nb::list>(seat["ends"])) {
        std::vector<ObsEnd> list;
        for (nb::handle e : nb::cast<nb::list>(ends))
          list.push_back(ObsEnd{item<i32>(e, 0), plan_key(e[1]), item<bool>(e, 2)});
        s.ends.push_back(std::move(list));
      }
      plan.seats.push_back(std::move(s));
    }
    nb::list types = nb::cast<nb::list>(d["types"]);
    plan.n_types = (i32)types.size();
    for (size_t t = 0; t < types.size(); t++) plan.type_ids.emplace(nb::cast<std::string>(types[t]), (i32)t);
    for (nb::handle keys : nb::cast<nb::list>(d["keys"])) {
      std::unordered_map<std::string, i32> index;
      nb::list list = nb::cast<nb::list>(keys);
      for (size_t k = 0; k < list.size(); k++) index.emplace(nb::cast<std::string>(list[k]), (i32)k);
      plan.key_index.push_back(std::move(index));
    }
    for (nb::handle site : nb::cast<nb::list>(d["sites"])) {
      KeySite s;
      s.situation = item<i32>(site, 1);
      if (s.situation < 0 || s.situation >= (i32)plan.key_index.size())
        throw nb::value_error("a site of no situation");
      s.bare = nb::cast<std::vector<std::string>>(site[2]);
      s.heads = nb::cast<std::vector<std::string>>(site[3]);
      for (nb::handle part : nb::cast<nb::list>(site[4]))
        s.parts[item<i32>(part, 0)] = KeyPart{(int8_t)item<int>(part, 1), item<std::string>(part, 2)};
      plan.sites[item<i32>(site, 0)] = std::move(s);
    }
    for (nb::handle sign : nb::cast<nb::list>(d["ranking_signs"])) plan.ranking_signs.push_back(nb::cast<int>(sign));
    plan.score_reward = nb::cast<bool>(d["score_reward"]);
    plan.score_sign = nb::cast<double>(d["score_sign"]);
    plan.cards = d.contains("cards") && nb::cast<bool>(d["cards"]);
    for (const ObsSeat& s : plan.seats)
      if ((i32)s.ends.size() != (i32)plan.key_index.size()) throw nb::value_error("one end list per situation");
    if (d.contains("tokens") && !d["tokens"].is_none()) plan.tokens = token_plan(nb::cast<nb::dict>(d["tokens"]), plan);
    return plan;
  }

  // env/batch.py: token_plan -- the names of a view's tokens, as NameTable ids
  TokenPlan token_plan(nb::dict d, const BatchPlan& plan) {
    TokenPlan tp;
    tp.on = true;
    tp.max_tokens = nb::cast<i32>(d["max_tokens"]);
    for (nb::handle seat : nb::cast<nb::list>(d["seats"])) {
      TokenSeat s;
      for (nb::handle z : nb::cast<nb::list>(seat["zones"]))
        s.zones.push_back(TokenZone{plan_key(z[0]), item<i32>(z, 1), item<bool>(z, 2)});
      for (nb::handle t : nb::cast<nb::list>(seat["storages"]))
        s.storages.push_back({P.storage_key(item<i32>(t, 0), P.intern(item<std::string>(t, 1))), item<i32>(t, 2)});
      tp.seats.push_back(std::move(s));
    }
    tp.turns = nb::cast<i32>(d["turns"]);
    tp.situations = nb::cast<std::vector<i32>>(d["situations"]);
    tp.components = nb::cast<std::vector<std::vector<i32>>>(d["components"]);
    tp.actions = nb::cast<std::vector<std::vector<std::vector<i32>>>>(d["actions"]);
    bool fits = (i32)tp.seats.size() == plan.nplayers && tp.max_tokens > 0 &&
                tp.situations.size() == plan.key_index.size() && tp.actions.size() == plan.key_index.size();
    for (size_t k = 0; fits && k < tp.actions.size(); k++) fits = tp.actions[k].size() == plan.key_index[k].size();
    if (!fits) throw nb::value_error("a token plan of another game");
    return tp;
  }

  // a location key of a plan, (owner, kind, name): its number, made if no game made it yet
  i32 plan_key(nb::handle key) {
    std::string kind = item<std::string>(key, 1);
    for (int i = 0; i < 4; i++)
      if (kind == KIND_NAMES[i]) return P.zone_key(item<i32>(key, 0), i, P.intern(item<std::string>(key, 2)));
    throw nb::value_error("no such location kind");
  }

  VectorBatch* vector_batch(nb::dict plan, i32 n, i64 max_decisions, i64 max_steps, i64 max_work,
                   i64 max_game_work) {
    if (n < 1) throw nb::value_error("a batch needs a game at least");
    return new VectorBatch(vm, batch_plan(plan), n, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
  }

  // play on while the mover's seat has a native agent (None: a Python agent decides)
  i64 play(State& st, nb::list seats, i64 limit, i64 max_decisions, i64 max_steps, i64 max_work,
                   i64 max_game_work) {
    std::vector<NativeAgent*> agents;
    for (nb::handle a : seats) agents.push_back(a.is_none() ? nullptr : nb::cast<NativeAgent*>(a));
    return vm.play(st, agents, limit, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
  }

  // Whole games with native agents alone, one after the other, without returning to
  // Python between them (runs/planned.py: play_batch).  Game i starts from seeds[i] and
  // is played by seat_sets[which[i]], each agent first given its seat's seed
  // (runs/planned.py: agent_seeds).  Per game: (status, end reason, scores or None,
  // decisions, turns, team of each seat, its card_counts with ``tally``, else None); a
  // failed game's error is left for the caller to find by playing it again.
  nb::list play_batch(std::vector<uint64_t> seeds, nb::list seat_sets, std::vector<i64> which,
                      bool tally, i64 max_decisions, i64 max_steps, i64 max_work,
                      i64 max_game_work) {
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
};

}  // namespace

// the arrays a VectorBatch writes (numpy's, C-contiguous, on the CPU)
using Floats = nb::ndarray<float, nb::c_contig, nb::device::cpu>;
using Bools = nb::ndarray<bool, nb::c_contig, nb::device::cpu>;
using Ints = nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using I32s = nb::ndarray<int32_t, nb::c_contig, nb::device::cpu>;
using I8s = nb::ndarray<int8_t, nb::c_contig, nb::device::cpu>;
using I64s = nb::ndarray<int64_t, nb::c_contig, nb::device::cpu>;

static i32 checked_row(const VectorBatch& b, i32 i) {
  if (i < 0 || i >= b.size()) throw nb::index_error("no such row");
  return i;
}

// a batch's call, its BatchError as a ValueError env/batch.py reads ("illegal:ROW:ACTION",
// "failed:ROW", "no-decision:ROW")
template <class F>
static void batch_call(VectorBatch&, F&& f) {
  try {
    f();
  } catch (const BatchError& e) {
    std::string what = e.kind == BatchError::ILLEGAL ? "illegal:" + std::to_string(e.row) + ":" + std::to_string(e.action)
                       : e.kind == BatchError::FAILED ? "failed:" + std::to_string(e.row)
                                                      : "no-decision:" + std::to_string(e.row);
    throw nb::value_error(what.c_str());
  }
}

NB_MODULE(_native, m) {
  m.doc() = "cardlang's native engine: a C++ VM for a game's IR (see cardlang.engine.native)";
  m.attr("IR_VERSION") = IR_VERSION;
  m.attr("OP_COUNT") = (int)O_COUNT;
  // the tables' names, as generated from ir.py (tests/test_native.py reads them by name)
  nb::list op_names, type_names;
  for (int i = 0; i < O_COUNT; i++) op_names.append(OP_NAMES[i]);
  for (int i = 0; i < TYPE_COUNT; i++) type_names.append(TYPE_NAMES[i]);
  m.attr("OP_NAMES") = op_names;
  m.attr("TYPE_NAMES") = type_names;
  // A game a daemon thread still holds at exit (`cardlang serve` stopped with Ctrl-C,
  // a person's game left unfinished) is freed with the process: no leak to report.
  nb::set_leak_warnings(false);
  m.def("game_seeds", [](std::vector<uint32_t> entropy, uint64_t start, uint64_t count) {
    // runs/simulate.py: game_seeds, for games start .. start + count - 1
    std::vector<uint64_t> out;
    out.reserve(count);
    for (uint64_t i = start; i < start + count; i++)
      out.push_back(seed_sequence_child(entropy, i) >> 1);
    return out;
  });
  m.def("splitmix64", [](uint64_t x) {
    uint64_t out = splitmix_next(x);
    return nb::make_tuple(x, out);
  });

  // the Deep Sets network's kernels (agents/neural/kernels.py passes its tensors' memory)
  m.def("distinct_rows",
        [](std::vector<nb::ndarray<const uint8_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>> blocks,
           nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> rows,
           nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> first,
           nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> inverse) {
          if (blocks.empty()) throw nb::value_error("distinct_rows: no columns");
          const size_t count = blocks[0].shape(0), n = rows.shape(0);
          std::vector<RowBytes> parts;
          for (auto& block : blocks) {
            if (block.shape(0) != count) throw nb::value_error("distinct_rows: blocks of unequal rows");
            parts.push_back(RowBytes{block.data(), block.shape(1)});
          }
          if (first.shape(0) < n || inverse.shape(0) != n)
            throw nb::value_error("distinct_rows: an output of the wrong size");
          for (size_t i = 0; i < n; i++)
            if (rows.data()[i] < 0 || (size_t)rows.data()[i] >= count)
              throw nb::index_error("distinct_rows: a row out of range");
          return distinct_rows(parts, rows.data(), n, first.data(), inverse.data());
        });
  m.def("max_winners",
        [](nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu> table,
           nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> slot,
           nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> index, size_t t,
           int64_t fallback, nb::ndarray<int64_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> winner) {
          const size_t rows = table.shape(0), d = table.shape(1), n = slot.shape(0), b = winner.shape(0);
          if (index.shape(0) != n || winner.shape(1) != d)
            throw nb::value_error("max_winners: arrays of unequal sizes");
          if (t == 0) throw nb::value_error("max_winners: rows of no slots");
          if (fallback < 0 || (size_t)fallback >= rows) throw nb::index_error("max_winners: no such fallback row");
          if (rows > (size_t)INT32_MAX) throw nb::value_error("max_winners: a table of 2^31 rows or more");
          for (size_t i = 0; i < n; i++)
            if (slot.data()[i] < 0 || (size_t)slot.data()[i] >= b * t || index.data()[i] < 0 ||
                (size_t)index.data()[i] >= rows)
              throw nb::index_error("max_winners: a token out of range");
          max_winners(table.data(), d, slot.data(), t, index.data(), n, b, fallback, winner.data());
        });

  nb::class_<VectorBatch>(m, "VectorBatch")
      .def("set_agents",
           [](VectorBatch& b, nb::list seats) {
             std::vector<NativeAgent*> agents;
             for (nb::handle a : seats)
               agents.push_back(a.is_none() ? nullptr : nb::cast<NativeAgent*>(a));
             b.set_agents(agents);
           })
      // the caller's arrays, written by every reset and step (kept alive by the batch)
      .def("bind",
           [](VectorBatch& b, Floats obs, Bools mask, Ints seat, Ints situation, Floats rewards,
              Bools terminated, Bools truncated, Floats final_obs, Bools has_final) {
             size_t n = (size_t)b.size();
             auto rows = [n](size_t got, const char* what) {
               if (got != n) throw nb::value_error((std::string(what) + ": one row per game").c_str());
             };
             rows(obs.shape(0), "obs");
             rows(mask.shape(0), "mask");
             rows(seat.shape(0), "seat");
             rows(situation.shape(0), "situation");
             rows(rewards.shape(0), "rewards");
             rows(terminated.shape(0), "terminated");
             rows(truncated.shape(0), "truncated");
             rows(final_obs.shape(0), "final_obs");
             rows(has_final.shape(0), "has_final");
             b.check_widths(obs.ndim() == 2 ? obs.shape(1) : 0, mask.ndim() == 2 ? mask.shape(1) : 0,
                            rewards.ndim() == 2 ? rewards.shape(1) : 0,
                            final_obs.ndim() == 2 ? final_obs.shape(1) : 0);
             b.bind(BatchOut{obs.data(), mask.data(), seat.data(), situation.data(), rewards.data(),
                             terminated.data(), truncated.data(), final_obs.data(), has_final.data()});
           },
           nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>(), nb::keep_alive<1, 4>(),
           nb::keep_alive<1, 5>(), nb::keep_alive<1, 6>(), nb::keep_alive<1, 7>(),
           nb::keep_alive<1, 8>(), nb::keep_alive<1, 9>(), nb::keep_alive<1, 10>())
      // the token arrays (tokens.py's, a row per game; T rows of tokens each)
      .def("bind_tokens",
           [](VectorBatch& b, I32s names, I8s kinds, I8s buckets, Floats cont, I32s count,
              I32s act_names, I64s act_key, I32s act_count) {
             size_t n = (size_t)b.size(), N = MAX_TOKEN_NAMES, A = (size_t)b.n_actions();
             if (!b.wants_tokens()) throw nb::value_error("the plan asks for no tokens");
             if (names.ndim() != 3 || names.shape(0) != n || names.shape(2) != N)
               throw nb::value_error("names: [n, T, 16]");
             size_t T = names.shape(1);
             bool fits = kinds.ndim() == 2 && kinds.shape(0) == n && kinds.shape(1) == T &&
                         buckets.ndim() == 2 && buckets.shape(0) == n && buckets.shape(1) == T &&
                         cont.ndim() == 3 && cont.shape(0) == n && cont.shape(1) == T && cont.shape(2) == 3 &&
                         count.ndim() == 1 && count.shape(0) == n && act_count.ndim() == 1 &&
                         act_count.shape(0) == n && act_names.ndim() == 3 && act_names.shape(0) == n &&
                         act_names.shape(1) == A && act_names.shape(2) == N && act_key.ndim() == 2 &&
                         act_key.shape(0) == n && act_key.shape(1) == A;
             if (!fits) throw nb::value_error("the token arrays are not the shape of this batch's");
             b.bind_tokens(TokenOut{names.data(), kinds.data(), buckets.data(), cont.data(), count.data(),
                                    act_names.data(), act_key.data(), act_count.data()},
                           (i32)T);
           },
           nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>(), nb::keep_alive<1, 4>(),
           nb::keep_alive<1, 5>(), nb::keep_alive<1, 6>(), nb::keep_alive<1, 7>(),
           nb::keep_alive<1, 8>(), nb::keep_alive<1, 9>())
      .def("rewrite_tokens", &VectorBatch::rewrite_tokens)
      .def("reset", [](VectorBatch& b, std::vector<uint32_t> words) { batch_call(b, [&] { b.reset(words); }); })
      .def("step",
           [](VectorBatch& b, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> actions) {
             if (actions.shape(0) != (size_t)b.size()) throw nb::value_error("one action per game");
             std::vector<i32> finished;
             batch_call(b, [&] { finished = b.step(actions.data()); });
             return finished;
           })
      .def("fork",
           [](VectorBatch& b, i32 src, i32 dst) { b.fork(checked_row(b, src), checked_row(b, dst)); })
      .def("state", [](const VectorBatch& b, i32 i) { return State(b.state(checked_row(b, i))); })
      .def("finished", [](const VectorBatch& b, i32 i) { return State(b.finished(checked_row(b, i))); })
      .def("seed", [](const VectorBatch& b, i32 i) { return b.seed(checked_row(b, i)); })
      .def("finished_seed", [](const VectorBatch& b, i32 i) { return b.finished_seed(checked_row(b, i)); });

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

  nb::class_<Options>(m, "Options")
      .def("__len__", [](const Options& o) { return o.list->size(); })
      .def("steps", [](Options& o, size_t i) { return o.program->steps_of(*o.list, i); })
      .def("kinds", [](Options& o, const State& st, int seat) {
        return o.program->option_kinds(st, *o.list, seat);
      })
      .def("move_keys", [](Options& o, const State& st) {
        return o.program->move_keys(*o.list, st);
      });

  nb::class_<NativeAgent>(m, "NativeAgent");
  nb::class_<RandomAgent, NativeAgent>(m, "RandomAgent")
      .def(nb::init<uint64_t>())
      .def_rw("state", &RandomAgent::state)
      .def("draw", &RandomAgent::draw);

  nb::class_<DominionBot, NativeAgent>(m, "DominionBot");

  // CPython's random.Random as the engine's search draws from it (tests hold it to Python's)
  nb::class_<PyRandom>(m, "PyRandom")
      .def(nb::init<>())
      .def("load", &PyRandom::load)
      .def("save", &PyRandom::save)
      .def("random", &PyRandom::random)
      .def("getrandbits",
           [](PyRandom& r, int k) {
             if (k < 0 || k > 64) throw nb::value_error("0 to 64 bits");
             return r.getrandbits(k);
           })
      .def("below",
           [](PyRandom& r, uint64_t n) {
             if (n == 0) throw nb::value_error("below 0");
             return r.below(n);
           })
      .def("shuffle", [](PyRandom& r, Coll items) {
        r.shuffle(items);
        return items;
      });

  nb::class_<DealPlan>(m, "DealPlan");
  nb::class_<SearchTree>(m, "SearchTree");

  // ismcts.py's search inside the engine (search.h); one per agent, keeping the program
  nb::class_<Ismcts>(m, "Ismcts")
      .def(
          "decide",
          [](Ismcts& search, nb::tuple settings, const DealPlan& plan, const State& base,
             const Options& real, nb::object given_tree, std::vector<i64> rng_state,
             uint64_t rollout_state, nb::list rollout_agents, nb::object refresh_names) {
            SearchSettings s;
            s.c = nb::cast<double>(settings[0]);
            s.cap = nb::cast<i64>(settings[1]);
            s.margin = nb::cast<double>(settings[2]);
            s.iterations = nb::cast<i64>(settings[3]);
            s.seconds = nb::cast<double>(settings[4]);
            s.one_world = nb::cast<bool>(settings[5]);
            s.score_sign = nb::cast<int>(settings[6]);
            s.ranking_signs = nb::cast<std::vector<int>>(settings[7]);
            s.limits = EngineLimits{nb::cast<i64>(settings[8]), nb::cast<i64>(settings[9]),
                                    nb::cast<i64>(settings[10]), nb::cast<i64>(settings[11])};
            search.rng.load(rng_state);
            search.rollout.state = rollout_state;
            struct Reset {  // what this call lends the search, taken back however it ends
              Ismcts& s;
              ~Reset() {
                s.refresh_names = nullptr;
                s.interrupted = nullptr;
                s.rollout_agents.clear();
              }
            } reset{search};
            search.interrupted = []() { return PyErr_CheckSignals() != 0; };
            search.rollout_agents.clear();  // the list holds them while the search runs
            for (nb::handle a : rollout_agents)
              search.rollout_agents.push_back(nb::cast<NativeAgent*>(a));
            search.refresh_names = [&refresh_names]() { refresh_names(); };
            SearchTree fresh;  // None: a search from a new root
            SearchTree& tree = given_tree.is_none() ? fresh : nb::cast<SearchTree&>(given_tree);
            SearchAnswer a;
            try {
              a = search.decide(s, plan, base, *real.list, *tree.root, (int)base.nplayers);
            } catch (const Interrupted&) {
              throw nb::python_error();  // the KeyboardInterrupt Python has pending
            }
            nb::list values;
            for (double v : a.values) values.append(std::isnan(v) ? nb::none() : nb::cast(v));
            nb::object kept = nb::none();
            if (a.kept) {
              auto* t = new SearchTree();
              t->root = std::move(a.kept);
              kept = nb::cast(t, nb::rv_policy::take_ownership);
            }
            return nb::make_tuple(a.best, values, a.totals, a.done, kept, search.rng.save(),
                                  search.rollout.state, a.visits);
          },
          nb::arg("settings"), nb::arg("plan"), nb::arg("base"), nb::arg("options"),
          nb::arg("tree").none(), nb::arg("rng_state"), nb::arg("rollout_state"),
          nb::arg("rollout_agents"), nb::arg("refresh_names"));

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
