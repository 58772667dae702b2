// NativeProgram's values for Python (native_program.h): location and storage keys, a
// register's value by its slot's type, what a seat sees of the options, the steps of an
// option, the event log, the board's readers, the single reads a view makes, and the
// frames and picks the equality tests compare.
#include "native_program.h"

namespace cardlang {

// ------------------------------------------------------------ values for Python
nb::object NativeProgram::key(i32 k) {
  while ((i32)key_objects.size() < (i32)P.keys.size()) {
    const ZoneKey& z = P.keys[key_objects.size()];
    key_objects.push_back(
        nb::make_tuple(z.owner, KIND_NAMES[z.kind], nb::str(P.strings[z.name].c_str())));
  }
  return key_objects[k];
}

nb::object NativeProgram::storage_key(i32 k) {
  const auto& s = P.storage_keys[k];
  return nb::make_tuple(s.first, nb::str(P.strings[s.second].c_str()));
}

nb::object NativeProgram::value(const Val& v, int type) {
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

nb::object NativeProgram::option_kinds(const State& st, const OptionList& list, int seat) {
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

nb::list NativeProgram::steps_of(const OptionList& list, size_t index) {
  if (index >= list.size()) throw nb::index_error("no such option");
  return option_steps(list[index]);
}

nb::list NativeProgram::option_steps(OptionRef option) {
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

// ------------------------------------------------------------ the board and the log
nb::object NativeProgram::error(State& st) {
  if (!st.has_error) return nb::none();
  return nb::make_tuple(nb::str(st.error.message.c_str()), st.error.span);
}

nb::list NativeProgram::events(State& st, size_t start) {
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

nb::tuple NativeProgram::awards(i64 pm) {
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

nb::dict NativeProgram::zones(State& st) {
  nb::dict out;
  for (i32 k : st.zone_order) out[key(k)] = nb::cast(st.zones[k]);
  return out;
}

nb::list NativeProgram::top_attributes(State& st, nb::list by_type) {
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

nb::list NativeProgram::zone_keys(State& st) {
  // the made locations' keys, in the order made (as zones() orders them)
  nb::list out;
  for (i32 k : st.zone_order) out.append(key(k));
  return out;
}

nb::list NativeProgram::card_zone(State& st) {
  nb::list out;
  for (i32 k : st.card_zone) out.append(k < 0 ? nb::none() : key(k));
  return out;
}

nb::list NativeProgram::card_type_attrs(i32 type) {
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

nb::dict NativeProgram::ints(State& st) {
  nb::dict out;
  for (i32 k : st.ints.order) out[storage_key(k)] = st.ints.values[k];
  return out;
}

nb::dict NativeProgram::strs(State& st) {
  nb::dict out;
  for (i32 k : st.strs.order) out[storage_key(k)] = nb::str(P.strings[st.strs.values[k]].c_str());
  return out;
}

nb::list NativeProgram::regs(State& st) {
  nb::list out;
  for (size_t s = 0; s < st.regs.size(); s++) out.append(value(st.regs[s], slot_type((i32)s)));
  return out;
}

// ------------------------------------------------------------ single reads
i32 NativeProgram::find_string(const std::string& s) const {
  auto it = P.string_ids.find(s);
  return it == P.string_ids.end() ? -1 : it->second;
}

i32 NativeProgram::find_zone_key(i32 owner, const std::string& kind,
                                 const std::string& name) const {
  i32 k = -1;
  for (int i = 0; i < 4; i++)
    if (kind == KIND_NAMES[i]) k = i;
  i32 n = find_string(name);
  if (k < 0 || n < 0) return -1;
  i64 packed = ((i64)owner * 8 + k) * 4294967296LL + (i64)(uint32_t)n;
  auto it = P.key_ids.find(packed);
  return it == P.key_ids.end() ? -1 : it->second;
}

nb::object NativeProgram::zone_get(State& st, i32 owner, const std::string& kind,
                                   const std::string& name) {
  i32 k = find_zone_key(owner, kind, name);
  if (k < 0 || !st.made(k)) return nb::none();
  return nb::cast(st.zones[k]);
}

nb::object NativeProgram::int_get(State& st, i32 owner, const std::string& name) {
  i32 n = find_string(name);
  if (n < 0) return nb::none();
  auto it = P.storage_ids.find((i64)owner * 4294967296LL + (i64)(uint32_t)n);
  if (it == P.storage_ids.end()) return nb::none();
  i32 k = it->second;
  return st.ints.has(k) ? nb::cast(st.ints.values[k]) : nb::none();
}

nb::object NativeProgram::card_zone_of(State& st, i64 card) {
  if (card < 0 || card >= (i64)st.card_zone.size()) throw nb::index_error("no such card");
  i32 k = st.card_zone[card];
  return k < 0 ? nb::none() : key(k);
}

// ------------------------------------------------------------ frames and picks
nb::list NativeProgram::frames(State& st) {
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

nb::list NativeProgram::picks(State& st) {
  nb::list out;
  for (const Pick& p : st.picks) {
    nb::list regs;
    for (size_t s = 0; s < p.regs.size(); s++) regs.append(value(p.regs[s], slot_type((i32)s)));
    out.append(nb::make_tuple(p.mover, p.choice, p.blank, nb::tuple(option_steps(p.option())),
                              nb::tuple(regs)));
  }
  return out;
}

}  // namespace cardlang
