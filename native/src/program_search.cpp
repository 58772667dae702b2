// NativeProgram's part in the search (native_program.h): the search's move keys as
// Python's tuples, determinizations and the deal plans of the search inside the engine,
// and the secret picks of a (simultaneous ...) block.
#include <string>
#include <unordered_map>
#include <utility>

#include "native_program.h"

namespace cardlang {

// ------------------------------------------------------------ search's move keys
void NativeProgram::set_move_key_names(nb::list types, nb::list actions,
                                       std::vector<i32> card_slots) {
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

nb::object NativeProgram::move_keys(const OptionList& list, const State& st) {
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

nb::object NativeProgram::key_object(const std::vector<i64>& parts) {
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

// ------------------------------------------------------------ worlds and secret picks
State NativeProgram::determinized(const State& st, nb::list zones, nb::dict mapping, uint64_t rng,
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

DealPlan NativeProgram::deal_plan(nb::list hidden, std::vector<Coll> members,
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

size_t NativeProgram::pick_option_count(State& st, size_t k) {
  try {
    return vm.pick_option_count(st, k);
  } catch (const RuleErr& err) {
    throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
  }
}

void NativeProgram::set_pick(State& st, size_t k, size_t index) {
  try {
    vm.set_pick(st, k, index);
  } catch (const RuleErr& err) {
    throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
  }
}

}  // namespace cardlang
