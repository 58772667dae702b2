// The VM's texts (vm.h): the label of an option as the event log and the agents read
// it, the names of cards, locations and values in it, the names of card types, and
// which card of an option a seat sees.  The Python twin: engine/labels.py (labels),
// language/kinds.py (card names), information/views.py (option_kinds).
#include <string>

#include "vm_internal.h"

namespace cardlang {

// ---------------------------------------------------------------- labels
// engine/labels.py

std::string VM::card_label(const State& st, i64 card) const {
  if (card == NO_CARD) return "(none)";
  return P.card_types[st.card_type[card]].name;
}

static std::string owner_text(i32 owner) {
  if (owner == -1) return "game";
  if (owner >= 0) return "P" + str(owner);
  return "team" + str(-2 - owner);
}

std::string VM::location_label(i32 key) const {
  static const char* kinds[] = {"vloc", "iloc", "hloc", "mem"};
  const ZoneKey& k = P.keys[key];
  std::string s = owner_text(k.owner) + "." + P.strings[k.name];
  if (k.kind != KIND_VLOC) s += std::string("(") + kinds[k.kind] + ")";
  return s;
}

std::string VM::value_label(const State& st, const Val& v, int type) const {
  if (v.is_none) return type == T_CARD ? "(none)" : "None";
  if (v.list) {
    std::string s = "[";
    for (size_t i = 0; i < v.list->size(); i++) {
      if (i) s += ", ";
      s += card_label(st, (*v.list)[i]);
    }
    return s + "]";
  }
  switch (type) {
    case T_CARD:
      return card_label(st, v.i);
    case T_PLAYER:
      return "P" + str(v.i);
    case T_TEAM:
      return "team " + str(v.i);
    case T_LOC:
    case T_MEMLOC: {
      const Coll& cards = st.zone((i32)v.i);
      std::string top;
      if (P.keys[v.i].kind == KIND_VLOC)
        top = cards.empty() ? " (empty)" : " (top " + card_label(st, cards.back()) + ")";
      return location_label((i32)v.i) + top;
    }
    case T_STR:
      return P.strings[v.i];
    case T_BOOL:
      return v.i ? "True" : "False";
    default:
      return str(v.i);
  }
}

std::string VM::option_label(const State& st, OptionRef option) const {
  std::string binds, acts;
  for (const Step& s : option) {
    if (s.slot >= 0) {
      if (!binds.empty()) binds += ", ";
      int type = s.slot < (i32)P.slot_types.size() ? P.slot_types[s.slot] : T_ANY;
      binds += "'" + P.strings[s.var] + "=" + value_label(st, option.value(s), type);
    } else {
      if (!acts.empty()) acts += "; ";
      acts += P.strings[P.snippets[s.node]];
    }
  }
  return binds.empty() ? acts : binds + ": " + acts;
}

// ---------------------------------------------------------------- what a seat sees
// information/views.py: option_kinds (program_values.cpp names the cards' KINDs)

void VM::first_seen_cards(const State& st, const OptionList& options, int seat,
                          std::vector<i64>& out) const {
  out.assign(options.size(), NO_CARD);
  for (size_t i = 0; i < options.size(); i++) {
    for (const Step& s : options[i]) {
      if (s.slot < 0) continue;
      int type = P.slot_types[s.slot];
      if (type == T_LOC || type == T_MEMLOC) {
        const Coll& z = st.zone((i32)s.i);
        if (!z.empty() && can_see((i32)s.i, seat)) {
          out[i] = z.back();
          break;
        }
      } else if (type == T_CARD && s.held < 0 && s.i >= 0 && can_see(st.card_zone[s.i], seat)) {
        out[i] = s.i;
        break;
      }
    }
  }
}

// ---------------------------------------------------------------- card types
// language/kinds.py: card_name, card_type; a typed value as Python's str shows it

std::string Program::typed_text(const Typed& t) const {
  if (t.tag == 0) return std::to_string(t.v);
  if (t.tag == 1) return strings[t.v];
  std::string s = "(";
  const Coll& items = lists[t.v];
  for (size_t i = 0; i < items.size(); i++) {
    if (i) s += ", ";
    s += "'" + strings[items[i]] + "'";
  }
  if (items.size() == 1) s += ",";
  return s + ")";
}

std::string Program::card_type_name(const CardType& t) const {
  // language/kinds.py: card_name (its KIND, else every attribute value)
  if (t.kind >= 0) return strings[t.kind];
  std::string s;
  for (size_t i = 0; i < t.attrs.size(); i++) {
    if (i) s += " ";
    s += typed_text(t.attrs[i].second);
  }
  return s;
}

std::string Program::card_type_text(const CardType& t) const {
  // language/kinds.py: card_type (its KIND, else its attribute values but the deck's name)
  if (t.kind >= 0) return strings[t.kind];
  std::string s;
  bool first = true;
  for (const auto& a : t.attrs) {
    if (strings[a.first] == "DECK") continue;
    if (!first) s += " ";
    first = false;
    s += typed_text(a.second);
  }
  return s;
}

}  // namespace cardlang
