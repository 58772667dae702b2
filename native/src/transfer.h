// A state sent to another process: the bytes of a State, and of the program tables its
// numbers refer to.
//
// Why: a tournament's worker for a built-in agent must hold no more than its seat's view
// (runs/agent_worker.py), so the main process sends it, at each of its decisions, one
// determinization of that view instead of the game.  A State's locations, storages,
// strings, point maps and card types are numbers of its Program's tables, and a program
// adds to them as it plays (NAME#3, a deck made at run time), in whatever order its own
// games and searches needed them.  So the tables go with the state: the worker appends
// them to its program, which keeps what it numbered itself as long as the two agree (a
// search's tree, kept from one decision to the next, belongs to that program), or else to
// a fresh program of the same IR (whose tables are a prefix of the sender's, made by the
// same prepare()); either way the numbers mean the same again.
//
// The bytes are this build's own format, read back only by the same build (the worker is
// started from the same installation); a reader checks every length it is given and
// throws on bytes that do not parse, so a truncated message is an error, not a crash.
// What is not sent: the event log (the worker gets the seat's public history instead),
// the listed options and the `indexed` cache (made again on first use).
#pragma once

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "state.h"

namespace cardlang {

class Writer {
 public:
  std::string out;

  template <class T>
  void put(T v) {
    static_assert(std::is_arithmetic_v<T>);
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& s) {
    put((uint64_t)s.size());
    out.append(s);
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put((uint64_t)v.size());
    if constexpr (std::is_arithmetic_v<T>)
      out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    else
      for (const T& x : v) put(x);
  }
  void put(const Typed& t) {
    put((int32_t)t.tag);
    put(t.v);
  }
  template <class A, class B>
  void put(const std::pair<A, B>& p) {
    put(p.first);
    put(p.second);
  }
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}

  template <class T>
  T get() {
    static_assert(std::is_arithmetic_v<T>);
    T v;
    take(&v, sizeof v);
    return v;
  }
  void get(std::string& s) {
    size_t n = count(1);
    s.assign(in_.data() + at_, n);
    at_ += n;
  }
  template <class T>
  void get(T& x) {
    static_assert(std::is_arithmetic_v<T>);
    x = get<T>();
  }
  template <class T>
  void get(std::vector<T>& v) {
    size_t n = count(std::is_arithmetic_v<T> ? sizeof(T) : 1);
    v.resize(n);
    if constexpr (std::is_arithmetic_v<T>)
      take(v.data(), n * sizeof(T));
    else
      for (T& x : v) get(x);
  }
  void get(Typed& t) {
    t.tag = get<int32_t>();
    t.v = get<i64>();
  }
  template <class A, class B>
  void get(std::pair<A, B>& p) {
    get(p.first);
    get(p.second);
  }
  bool done() const { return at_ == in_.size(); }

 private:
  // a count of items each at least `least` bytes long: never more than the bytes left
  size_t count(size_t least) {
    uint64_t n = get<uint64_t>();
    if (n > (in_.size() - at_) / least) throw std::runtime_error("a transferred state is cut short");
    return (size_t)n;
  }
  void take(void* to, size_t n) {
    if (n > in_.size() - at_) throw std::runtime_error("a transferred state is cut short");
    if (n) std::memcpy(to, in_.data() + at_, n);
    at_ += n;
  }
  const std::string& in_;
  size_t at_ = 0;
};

// ---------------------------------------------------------------- values and the flow

inline void put_val(Writer& w, const Val& v) {
  w.put(v.i);
  w.put((uint8_t)v.is_none);
  w.put((uint8_t)(bool)v.list);
  if (v.list) w.put(*v.list);
  w.put((uint8_t)(bool)v.lists);
  if (v.lists) w.put(*v.lists);
}

inline Val get_val(Reader& r) {
  Val v;
  v.i = r.get<i64>();
  v.is_none = r.get<uint8_t>() != 0;
  if (r.get<uint8_t>()) {
    Coll c;
    r.get(c);
    v.list = Rc<Coll>::make(std::move(c));
  }
  if (r.get<uint8_t>()) {
    std::vector<Coll> c;
    r.get(c);
    v.lists = Rc<std::vector<Coll>>::make(std::move(c));
  }
  return v;
}

inline void put_vals(Writer& w, const std::vector<Val>& vals) {
  w.put((uint64_t)vals.size());
  for (const Val& v : vals) put_val(w, v);
}

inline std::vector<Val> get_vals(Reader& r) {
  uint64_t n = r.get<uint64_t>();
  std::vector<Val> out;
  for (uint64_t i = 0; i < n; i++) out.push_back(get_val(r));  // each read checks its bytes
  return out;
}

inline void put_storages(Writer& w, const Storages& s) {
  w.put(s.values);
  w.put(s.set);
  w.put(s.order);
}

inline void get_storages(Reader& r, Storages& s) {
  r.get(s.values);
  r.get(s.set);
  r.get(s.order);
  if (s.set.size() != s.values.size()) throw std::runtime_error("a transferred state is malformed");
}

inline std::string save_state(const State& st) {
  Writer w;
  w.put(st.zones);
  w.put(st.zone_made);
  w.put(st.zone_order);
  w.put(st.card_zone);
  w.put(st.refs);
  w.put(st.card_type);
  put_storages(w, st.ints);
  put_storages(w, st.strs);
  put_storages(w, st.points);
  put_vals(w, st.regs);
  w.put(st.nplayers);
  w.put(st.teams);
  w.put(st.team_of);
  w.put(st.rng);
  w.put(st.seed);
  w.put((uint64_t)st.stack.size());
  for (const Frame& f : st.stack) {
    w.put(f.kind);
    w.put(f.node);
    for (i64 x : f.f) w.put(x);
    w.put((uint8_t)(bool)f.items);
    if (f.items) put_vals(w, *f.items);
  }
  w.put((uint64_t)st.picks.size());
  for (const Pick& p : st.picks) {
    w.put(p.mover);
    w.put(p.choice);
    w.put((uint64_t)p.steps.size());
    for (const Step& s : p.steps) {
      w.put(s.node);
      w.put(s.slot);
      w.put(s.var);
      w.put(s.held);
      w.put(s.i);
      w.put((uint8_t)s.is_none);
    }
    put_vals(w, p.held);
    put_vals(w, p.regs);
    w.put((uint8_t)p.blank);
  }
  w.put(st.stage_idx);
  w.put(st.pending);
  w.put(st.mover);
  w.put(st.decisions);
  w.put(st.steps);
  w.put(st.work);
  w.put(st.turns);
  w.put((int8_t)st.status);
  w.put(st.end_reason);
  w.put((uint8_t)st.has_error);
  w.put(st.error.message);
  w.put(st.error.span);
  w.put(st.scores);
  w.put((uint8_t)st.has_scores);
  w.put(st.atomic_call_depth);
  return w.out;
}

// The state the bytes describe, checked against `P` wherever a wrong number would be read
// out of bounds later (a location, a node, a card type, a register).
inline State load_state(const std::string& bytes, const Program& P) {
  Reader r(bytes);
  State st;
  r.get(st.zones);
  r.get(st.zone_made);
  r.get(st.zone_order);
  r.get(st.card_zone);
  st.refs = r.get<i64>();
  r.get(st.card_type);
  get_storages(r, st.ints);
  get_storages(r, st.strs);
  get_storages(r, st.points);
  st.regs = get_vals(r);
  st.nplayers = r.get<i32>();
  r.get(st.teams);
  r.get(st.team_of);
  st.rng = r.get<uint64_t>();
  st.seed = r.get<i64>();
  uint64_t frames = r.get<uint64_t>();
  for (uint64_t i = 0; i < frames; i++) {
    Frame f;
    f.kind = r.get<int8_t>();
    f.node = r.get<i32>();
    for (i64& x : f.f) x = r.get<i64>();
    if (r.get<uint8_t>()) f.items = Rc<std::vector<Val>>::make(get_vals(r));
    if (f.node >= (i32)P.nodes.size() || f.kind < F_SEQ || f.kind > F_SECRET)
      throw std::runtime_error("a transferred state is malformed");
    st.stack.push_back(std::move(f));
  }
  uint64_t picks = r.get<uint64_t>();
  for (uint64_t i = 0; i < picks; i++) {
    Pick p;
    p.mover = r.get<i32>();
    p.choice = r.get<i32>();
    uint64_t steps = r.get<uint64_t>();
    for (uint64_t j = 0; j < steps; j++) {
      Step s{};
      s.node = r.get<i32>();
      s.slot = r.get<i32>();
      s.var = r.get<i32>();
      s.held = r.get<i32>();
      s.i = r.get<i64>();
      s.is_none = r.get<uint8_t>() != 0;
      p.steps.push_back(s);
    }
    p.held = get_vals(r);
    p.regs = get_vals(r);
    p.blank = r.get<uint8_t>() != 0;
    st.picks.push_back(std::move(p));
  }
  st.stage_idx = r.get<i32>();
  st.pending = r.get<i32>();
  st.mover = r.get<i32>();
  st.decisions = r.get<i64>();
  st.steps = r.get<i64>();
  st.work = r.get<i64>();
  st.turns = r.get<i64>();
  st.status = (Status)r.get<int8_t>();
  r.get(st.end_reason);
  st.has_error = r.get<uint8_t>() != 0;
  r.get(st.error.message);
  st.error.span = r.get<i32>();
  r.get(st.scores);
  st.has_scores = r.get<uint8_t>() != 0;
  st.atomic_call_depth = r.get<i64>();
  if (!r.done()) throw std::runtime_error("a transferred state has bytes left over");
  bool sane = st.zone_made.size() == st.zones.size() && st.zones.size() <= P.keys.size() &&
              st.card_zone.size() == st.card_type.size() && st.refs >= 0 &&
              st.regs.size() == (size_t)P.n_registers && st.nplayers == P.nplayers &&
              st.stage_idx >= 0 && st.stage_idx < (i32)std::max<size_t>(st.stack.size(), 1) &&
              st.pending < (i32)P.nodes.size() && st.status >= RUNNING && st.status <= CUTOFF;
  for (i32 t : st.card_type) sane = sane && t >= 0 && t < (i32)P.card_types.size();
  for (i32 k : st.zone_order) sane = sane && k >= 0 && k < (i32)st.zones.size();
  if (!sane) throw std::runtime_error("a transferred state does not fit this program");
  return st;
}

// ---------------------------------------------------------------- the program's tables

// What a program has added to its tables since it was made, with what it was made with.
inline std::string save_tables(const Program& P) {
  Writer w;
  w.put(P.strings);
  w.put((uint64_t)P.keys.size());
  for (const ZoneKey& k : P.keys) {
    w.put(k.owner);
    w.put(k.kind);
    w.put(k.name);
  }
  w.put(P.storage_keys);
  w.put((uint64_t)P.pointmaps.size());
  for (const PointMap& m : P.pointmaps) {
    w.put((uint64_t)m.awards.size());
    for (const Award& a : m.awards) {
      w.put(a.conds);
      w.put(a.points);
    }
  }
  w.put((uint64_t)P.card_types.size());
  for (const CardType& t : P.card_types) {
    w.put(t.attrs);
    w.put(t.name);
    w.put(t.kind);
  }
  w.put((uint64_t)P.deck_types.size());
  for (const auto& kv : P.deck_types) w.put(std::pair<i64, i32>(kv.first, kv.second));
  w.put((uint64_t)P.location_names.size());
  for (const auto& kv : P.location_names) {
    w.put(kv.first);
    w.put(kv.second.first);
    w.put(kv.second.second);
  }
  return w.out;
}

// Append to `P`'s tables what another program of the same IR added, so that every number
// means in `P` what it meant there.  Throws if the tables disagree where they overlap:
// another game, or a program that has played and numbered things in another order (the
// caller then loads them into a fresh program, whose tables are always a prefix).  `P`
// may also hold more than the sender's: what it numbered itself since, in the same order.
// On a throw, `P` may hold part of the tables: it is to be dropped.
inline void load_tables(Program& P, const std::string& bytes) {
  Reader r(bytes);
  auto disagree = []() { throw std::runtime_error("the program tables sent are not this game's"); };
  std::vector<std::string> strings;
  r.get(strings);
  for (size_t i = 0; i < strings.size(); i++)
    if (P.intern(strings[i]) != (i32)i) disagree();
  uint64_t nkeys = r.get<uint64_t>();
  for (uint64_t i = 0; i < nkeys; i++) {
    i32 owner = r.get<i32>(), kind = r.get<i32>(), name = r.get<i32>();
    if (name < 0 || name >= (i32)P.strings.size() || P.zone_key(owner, kind, name) != (i32)i) disagree();
  }
  std::vector<std::pair<i32, i32>> storage_keys;
  r.get(storage_keys);
  for (size_t i = 0; i < storage_keys.size(); i++)
    if (P.storage_key(storage_keys[i].first, storage_keys[i].second) != (i32)i) disagree();
  uint64_t nmaps = r.get<uint64_t>();
  for (uint64_t i = 0; i < nmaps; i++) {
    PointMap m;
    uint64_t nawards = r.get<uint64_t>();
    for (uint64_t j = 0; j < nawards; j++) {
      Award a;
      r.get(a.conds);
      a.points = r.get<i64>();
      m.awards.push_back(std::move(a));
    }
    std::string key = awards_key(m);
    if (i < P.pointmaps.size()) {
      if (awards_key(P.pointmaps[i]) != key) disagree();
      continue;
    }
    P.pointmap_ids.emplace(std::move(key), (i32)P.pointmaps.size());
    P.pointmaps.push_back(std::move(m));
  }
  uint64_t ntypes = r.get<uint64_t>();
  for (uint64_t i = 0; i < ntypes; i++) {
    CardType t;
    r.get(t.attrs);
    r.get(t.name);
    t.kind = r.get<i32>();
    if (i < P.card_types.size()) {
      if (P.card_types[i].name != t.name) disagree();
      continue;
    }
    for (const auto& a : t.attrs)
      if (a.first < 0 || a.first >= (i32)P.strings.size()) disagree();
    t.index();
    P.card_types.push_back(std::move(t));
  }
  uint64_t ndecks = r.get<uint64_t>();
  for (uint64_t i = 0; i < ndecks; i++) {
    std::pair<i64, i32> kv;
    r.get(kv);
    if (kv.second < 0 || kv.second >= (i32)P.card_types.size()) disagree();
    auto found = P.deck_types.emplace(kv.first, kv.second);
    if (found.first->second != kv.second) disagree();
  }
  uint64_t nnames = r.get<uint64_t>();
  for (uint64_t i = 0; i < nnames; i++) {
    i64 packed = r.get<i64>(), index = r.get<i64>();
    i32 id = r.get<i32>();
    if (id < 0 || id >= (i32)P.strings.size()) disagree();
    auto found = P.location_names.emplace(packed, std::make_pair(index, id));
    if (found.first->second != std::make_pair(index, id)) disagree();
  }
  if (!r.done()) disagree();
}

}  // namespace cardlang
