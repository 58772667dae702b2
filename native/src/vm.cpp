// The VM (vm.h): expressions, statements, the flow and the listing of options.
#include "vm.h"

#include <algorithm>
#include <climits>
#include <map>
#include <stdexcept>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace cardlang {


//: The largest n whose Fibonacci number fits in 64 bits (runtime.py MAX_FIB).
static const i64 MAX_FIB = 92;

// ---------------------------------------------------------------- work counts
// Amounts of work (VM::charge) saturate here, above any budget (cli: at most 10^18), so
// that they never overflow and compare with the budget as the exact amounts would.
static const i64 SATURATED = (i64)1 << 62;

static i64 saturating_add(i64 a, i64 b) { return std::min<i64>(a + b, SATURATED); }

static i64 saturating_mul(i64 a, i64 b) {
  __int128 p = (__int128)a * b;
  return p > SATURATED ? SATURATED : (i64)p;
}

// n choose k, saturated: the terms C(n, i) grow up to i = n / 2
static i64 binomial(size_t n, i64 k) {
  if (k < 0 || (size_t)k > n) return 0;
  size_t m = std::min((size_t)k, n - (size_t)k);
  __int128 c = 1;
  for (size_t i = 0; i < m; i++) {
    c = c * (__int128)(n - i) / (__int128)(i + 1);  // exact: C(n, i) (n - i) / (i + 1)
    if (c > SATURATED) return SATURATED;
  }
  return (i64)c;
}

// runtime.py: _windows_work -- (runs ...)'s windows of consecutive scores, each one
// unit and one per score in it, counted before they are made
static i64 run_windows_work(const std::vector<std::vector<i64>>& blocks, size_t length,
                            bool largest) {
  i64 total = 0;
  for (const auto& block : blocks) {
    size_t n = block.size();
    if (largest) {
      if (n >= length) total = saturating_add(total, (i64)n + 1);
      continue;
    }
    for (size_t size = length; size <= n; size++)
      total = saturating_add(total, saturating_mul((i64)(n - size + 1), (i64)size + 1));
  }
  return total;
}
// ---------------------------------------------------------------- randomness
// engine/state.py: splitmix64, rand_below, shuffle_in_place

uint64_t splitmix_next(uint64_t& x) {
  x += 0x9E3779B97F4A7C15ULL;
  uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void shuffle_in_place(uint64_t& rng, Coll& items) {
  for (size_t i = items.size(); i-- > 1;) {
    uint64_t z = splitmix_next(rng);
    size_t j = (size_t)(((unsigned __int128)z * (i + 1)) >> 64);
    std::swap(items[i], items[j]);
  }
}

i64 VM::rand_below(State& st, uint64_t n) {
  uint64_t z = splitmix_next(st.rng);
  return (i64)(((unsigned __int128)z * n) >> 64);
}

void VM::error(const std::string& message, i32 span) const { throw RuleErr{message, span}; }

static std::string str(i64 v) { return std::to_string(v); }

// Python's % (the result has the divisor's sign)
static i64 pymod(i64 a, i64 m) {
  i64 r = a % m;
  return (r != 0 && ((r < 0) != (m < 0))) ? r + m : r;
}

// ---------------------------------------------------------------- players and teams

i64 VM::current_player(const State& st) const { return st.stack[st.stage_idx].f[S_PLAYER]; }

i64 VM::current_team(const State& st) const {
  const Frame& f = st.stack[st.stage_idx];
  if (f.f[S_TEAM]) return f.f[S_CUR];
  return st.team_of[f.f[S_CUR]];
}

i64 VM::cycle_size(const State& st, const Frame& f) const {
  return f.f[S_TEAM] ? (i64)st.teams.size() : st.nplayers;
}

i64 VM::next_in_cycle(const State& st) const {
  const Frame& f = st.stack[st.stage_idx];
  if (f.f[S_QUEUED] >= 0) return f.f[S_QUEUED];
  return pymod(f.f[S_CUR] + 1, cycle_size(st, f));
}

i64 VM::previous_in_cycle(const State& st) const {
  const Frame& f = st.stack[st.stage_idx];
  return pymod(f.f[S_CUR] - 1, cycle_size(st, f));
}

static void set_current(Frame& f, i64 value) {
  f.f[S_CUR] = value;
  if (!f.f[S_TEAM]) f.f[S_PLAYER] = value;
}

// ---------------------------------------------------------------- cards and scores

Typed VM::attribute(const State& st, i64 card, i32 name, bool& found) const {
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

// engine/collections.py: routes.  The cards of a (connects ...) or (longest-path ...)
// node (its first child; p0, p1 the ends' attributes, p2 the length's, for LONGEST) as
// routes; a card that lacks an end is no route.
void VM::routes(State& st, const Node& n, std::vector<Route>& out) {
  Lent<Coll> lent_(colls);
  const Coll& cards = evr(st, kd(n, 0), lent_.item);
  bool lengths = n.op == O_LONGEST;
  for (i64 c : cards) {
    bool found_a, found_b, found_length = false;
    Typed a = attribute(st, c, (i32)n.p[0], found_a);
    Typed b = attribute(st, c, (i32)n.p[1], found_b);
    if (!found_a || !found_b || a.tag != 1 || b.tag != 1) continue;
    if (a.v == P.empty_string || b.v == P.empty_string) continue;
    Typed length = lengths ? attribute(st, c, (i32)n.p[2], found_length) : Typed{0, 0};
    out.push_back({a.v, b.v, found_length && length.tag == 0 ? length.v : 0});
  }
}

i64 VM::score(i64 pm, i64 card, const State& st) {
  if (pm < 0) return 0;  // the empty point map
  PointMap& m = P.pointmaps[pm];
  i32 type = st.card_type[card];
  if (type < (i32)m.cache.size() && m.cache[type] != INT64_MIN) return m.cache[type];
  const CardType& t = P.card_types[type];
  i64 total = 0;
  for (const Award& a : m.awards) {
    bool all = true;
    for (const auto& c : a.conds) {
      bool hit = false;
      for (const auto& at : t.attrs)
        if (at.first == c.first) {
          hit = at.second == c.second;
          break;
        }
      if (!hit) {
        all = false;
        break;
      }
    }
    if (all) total += a.points;
  }
  if (type >= (i32)m.cache.size()) m.cache.resize(P.card_types.size(), INT64_MIN);
  m.cache[type] = total;
  return total;
}

i32 VM::make_pointmap(State& st, i32 awards) {
  // compiler/board.py: _awards (equal maps are one map).  The awards' parts are read in
  // the Python engine's order; a node remembers the maps it made by the values of its
  // parts that are not constants (a trick's order map is set again every trick, and
  // only the suit led changes).
  const Node& an = nd(awards);
  auto constant = [&](i32 node) {
    const Node& x = nd(node);
    return x.op == O_INT || x.op == O_STR;
  };
  Lent<Coll> lent(colls);
  Coll& sig = lent.item;
  auto read = [&](i32 node) {
    if (!constant(node)) sig.push_back(ev(st, node));
  };
  for (int i = 0; i < an.nkids; i++) {
    const Node& a = nd(kd(an, i));
    for (int j = 1; j + 1 < a.nkids; j += 2) {
      read(kd(a, j));
      read(kd(a, j + 1));
    }
    read(kd(a, 0));
  }
  auto& known = P.pointmap_cache[awards];
  for (const auto& entry : known)
    if (entry.first == sig) return entry.second;
  size_t at = 0;
  auto value = [&](i32 node) { return constant(node) ? nd(node).p[0] : sig[at++]; };
  PointMap pm;
  for (int i = 0; i < an.nkids; i++) {
    const Node& a = nd(kd(an, i));
    Award award;
    for (int j = 1; j + 1 < a.nkids; j += 2) {
      i32 kn = kd(a, j), vn = kd(a, j + 1);
      i64 key = value(kn);
      int vt = nd(vn).type;
      award.conds.push_back(
          {(i32)key, Typed{(vt == T_INT || vt == T_INTSTO) ? 0 : 1, value(vn)}});
    }
    award.points = value(kd(a, 0));
    pm.awards.push_back(std::move(award));
  }
  // intern: the same awards give the same map, whichever node made them
  std::string key = awards_key(pm);
  i32 id;
  auto it = P.pointmap_ids.find(key);
  if (it != P.pointmap_ids.end()) {
    id = it->second;
  } else {
    P.pointmaps.push_back(std::move(pm));
    id = (i32)P.pointmaps.size() - 1;
    P.pointmap_ids.emplace(std::move(key), id);
  }
  if (known.size() < 32) known.push_back({sig, id});  // few: a scan stays cheap
  return id;
}

// ---------------------------------------------------------------- names

i32 VM::location_name(i32 base, i64 index) {
  if (!index) return base;
  // remembered: a computed name is asked for again and again (a player's TRICK#3)
  i64 packed = (i64)base * 4294967296LL + (index & 0xffffffffLL);
  auto it = P.location_names.find(packed);
  if (it != P.location_names.end() && it->second.first == index) return it->second.second;
  i32 id = P.intern(P.strings[base] + "#" + str(index));
  P.location_names[packed] = {index, id};
  return id;
}

// NAME is index 0 of (indexed NAME), NAME#i index i; -1: the key is not one of them
static i64 index_in(const Program& P, i32 key, i64 owner, i32 kind, i32 name) {
  const ZoneKey& k = P.keys[key];
  if (k.owner != owner || k.kind != kind) return -1;
  if (k.name == name) return 0;
  const std::string& base = P.strings[name];
  const std::string& zname = P.strings[k.name];
  if (zname.size() <= base.size() + 1 || zname.compare(0, base.size(), base) != 0 ||
      zname[base.size()] != '#')
    return -1;
  std::string digits = zname.substr(base.size() + 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      digits.size() >= 18)
    return -1;
  return std::stoll(digits);
}

void VM::indexed(State& st, i64 owner, i32 kind, i32 name, Coll& out) {
  // engine/runtime.py: _indexed (NAME is index 0, NAME#i index i; a later zone wins).
  // Which keys match is the program's to remember (its key table only grows); which of
  // them this state has made, and in what order, is the state's.
  i64 query = ((owner + 1024) * 8 + kind) * 4294967296LL + (i64)(uint32_t)name;
  std::vector<i64>& match = P.indexed_match[query];
  for (size_t k = match.size(); k < P.keys.size(); k++)
    match.push_back(index_in(P, (i32)k, owner, kind, name));
  std::vector<std::pair<i64, i32>>& found = indexed_found_;
  found.clear();
  for (i32 key : st.zone_order)
    if (match[(size_t)key] >= 0) found.push_back({match[(size_t)key], key});
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  out.clear();
  for (size_t i = 0; i < found.size(); i++)
    if (i + 1 == found.size() || found[i + 1].first != found[i].first)  // the later zone
      out.push_back(found[i].second);
}

// ---------------------------------------------------------------- expressions

i32 VM::loc_key(State& st, i32 ni) {
  const Node& n = nd(ni);
  if (n.op == O_LOCATION) {
    const Node& owner_node = nd(kd(n, 0));
    i64 owner = ev(st, kd(n, 0));
    if (owner_node.type == T_TEAM) owner = -2 - owner;
    std::vector<i32>& cache = P.key_cache[ni];
    size_t at = P.owner_index(owner);
    if (at < cache.size() && cache[at] >= 0) return cache[at];  // a literal name
    i32 name = (i32)ev(st, kd(n, 1));
    if (n.p[1]) name = location_name(name, ev(st, kd(n, 2)));
    i32 key = P.zone_key((i32)owner, (i32)n.p[0], name);
    if (at < cache.size()) cache[at] = key;
    return key;
  }
  return (i32)ev(st, ni);  // a variable or any expression whose value is a location
}

i32 VM::skey(State& st, i32 ni) {
  const Node& n = nd(ni);
  const Node& owner_node = nd(kd(n, 0));
  i64 owner = ev(st, kd(n, 0));
  if (owner_node.type == T_TEAM) owner = -2 - owner;
  std::vector<i32>& cache = P.key_cache[ni];
  size_t at = P.owner_index(owner);
  if (at < cache.size() && cache[at] >= 0) return cache[at];  // a literal name
  i32 key = P.storage_key((i32)owner, (i32)ev(st, kd(n, 1)));
  if (at < cache.size()) cache[at] = key;
  return key;
}

static inline void bind_scalar(State& st, i64 slot, i64 v) { bind_scalar(st.regs[slot], v); }

// The fast paths of Program::find_hot_paths, each the same evaluation as ev_node's case
// for the node (the same order of evaluation, the same errors); any other node, and a
// node whose value a listing shares (MEMO), goes on to the general evaluator.
__attribute__((noinline)) i64 VM::ev_hot(State& st, i32 ni) {
  const Node& n = nodes_[ni];
  switch (n.hot) {
    case H_SIZE_REG:
    case H_CAP_REG:
    case H_ATTR_REG:
    case H_ATTR_CAP:
      return evk(st, ni);
    case H_SIZE_LOC:
      return (i64)st.zone(loc_key(st, kids_[n.kid0])).size();
    case H_CAP_LOC:
      return cap_card(st.zone(loc_key(st, kids_[n.kid0])), (int)n.p[0]);
    case H_ATTR: {
      i64 c = evk(st, kids_[n.kid0]);
      if (c == NO_CARD) attr_of_no_card(n);
      return attr_of(st, n, c).v;
    }
    case H_CMP:
      return compare_hot(st, n);
    case H_CMP_CARD: {
      i64 a = evk(st, kids_[n.kid0]);
      i64 b = evk(st, kids_[n.kid0 + 1]);
      return compare_cards(n.p[0], a, b);
    }
    case H_AND:
      for (int i = 0; i < n.nkids; i++)
        if (!test_hot(st, kids_[n.kid0 + i])) return 0;
      return 1;
    case H_OR:
      for (int i = 0; i < n.nkids; i++)
        if (test_hot(st, kids_[n.kid0 + i])) return 1;
      return 0;
    case H_NOT:
      return !test_hot(st, kids_[n.kid0]);
    case H_STO_INT:
      return st.ints.get(skey(st, ni), 0);
    default:
      if (n.op == O_GAME) return -1;
      if (__builtin_expect(n.flags & MEMO, 0)) return ev_memo(st, ni);
      return ev_node(st, ni);
  }
}

bool VM::learn_type_test(State& st, i32 cond, std::vector<int8_t>& known, size_t type) {
  bool v = ev(st, cond) != 0;
  if (type >= known.size()) known.resize(P.card_types.size(), -1);
  known[type] = v;
  return v;
}

void VM::attr_of_no_card(const Node& n) const {
  error("(attr " + P.strings[n.p[0]] + " ...) of a card in an empty location", n.span);
}

__attribute__((noinline)) i64 VM::ev_node(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
    case O_INT:
    case O_STR:
      return n.p[0];
    case O_REG:
      return st.regs[n.p[0]].i;
    case O_GAME:
      return -1;
    case O_CARDAT: {
      const Node& kn = nd(kd(n, 0));
      if (n.p[0] != 2 && (kn.type == T_LOC || kn.type == T_MEMLOC)) {  // top or bottom
        if (kn.op == O_LOCATION) return cap_card(st.zone(loc_key(st, kd(n, 0))), (int)n.p[0]);
        if (kn.op == O_REG) return cap_card(st.zone((i32)st.regs[kn.p[0]].i), (int)n.p[0]);
      }
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& z = evr(st, kd(n, 0), scratch);
      if (n.p[0] == 2) {
        i64 i = ev(st, kd(n, 1));
        if (i < 0) error("position " + str(i) + " is negative", n.span);
        return i < (i64)z.size() ? z[i] : NO_CARD;
      }
      return cap_card(z, (int)n.p[0]);
    }
    case O_MAXMIN: {
      // engine/runtime.py: _best (ties drawn uniformly from the game's RNG)
      Lent<Coll> lent_(colls), lent_copy(colls), lent_scores(colls), lent_tied(colls);
      const Coll& cards = evr(st, kd(n, 0), lent_.item);
      i64 pm = ev(st, kd(n, 1));
      if (cards.empty()) return NO_CARD;
      Coll& copy = lent_copy.item;
      copy.assign(cards.begin(), cards.end());
      Coll& scores = lent_scores.item;
      for (i64 c : copy) scores.push_back(score(pm, c, st));
      i64 target = n.p[0] ? *std::max_element(scores.begin(), scores.end())
                          : *std::min_element(scores.begin(), scores.end());
      Coll& tied = lent_tied.item;
      for (size_t i = 0; i < copy.size(); i++)
        if (scores[i] == target) tied.push_back(copy[i]);
      if (tied.size() == 1) return tied[0];
      return tied[rand_below(st, tied.size())];
    }
    case O_LOCATION:
      return loc_key(st, ni);
    case O_STORAGE: {
      i32 k = skey(st, ni);
      switch (n.p[0]) {
        case 0:
          return st.ints.get(k, 0);
        case 1:
          return st.strs.get(k, P.empty_string);
        default:
          return st.points.get(k, -1);
      }
    }
    case O_PLAYER:
      switch (n.p[0]) {
        case 0:
          return current_player(st);
        case 1: {
          const Frame& f = st.stack[st.stage_idx];
          i64 nxt = next_in_cycle(st);
          return f.f[S_TEAM] ? st.teams[nxt][0] : nxt;
        }
        case 2: {
          const Frame& f = st.stack[st.stage_idx];
          i64 prev = previous_in_cycle(st);
          return f.f[S_TEAM] ? st.teams[prev][0] : prev;
        }
        default: {
          i64 i = ev(st, kd(n, 0));
          if (i < 0 || i >= st.nplayers)
            error("there is no player " + str(i) + " (players are 0.." + str(st.nplayers - 1) +
                      ")",
                  n.span);
          return i;
        }
      }
    case O_TEAM:
      switch (n.p[0]) {
        case 0:
          return current_team(st);
        case 1:
        case 2: {
          const Frame& f = st.stack[st.stage_idx];
          if (f.f[S_TEAM]) return n.p[0] == 1 ? next_in_cycle(st) : previous_in_cycle(st);
          return pymod(st.team_of[f.f[S_CUR]] + (n.p[0] == 1 ? 1 : -1), (i64)st.teams.size());
        }
        default: {
          i64 i = ev(st, kd(n, 0));
          if (i < 0 || i >= (i64)st.teams.size()) error("there is no team " + str(i), n.span);
          return i;
        }
      }
    case O_OWNER: {
      i64 c = ev(st, kd(n, 0));
      if (c == NO_CARD) error("(owner ...) of a card in an empty location", n.span);
      i32 owner = P.keys[st.card_zone[c]].owner;
      if (owner < 0) error("(owner ...) of a card that no player holds", n.span);
      return owner;
    }
    case O_TEAMOF: {
      i64 p = ev(st, kd(n, 0));
      return st.team_of[pymod(p, (i64)st.team_of.size())];
    }
    case O_RANDOM: {
      i64 lo = ev(st, kd(n, 0)), hi = ev(st, kd(n, 1));
      if (hi < lo) error("(random " + str(lo) + " .. " + str(hi) + ") is an empty range", n.span);
      // the span in unsigned arithmetic: hi - lo may not fit an i64; the whole 64-bit
      // range wraps to 0, where Python's (z * 2^64) >> 64 is the draw z itself
      uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
      uint64_t offset = span ? (uint64_t)rand_below(st, span) : splitmix_next(st.rng);
      return (i64)((uint64_t)lo + offset);
    }
    case O_ARITH: {
      // checked 64-bit integers, as runtime.py's _add, _sub, _mul, _power, _divide
      i64 a = ev(st, kd(n, 0)), b = ev(st, kd(n, 1)), r;
      switch (n.p[0]) {
        case 0:
          if (__builtin_add_overflow(a, b, &r)) overflow("(+ " + str(a) + " " + str(b) + ")", n.span);
          return r;
        case 1:
          if (__builtin_sub_overflow(a, b, &r)) overflow("(- " + str(a) + " " + str(b) + ")", n.span);
          return r;
        case 2:
          if (__builtin_mul_overflow(a, b, &r)) overflow("(* " + str(a) + " " + str(b) + ")", n.span);
          return r;
        case 5: {
          if (b < 0 || b > 64) error("exponent " + str(b) + " is outside 0..64", n.span);
          // |a|^i grows with i (or stays 0 or 1): the result fits only if each step does
          r = 1;
          for (i64 i = 0; i < b; i++)
            if (__builtin_mul_overflow(r, a, &r)) overflow("(^ " + str(a) + " " + str(b) + ")", n.span);
          return r;
        }
        default: {
          const char* op = n.p[0] == 3 ? "//" : "%";
          if (b == 0) error(std::string("(") + op + " " + str(a) + " 0): division by zero", n.span);
          if (b == -1) {  // MIN / -1 does not fit (and traps); MIN % -1 is 0
            if (n.p[0] == 3 && a == INT64_MIN) overflow("(// " + str(a) + " -1)", n.span);
            return n.p[0] == 3 ? -a : 0;
          }
          i64 q = a / b;  // C++ truncates toward zero, as CardStock's C# does
          return n.p[0] == 3 ? q : a - q * b;
        }
      }
    }
    case O_UNARY: {
      i64 x = ev(st, kd(n, 0));
      if (n.p[0] == 0) {  // Python's floor division of the exact product (runtime.py _tri)
        __int128 p = (__int128)x * ((__int128)x + 1);
        __int128 t = p >= 0 ? p / 2 : -((-p + 1) / 2);
        if (t < INT64_MIN || t > INT64_MAX) overflow("(tri " + str(x) + ")", n.span);
        return (i64)t;
      }
      if (x > MAX_FIB) overflow("(fib " + str(x) + ")", n.span);  // F(93) >= 2^63
      // unsigned: the last pass forms F(x + 1), which for x = 92 is past INT64_MAX
      uint64_t a = 0, b = 1;
      for (i64 i = 0; i < x; i++) {
        uint64_t t = a + b;
        a = b;
        b = t;
      }
      return (i64)a;
    }
    case O_SCOREEXT: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& cards = evr(st, kd(n, 0), scratch);
      i64 pm = ev(st, kd(n, 1));
      if (cards.empty()) return n.p[0] ? -1 : 2147483647;
      i64 best = n.p[0] ? INT64_MIN : INT64_MAX;
      for (i64 c : cards) {
        i64 s = score(pm, c, st);
        best = n.p[0] ? std::max(best, s) : std::min(best, s);
      }
      return best;
    }
    case O_SIZE: {
      i32 k = kd(n, 0);
      const Node& kn = nd(k);
      if (kn.type == T_LOC || kn.type == T_MEMLOC) {  // a location: its size, read in place
        if (kn.op == O_LOCATION) return (i64)st.zone(loc_key(st, k)).size();
        if (kn.op == O_REG) return (i64)st.zone((i32)st.regs[kn.p[0]].i).size();
      }
      if (kn.op == O_FILTER && kn.type != T_CARDSS) {  // counted, not collected
        Lent<Coll> lent_(colls);
        Coll& scratch = lent_.item;
        const Coll& items = evr(st, kd(kn, 0), scratch);
        charge_passes(kn, items.size());
        i32 cond = kd(kn, 1);
        i64 count = 0;
        for (size_t i = 0; i < items.size(); i++)
          if (test_card(st, kn.p[0], cond, items[i])) count++;
        return count;
      }
      if (kn.type == T_CARDSS) {
        std::vector<Coll> groups;
        evcc(st, k, groups);
        return (i64)groups.size();
      }
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      return (i64)evr(st, k, scratch).size();
    }
    case O_SUM: {
      Lent<Coll> lent_(colls), lent_copy(colls);
      const Coll& cards = evr(st, kd(n, 0), lent_.item);
      Coll& copy = lent_copy.item;
      copy.assign(cards.begin(), cards.end());
      i64 pm = ev(st, kd(n, 1));
      __int128 total = 0;  // exact, then checked, as Python's sum (runtime.py _sum)
      for (i64 c : copy) total += score(pm, c, st);
      if (total < INT64_MIN || total > INT64_MAX) overflow("(sum ...)", n.span);
      return (i64)total;
    }
    case O_SCORE: {
      i64 c = ev(st, kd(n, 0));
      i64 pm = ev(st, kd(n, 1));
      return c == NO_CARD ? 0 : score(pm, c, st);
    }
    case O_CARDATT: {
      i64 c = ev(st, kd(n, 1));
      i64 key = ev(st, kd(n, 0));
      if (c == NO_CARD) return P.empty_string;
      bool found;
      Typed t = attribute(st, c, (i32)key, found);
      if (!found) return P.empty_string;
      if (t.tag == 1) return t.v;
      return P.intern(P.typed_text(t));
    }
    case O_ATTR: {
      Typed t = attr_value(st, n);
      return t.v;
    }
    case O_TOTAL: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& cards = evr(st, kd(n, 0), scratch);
      __int128 total = 0;  // exact, then checked (runtime.py _total)
      for (i64 c : cards) {
        bool found;
        Typed t = attribute(st, c, (i32)n.p[0], found);
        if (found && t.tag == 0) total += t.v;
      }
      if (total < INT64_MIN || total > INT64_MAX)
        overflow("(total " + P.strings[n.p[0]] + " ...)", n.span);
      return (i64)total;
    }
    case O_CONNECTS: {
      // the collection, then X, then Y, as the Python engine's call evaluates them
      std::vector<Route> edges;
      routes(st, n, edges);
      i64 x = ev(st, kd(n, 1));
      i64 y = ev(st, kd(n, 2));
      return connected(edges, x, y);
    }
    case O_LONGEST: {
      std::vector<Route> edges;
      routes(st, n, edges);
      // one unit per route the search takes (collections.py: longest_trail)
      TrailSearch search(edges, budget_.open ? budget_.left : INT64_MAX);
      try {
        __int128 best = search.longest();
        charge(search.taken(), n.span, "(longest-path ...)");
        if (best < INT64_MIN || best > INT64_MAX) overflow("(longest-path ...)", n.span);
        return (i64)best;
      } catch (const TrailSearch::OverBudget&) {
        over_budget(n.span, "(longest-path ...)");
      }
    }
    case O_CONTAINS: {
      i64 v = ev(st, kd(n, 1));
      const Node& cn = nd(kd(n, 0));
      if (cn.op == O_ATTR) {  // a card's list attribute (TYPES): searched where it lies
        Typed t = attr_value(st, cn);
        if (t.tag != 2) return 0;
        const Coll& l = P.lists[t.v];
        return std::find(l.begin(), l.end(), v) != l.end();
      }
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& copy = evr(st, kd(n, 0), scratch);
      return std::find(copy.begin(), copy.end(), v) != copy.end();
    }
    case O_IF:
      return ev(st, kd(n, 0)) ? ev(st, kd(n, 1)) : ev(st, kd(n, 2));
    case O_COMPARE:
      return compare(st, n);
    case O_AND:
      for (int i = 0; i < n.nkids; i++)
        if (!ev(st, kd(n, i))) return 0;
      return 1;
    case O_OR:
      for (int i = 0; i < n.nkids; i++)
        if (ev(st, kd(n, i))) return 1;
      return 0;
    case O_NOT:
      return !ev(st, kd(n, 0));
    case O_AGGREGATE: {
      // (any|all COLL 'V BOOL), short-circuiting as Python's any/all do
      bool any = n.p[0] == 0;
      i32 coll = kd(n, 0), body = kd(n, 1);
      if (nd(coll).type != T_CARDSS) {
        Lent<Coll> lent_(colls);
        Coll& scratch = lent_.item;
        const Coll& items = evr(st, coll, scratch);
        charge_passes(n, items.size());
        for (size_t i = 0; i < items.size(); i++) {
          bool v = test_card(st, n.p[1], body, items[i]);
          if (any && v) return 1;
          if (!any && !v) return 0;
        }
        return any ? 0 : 1;
      }
      std::vector<Val> items;
      elements(st, coll, items);
      charge_passes(n, items.size());
      for (const Val& e : items) {
        st.regs[n.p[1]] = e;
        bool v = ev(st, body) != 0;
        if (any && v) return 1;
        if (!any && !v) return 0;
      }
      return any ? 0 : 1;
    }
    default:
      error("internal: not a scalar expression (op " + str(n.op) + ")", n.span);
  }
}

i64 VM::ev_memo(State& st, i32 ni) {
  // a guard expression another top-level guard of the same choice also holds: within
  // one listing the state is the same for both (bindings aside, which it does not read)
  i64 v;
  if (memo_hit(ni, v)) return v;
  v = ev_node(st, ni);
  if (!memo_on_) return v;
  i32 slot = P.memo_slot[ni];
  memo_stamp_[slot] = memo_epoch_;
  memo_value_[slot] = v;
  return v;
}

bool VM::compare(State& st, const Node& n) {
  i64 a = ev(st, kd(n, 0)), b = ev(st, kd(n, 1));
  int op = (int)n.p[0];
  if (n.p[1]) return compare_cards(op, a, b);
  if (n.flags & STRING_ORDER) {
    int c = P.strings[a].compare(P.strings[b]);
    switch (op) {
      case 2: return c < 0;
      case 3: return c <= 0;
      case 4: return c > 0;
      default: return c >= 0;
    }
  }
  return compare_numbers(op, a, b);
}

void VM::elements(State& st, i32 coll, std::vector<Val>& out) {
  // the elements of any collection, as values a register can hold
  out.clear();
  const Node& c = nd(coll);
  if (c.type == T_CARDSS) {
    std::vector<Coll> groups;
    evcc(st, coll, groups);
    for (auto& g : groups) out.push_back(Val::of_list(std::move(g)));
    return;
  }
  Lent<Coll> lent_(colls);
  Coll& scratch = lent_.item;
  const Coll& items = evr(st, coll, scratch);
  out.reserve(items.size());
  for (i64 v : items) out.push_back(Val::scalar(v));
}

const Coll& VM::evr(State& st, i32 ni, Coll& out) {
  const Node& n = nd(ni);
  switch (n.op) {
    case O_REG: {
      const Val& v = st.regs[n.p[0]];
      if (n.type == T_LOC || n.type == T_MEMLOC) return st.zone((i32)v.i);
      if (n.type == T_TEAM) return team_members(st, v.i, n.span);
      if (v.list) return *v.list;
      out.clear();
      return out;
    }
    case O_STRLIST:
      return P.lists[n.p[0]];
    case O_ALL: {  // 0 .. count - 1: a prefix of the program's counting list
      i64 count = n.p[0] == 0 ? st.nplayers : (i64)st.teams.size();
      if ((i64)P.counting.size() == count) return P.counting;
      out.clear();
      for (i64 i = 0; i < count; i++) out.push_back(i);
      return out;
    }
    case O_CARDAT: {  // a group of a collection of collections
      std::vector<Coll> groups;
      evcc(st, kd(n, 0), groups);
      out.clear();
      if (groups.empty()) return out;
      if (n.p[0] == 2) {
        i64 i = ev(st, kd(n, 1));
        if (i < 0) error("position " + str(i) + " is negative", n.span);
        if (i < (i64)groups.size()) out = groups[i];
        return out;
      }
      out = n.p[0] == 0 ? groups.front() : groups.back();
      return out;
    }
    case O_TOPN: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& z = evr(st, kd(n, 1), scratch);
      i64 count = ev(st, kd(n, 0));  // reads no location: z stays as it was
      out.clear();
      if (count > 0 && !z.empty()) {
        size_t k = std::min((size_t)count, z.size());
        if (n.p[0] == 0)
          out.assign(z.end() - k, z.end());
        else
          out.assign(z.begin(), z.begin() + k);
      }
      return out;
    }
    case O_LOCATION:
      return st.zone(loc_key(st, ni));
    case O_INDEXED: {
      const Node& owner_node = nd(kd(n, 0));
      i64 owner = ev(st, kd(n, 0));
      if (owner_node.type == T_TEAM) owner = -2 - owner;
      i32 name = (i32)ev(st, kd(n, 1));
      i32 kind = (i32)n.p[0];
      for (const auto& c : st.indexed)
        if (c.owner == owner && c.kind == kind && c.name == name && c.zones == st.zone_order.size())
          return *c.keys;
      Coll found;
      indexed(st, owner, kind, name, found);
      auto keys = Rc<Coll>::make(std::move(found));
      bool stored = false;
      for (auto& c : st.indexed)
        if (c.owner == owner && c.kind == kind && c.name == name) {
          c.zones = st.zone_order.size();
          c.keys = keys;
          stored = true;
        }
      if (!stored) st.indexed.push_back({owner, kind, name, st.zone_order.size(), keys});
      return *keys;
    }
    case O_TEAM:
    case O_TEAMOF: {
      i64 t = ev(st, ni);
      return team_members(st, t, n.span);
    }
    case O_OTHER: {
      out.clear();
      if (n.p[0] == 0) {
        i64 me = current_player(st);
        for (i64 p = 0; p < st.nplayers; p++)
          if (p != me) out.push_back(p);
      } else {
        i64 mine = current_team(st);
        for (i64 t = 0; t < (i64)st.teams.size(); t++)
          if (t != mine) out.push_back(t);
      }
      return out;
    }
    case O_OTHERS: {
      i64 p = ev(st, kd(n, 0));
      out.clear();
      for (i64 k = 1; k < st.nplayers; k++) out.push_back(pymod(p + k, st.nplayers));
      return out;
    }
    case O_SETOP: {
      if (n.p[0] == 0 && n.type == T_CARDS) return card_union(st, n, out);
      std::vector<Coll> groups;
      set_parts(st, n, groups);
      Coll result;
      if (n.p[0] == 0 || n.p[0] == 2) {  // union (first-seen order)
        std::unordered_set<i64> seen;
        for (auto& g : groups)
          for (i64 c : g)
            if (seen.insert(c).second) result.push_back(c);
        if (n.p[0] == 2) {  // disjunction: in exactly one collection
          std::unordered_map<i64, int> counts;
          for (auto& g : groups) {
            std::unordered_set<i64> once(g.begin(), g.end());
            for (i64 c : once) counts[c]++;
          }
          Coll kept;
          for (i64 c : result)
            if (counts[c] == 1) kept.push_back(c);
          result = std::move(kept);
        }
      } else if (!groups.empty()) {  // intersect
        std::vector<std::unordered_set<i64>> rest;
        for (size_t i = 1; i < groups.size(); i++)
          rest.emplace_back(groups[i].begin(), groups[i].end());
        for (i64 c : groups[0]) {
          bool all = true;
          for (auto& r : rest)
            if (!r.count(c)) {
              all = false;
              break;
            }
          if (all) result.push_back(c);
        }
      }
      out = std::move(result);
      return out;
    }
    case O_FILTER: {
      // the source is read in place: evaluating an expression changes no location and
      // no register but the filter's own
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& items = evr(st, kd(n, 0), scratch);
      charge_passes(n, items.size());
      // out is the caller's buffer, never the source's
      out.clear();
      i32 cond = kd(n, 1);
      for (size_t i = 0; i < items.size(); i++) {
        i64 v = items[i];
        if (test_card(st, n.p[0], cond, v)) out.push_back(v);
      }
      return out;
    }
    case O_SORT: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      Coll cards = evr(st, kd(n, 0), scratch);
      i64 pm = ev(st, kd(n, 1));
      std::vector<std::pair<i64, i64>> keyed;
      for (i64 c : cards) keyed.push_back({score(pm, c, st), c});
      std::stable_sort(keyed.begin(), keyed.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      out.clear();
      for (auto& kv : keyed) out.push_back(kv.second);
      return out;
    }
    case O_RUNEND: {
      // engine/collections.py: run_at_end
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      Coll cards = evr(st, kd(n, 1), scratch);
      i64 pm = ev(st, kd(n, 2));
      i64 count = ev(st, kd(n, 0));
      bool bottom = n.p[0] == 1;
      Coll ordered = cards;
      if (!bottom) std::reverse(ordered.begin(), ordered.end());
      Coll best;
      for (size_t k = (size_t)std::max<i64>(count, 1); k <= ordered.size(); k++) {
        std::vector<i64> scores;
        for (size_t i = 0; i < k; i++) scores.push_back(score(pm, ordered[i], st));
        std::sort(scores.begin(), scores.end());
        bool ok = true;
        for (size_t i = 1; i < scores.size(); i++)
          if (scores[i] != scores[i - 1] + 1) {
            ok = false;
            break;
          }
        if (ok) best.assign(ordered.begin(), ordered.begin() + k);
      }
      if (!bottom) std::reverse(best.begin(), best.end());
      out = std::move(best);
      return out;
    }
    case O_RANGE: {
      i64 lo = ev(st, kd(n, 0)), hi = ev(st, kd(n, 1));
      if ((__int128)hi - lo + 1 > P.limits.max_range)  // exact: hi - lo may not fit
        error("(range " + str(lo) + " .. " + str(hi) + ") has more than " +
                  str(P.limits.max_range) + " numbers",
              n.span);
      out.clear();
      for (i64 v = lo; v <= hi; v++) out.push_back(v);
      return out;
    }
    case O_ATTR: {
      Typed t = attr_value(st, n);
      if (t.tag == 2) return P.lists[t.v];
      out.clear();
      return out;
    }
    case O_IF:
      if (ev(st, kd(n, 0))) return evr(st, kd(n, 1), out);
      return evr(st, kd(n, 2), out);
    default:
      if (n.type == T_LOC || n.type == T_MEMLOC) return st.zone(loc_key(st, ni));
      error("internal: not a collection (op " + str(n.op) + ")", n.span);
  }
}

void VM::set_parts(State& st, const Node& n, std::vector<Coll>& groups) {
  // the collections a set operation joins, in order: a part that is a collection of
  // collections gives each of its groups
  for (int i = 0; i < n.nkids; i++) {
    i32 part = kd(n, i);
    if (nd(part).type == T_CARDSS) {
      std::vector<Coll> more;
      evcc(st, part, more);
      for (auto& g : more) groups.push_back(std::move(g));
    } else {
      Lent<Coll> lent_(colls);
      groups.push_back(evr(st, part, lent_.item));
    }
  }
}

const Coll& VM::card_union(State& st, const Node& n, Coll& out) {
  // engine/collections.py: union (first-seen order), for cards: each card id marked in
  // a table as big as the game's cards instead of a hash set
  Lent<Coll> lent_marks(colls);
  Coll& marks = lent_marks.item;
  marks.assign(st.card_type.size(), 0);
  Lent<Coll> lent_result(colls);
  Coll& result = lent_result.item;
  auto add = [&](const Coll& part) {
    for (i64 c : part) {
      if (c >= 0 && c < (i64)marks.size()) {
        if (marks[c]) continue;
        marks[c] = 1;
      } else if (std::find(result.begin(), result.end(), c) != result.end()) {
        continue;  // not a card id (a stand-in): compared as the hash set would
      }
      result.push_back(c);
    }
  };
  // parts are evaluated in order (evaluating one changes no other but the variable it
  // binds), so each is added as it is made: the groups of (all COLL 'V COLLECTION) one
  // by one, as evcc would list them
  for (int i = 0; i < n.nkids; i++) {
    i32 part = kd(n, i);
    const Node& pn = nd(part);
    if (pn.type != T_CARDSS) {
      Lent<Coll> lent_(colls);
      add(evr(st, part, lent_.item));
    } else if (pn.op == O_AGGREGATE && nd(kd(pn, 0)).type != T_CARDSS) {
      Lent<Coll> lent_items(colls);
      Lent<Coll> lent_scratch(colls);
      Coll& items = lent_items.item;  // a copy: binding the variable changes no input
      const Coll& made = evr(st, kd(pn, 0), items);
      if (&made != &items) items.assign(made.begin(), made.end());
      i32 body = kd(pn, 1);
      for (size_t j = 0; j < items.size(); j++) {
        st.regs[pn.p[1]] = Val::scalar(items[j]);
        add(evr(st, body, lent_scratch.item));
      }
    } else {
      std::vector<Coll> groups;
      evcc(st, part, groups);
      for (const Coll& g : groups) add(g);
    }
  }
  out.assign(result.begin(), result.end());
  return out;
}

void VM::evcc(State& st, i32 ni, std::vector<Coll>& out) {
  const Node& n = nd(ni);
  out.clear();
  switch (n.op) {
    case O_REG: {
      const Val& v = st.regs[n.p[0]];
      if (v.lists) out = *v.lists;
      return;
    }
    case O_AGGREGATE: {  // (all COLL 'V COLLECTION): one collection per element
      std::vector<Val> items;
      elements(st, kd(n, 0), items);
      charge_passes(n, items.size());
      i32 body = kd(n, 1);
      for (const Val& e : items) {
        st.regs[n.p[1]] = e;
        Lent<Coll> lent_(colls);
        Coll& scratch = lent_.item;
        out.push_back(evr(st, body, scratch));
      }
      return;
    }
    case O_FILTER: {
      std::vector<Coll> groups;
      evcc(st, kd(n, 0), groups);
      charge_passes(n, groups.size());
      i32 cond = kd(n, 1);
      for (auto& g : groups) {
        st.regs[n.p[0]] = Val::of_list(g);
        if (ev(st, cond)) out.push_back(g);
      }
      return;
    }
    case O_TUPLES: {
      // engine/collections.py: tuples (groups of n cards of equal score, by score)
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      Coll cards = evr(st, kd(n, 1), scratch);
      i64 pm = ev(st, kd(n, 2));
      i64 k = ev(st, kd(n, 0));
      std::map<i64, Coll> by_score;
      for (i64 c : cards) by_score[score(pm, c, st)].push_back(c);
      i64 made = 0;  // runtime.py: _tuples_work
      for (auto& kv : by_score)
        if (k > 0 && (i64)kv.second.size() >= k)
          made = saturating_add(made, saturating_mul(binomial(kv.second.size(), k), k + 1));
      charge(made, n.span, "(tuples ...)");
      for (auto& kv : by_score) {
        const Coll& group = kv.second;
        if (k <= 0 || (i64)group.size() < k) continue;
        // combinations in lexicographic order of positions
        std::vector<size_t> idx(k);
        for (i64 i = 0; i < k; i++) idx[i] = i;
        while (true) {
          Coll combo;
          for (size_t i : idx) combo.push_back(group[i]);
          out.push_back(std::move(combo));
          i64 i = k - 1;
          while (i >= 0 && idx[i] == group.size() - k + i) i--;
          if (i < 0) break;
          idx[i]++;
          for (i64 j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
        }
      }
      return;
    }
    case O_RUNS: {
      // engine/collections.py: runs
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      Coll cards = evr(st, kd(n, 1), scratch);
      i64 pm = ev(st, kd(n, 2));
      i64 count = ev(st, kd(n, 0));
      std::map<i64, Coll> by_score;
      for (i64 c : cards) by_score[score(pm, c, st)].push_back(c);
      std::vector<std::vector<i64>> blocks;
      for (auto& kv : by_score) {
        if (!blocks.empty() && blocks.back().back() == kv.first - 1)
          blocks.back().push_back(kv.first);
        else
          blocks.push_back({kv.first});
      }
      size_t length = (size_t)std::max<i64>(count, 1);
      charge(run_windows_work(blocks, length, n.p[0] == 1), n.span, "(runs ...)");
      std::vector<std::vector<i64>> windows;
      for (auto& block : blocks) {
        if (n.p[0] == 1) {
          if (block.size() >= length) windows.push_back(block);
          continue;
        }
        for (size_t size = length; size <= block.size(); size++)
          for (size_t i = 0; i + size <= block.size(); i++)
            windows.emplace_back(block.begin() + i, block.begin() + i + size);
      }
      i64 made = 0;  // runtime.py: _runs_work, the runs themselves
      for (auto& window : windows) {
        i64 product = 1;
        for (i64 s : window) product = saturating_mul(product, (i64)by_score[s].size());
        made = saturating_add(made, saturating_mul(product, (i64)window.size() + 1));
      }
      charge(made, n.span, "(runs ...)");
      for (auto& window : windows) {
        // the product of the cards of each score, first score slowest
        std::vector<size_t> idx(window.size(), 0);
        while (true) {
          Coll combo;
          for (size_t i = 0; i < window.size(); i++) combo.push_back(by_score[window[i]][idx[i]]);
          out.push_back(std::move(combo));
          i64 i = (i64)window.size() - 1;
          while (i >= 0) {
            idx[i]++;
            if (idx[i] < by_score[window[i]].size()) break;
            idx[i] = 0;
            i--;
          }
          if (i < 0) break;
        }
      }
      return;
    }
    case O_SUBSETS: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      Coll cards = evr(st, kd(n, 0), scratch);
      if ((i64)cards.size() > P.limits.max_subset_cards) {
        i64 m = P.limits.max_subset_cards;
        std::string many = cards.size() < 63 ? str((i64)1 << cards.size()) : "2**" + str(cards.size());
        error("(subsets ...) of " + str(cards.size()) + " cards would make " + many +
                  " collections; the limit is " + str(m) + " cards (" + str((i64)1 << m) +
                  " subsets)",
              n.span);
      }
      size_t total = cards.size();
      // runtime.py: _subsets; 2^n collections holding n 2^(n-1) cards
      charge(((i64)1 << total) + (total ? (i64)total << (total - 1) : 0), n.span,
             "(subsets ...)");
      for (size_t k = 0; k <= total; k++) {
        if (k == 0) {
          out.push_back({});
          continue;
        }
        std::vector<size_t> idx(k);
        for (size_t i = 0; i < k; i++) idx[i] = i;
        while (true) {
          Coll combo;
          for (size_t i : idx) combo.push_back(cards[i]);
          out.push_back(std::move(combo));
          i64 i = (i64)k - 1;
          while (i >= 0 && idx[i] == total - k + i) i--;
          if (i < 0) break;
          idx[i]++;
          for (size_t j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
        }
      }
      return;
    }
    case O_PARTITION: {
      // the cards of every part, grouped by an attribute's value, groups first seen first
      Coll cards;
      for (int i = 1; i < n.nkids; i++) {
        i32 part = kd(n, i);
        if (nd(part).type == T_CARDSS) {
          std::vector<Coll> more;
          evcc(st, part, more);
          for (auto& g : more) cards.insert(cards.end(), g.begin(), g.end());
        } else {
          Lent<Coll> lent_(colls);
          Coll& scratch = lent_.item;
          const Coll& g = evr(st, part, scratch);
          cards.insert(cards.end(), g.begin(), g.end());
        }
      }
      i64 key = ev(st, kd(n, 0));
      std::vector<std::pair<Typed, Coll>> groups;
      for (i64 c : cards) {
        bool found;
        Typed t = attribute(st, c, (i32)key, found);
        if (!found) t = Typed{1, P.empty_string};
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const auto& g) { return g.first == t; });
        if (it == groups.end())
          groups.push_back({t, {c}});
        else
          it->second.push_back(c);
      }
      for (auto& g : groups) out.push_back(std::move(g.second));
      return;
    }
    case O_IF:
      if (ev(st, kd(n, 0)))
        evcc(st, kd(n, 1), out);
      else
        evcc(st, kd(n, 2), out);
      return;
    default:
      error("internal: not a collection of collections (op " + str(n.op) + ")", n.span);
  }
}

Val VM::evv(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.type) {
    case T_CARDS:
    case T_PLAYERS:
    case T_TEAMS:
    case T_STRS:
    case T_INTS:
    case T_LOCS: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      return Val::of_list(evr(st, ni, scratch));
    }
    case T_CARDSS: {
      std::vector<Coll> groups;
      evcc(st, ni, groups);
      return Val::of_lists(std::move(groups));
    }
    default:
      return Val::scalar(ev(st, ni));
  }
}

// ---------------------------------------------------------------- statements

static i64 repeat_count(i64 count, i32 span, const Limits& lim) {
  if (count > lim.max_repeat)
    throw RuleErr{"(repeat " + str(count) + " ...) repeats more than " + str(lim.max_repeat) +
                      " times",
                  span};
  return std::max<i64>(count, 0);
}

void VM::place(State& st, const Node& n, Coll& z, i64 card, i64& at) {
  if (n.p[0] == 0) {
    z.push_back(card);
    at = (i64)z.size() - 1;
  } else if (n.p[0] == 1) {
    z.insert(z.begin(), card);
    at = 0;
  } else {
    i64 index = ev(st, kd(n, 2));
    at = std::min(std::max<i64>(index, 0), (i64)z.size());
    z.insert(z.begin() + at, card);
  }
}

void VM::move(State& st, const Node& n, i32) {
  // compiler/moves.py: a_Move (the card is taken before the destination is evaluated)
  i64 c = ev(st, kd(n, 0));
  if (c == NO_CARD) error(P.strings[n.p[1]], n.span);
  i32 src = take_card(st, c);
  put_card(st, n, c, src, loc_key(st, kd(n, 1)));
}

i32 VM::take_card(State& st, i64 c) {
  // a moved card leaves the zone it lies in (a mem location only remembers it); that zone
  i32 src = st.card_zone[c];
  Coll& z = st.zones[src];
  if (!z.empty() && z.back() == c)
    z.pop_back();
  else {
    auto it = std::find(z.begin(), z.end(), c);
    if (it != z.end()) z.erase(it);
  }
  return src;
}

void VM::put_card(State& st, const Node& n, i64 c, i32 src, i32 to) {
  // a card taken from ``src`` goes to zone ``to``, where the MOVE node ``n`` places it
  Coll& dz = st.zone_for_write(to);
  i64 at;
  place(st, n, dz, c, at);
  st.card_zone[c] = to;
  if (st.recording) {
    Event e{E_MOVE};
    e.a = c;
    e.b = src;
    e.c = to;
    e.d = at;
    st.log.push_back(std::move(e));
  }
}

void VM::move_many(State& st, i32 mi, i64 times) {
  // ``times`` passes of move(): the same cards, events and errors, but the two locations'
  // keys are found once, on the first pass and in move()'s order (a key the program has
  // not seen yet is numbered then, as it would be)
  const Node& n = nd(mi);
  const Node& top = nd(kd(n, 0));
  i32 from = -1, to = -1;
  for (i64 i = 0; i < times; i++) {
    if (from < 0) from = top.hot == H_CAP_REG ? (i32)st.regs[nd(kd(top, 0)).p[0]].i
                                              : loc_key(st, kd(top, 0));
    i64 c = cap_card(st.zone(from), (int)top.p[0]);
    if (c == NO_CARD) error(P.strings[n.p[1]], n.span);
    i32 src = take_card(st, c);
    if (to < 0) to = loc_key(st, kd(n, 1));
    put_card(st, n, c, src, to);
  }
}

void VM::remember(State& st, const Node& n, i32) {
  i64 c = ev(st, kd(n, 0));
  if (c == NO_CARD) error("remember of a card in an empty location", n.span);
  i32 dk = loc_key(st, kd(n, 1));
  Coll& dz = st.zone_for_write(dk);
  i64 at;
  place(st, n, dz, c, at);
  if (st.recording) {
    Event e{E_REMEMBER};
    e.a = c;
    e.b = dk;
    st.log.push_back(std::move(e));
  }
}

void VM::set_value(State& st, const Node& n) {
  // the value is evaluated before the key (Python's `table[key] = value` order)
  i32 target = kd(n, 0), value = kd(n, 1);
  if (n.p[1]) {
    i64 pm = make_pointmap(st, value);
    st.points.store(skey(st, target), pm);
    return;
  }
  i64 v = ev(st, value);
  i32 k = skey(st, target);
  int8_t kind;
  if (n.p[0] == 0) {
    st.ints.store(k, v);
    kind = E_SET_INT;
  } else if (n.p[0] == 1) {
    st.strs.store(k, v);
    kind = E_SET_STR;
  } else {
    st.points.store(k, v);
    kind = E_SET_POINTS;
  }
  if (st.recording) {
    Event e{kind};
    e.a = k;
    e.b = v;
    st.log.push_back(std::move(e));
  }
}

// runtime.card_room: a creation that would make the game hold more than max_cards cards
static void card_room(const State& st, i64 made, i32 span, const Limits& lim) {
  i64 held = (i64)st.card_type.size();
  if (made > lim.max_cards - held)
    throw RuleErr{"this creates " + str(made) + " cards and the game holds " + str(held) +
                      ": more than a game may hold (" + str(lim.max_cards) + " cards)",
                  span};
}

// compiler/board.py a_CreateCards
void VM::create_cards(State& st, const Node& n) {
  i64 name = ev(st, kd(n, 1));
  auto it = P.kind_types.find((i32)name);
  if (it == P.kind_types.end()) error("no card kind named " + P.strings[name], n.span);
  i32 k = loc_key(st, kd(n, 0));
  st.zone_for_write(k);
  i64 made = std::max<i64>(ev(st, kd(n, 2)), 0);  // none for a negative count
  card_room(st, made, n.span, P.limits);
  i64 first = (i64)st.card_type.size();
  for (i64 i = 0; i < made; i++) {
    st.card_type.push_back(it->second);
    st.card_zone.push_back(k);
  }
  Coll& z = st.zones[k];
  for (i64 i = 0; i < made; i++) z.push_back(first + i);
  if (st.recording) {
    Event e{E_CREATE};
    e.a = made;
    e.b = k;
    st.log.push_back(std::move(e));
  }
}

void VM::create_deck(State& st, const Node& n) {
  i32 k = loc_key(st, kd(n, 0));
  st.zone_for_write(k);
  i32 deck_name = n.p[1] ? (i32)ev(st, kd(n, 1)) : -1;
  if (deck_name >= 0 && P.strings[deck_name].empty()) deck_name = -1;
  i64 cache_key = (i64)n.p[0] * 4294967296LL + (i64)(uint32_t)deck_name;
  const auto& cards = P.decks[n.p[0]];
  auto it = P.deck_types.find(cache_key);
  i32 first_type;
  if (it != P.deck_types.end()) {
    first_type = it->second;
  } else {
    first_type = (i32)P.card_types.size();
    i32 deck_attr = P.intern("DECK");
    for (const auto& card : cards) {
      CardType t;
      for (const auto& kv : card) t.attrs.push_back({kv.first, Typed{1, kv.second}});
      if (deck_name >= 0) {
        bool replaced = false;
        for (auto& a : t.attrs)
          if (a.first == deck_attr) {
            a.second = Typed{1, deck_name};
            replaced = true;
          }
        if (!replaced) t.attrs.push_back({deck_attr, Typed{1, deck_name}});
      }
      t.name = P.card_type_name(t);
      t.index();
      P.card_types.push_back(std::move(t));
    }
    P.deck_types.emplace(cache_key, first_type);
  }
  card_room(st, (i64)cards.size(), n.span, P.limits);
  i64 first = (i64)st.card_type.size();
  for (size_t i = 0; i < cards.size(); i++) {
    st.card_type.push_back(first_type + (i32)i);
    st.card_zone.push_back(k);
  }
  Coll& z = st.zones[k];
  for (size_t i = 0; i < cards.size(); i++) z.push_back(first + (i64)i);
  if (st.recording) {
    Event e{E_CREATE};
    e.a = (i64)cards.size();
    e.b = k;
    st.log.push_back(std::move(e));
  }
}

void VM::over_budget(i32 span, const char* what) const {
  // runtime.py: over_budget
  error(std::string(what) + " passes the work budget of " + str(budget_.limit) +
            " units since the last decision (--max-work)",
        span);
}

const char* VM::pass_name(const Node& n) {
  if (n.op == O_FILTER) return "(filter ...)";
  return n.p[0] == 0 ? "(any ...)" : "(all ...)";  // an aggregate, a choice's FOREACH
}

void VM::overflow(const std::string& what, i32 span) const {
  error("integer overflow: " + what + " is outside the 64-bit range", span);
}

const Coll& VM::team_members(const State& st, i64 t, i32 span) const {
  // a team bound before create teams regrouped the players may be gone (runtime.py)
  if (t < 0 || t >= (i64)st.teams.size())
    error("there is no team " + str(t) + " now (create teams regrouped the players)", span);
  return st.teams[t];
}

void VM::create_teams(State& st, const Node& n) {
  const Coll& listed = P.lists[n.p[0]];
  std::vector<std::vector<i64>> teams;
  std::unordered_set<i64> named;
  for (i64 t : listed) {
    teams.push_back(P.lists[t]);
    for (i64 p : P.lists[t]) named.insert(p);
  }
  for (i64 p : named)
    if (p < 0 || p >= st.nplayers)
      error("teams name players outside 0.." + str(st.nplayers - 1), n.span);
  for (i64 p = 0; p < st.nplayers; p++)
    if (!named.count(p)) teams.push_back({p});
  st.teams = teams;
  st.team_of.assign(st.nplayers, 0);
  for (size_t i = 0; i < teams.size(); i++)
    for (i64 p : teams[i]) st.team_of[p] = (i64)i;
}

void VM::cycle(State& st, const Node& n) {
  Frame& frame = st.stack[st.stage_idx];
  i64 value;
  switch (n.p[1]) {
    case 0: value = frame.f[S_CUR]; break;
    case 1: value = next_in_cycle(st); break;
    case 2: value = previous_in_cycle(st); break;
    default: {
      i64 p = ev(st, kd(n, 0));
      Frame& f = st.stack[st.stage_idx];
      value = f.f[S_TEAM] ? st.team_of[pymod(p, (i64)st.team_of.size())] : p;
    }
  }
  Frame& f = st.stack[st.stage_idx];
  if (value < 0 || value >= cycle_size(st, f)) error("cannot cycle to " + str(value), n.span);
  if (n.p[0])
    f.f[S_QUEUED] = value;
  else
    set_current(f, value);
}

void VM::for_each(State& st, const Node& n) {
  i32 coll = kd(n, 0), body = kd(n, 1);
  if (nd(coll).type != T_CARDSS) {
    // a copy: the body may move the cards of the location it walks
    Lent<Coll> lent_items(colls), lent_scratch(colls);
    Coll& items = lent_items.item;
    const Coll& source = evr(st, coll, lent_scratch.item);
    items.assign(source.begin(), source.end());
    for (i64 e : items) {
      bind_scalar(st, n.p[1], e);
      exec(st, body);
    }
    return;
  }
  Lent<std::vector<Val>> lent(vals);
  std::vector<Val>& items = lent.item;
  elements(st, coll, items);
  for (const Val& e : items) {
    st.regs[n.p[1]] = e;
    exec(st, body);
  }
}


void VM::exec(State& st, i32 ni) {
  // a statement with no decision, run whole (compiler/statements.py: action)
  const Node& n = nd(ni);
  switch (n.op) {
    case O_MOVE:
      move(st, n, ni);
      return;
    case O_REMEMBER:
      remember(st, n, ni);
      return;
    case O_FORGET: {
      i64 c = ev(st, kd(n, 0));
      if (c == NO_CARD) error("forget from an empty mem location", n.span);
      i32 k = loc_key(st, kd(n, 1));
      if (k >= (i32)st.zones.size()) return;
      Coll& z = st.zones[k];
      for (size_t i = z.size(); i-- > 0;)
        if (z[i] == c) {
          z.erase(z.begin() + i);
          return;
        }
      return;
    }
    case O_SHUFFLE: {
      i32 k = loc_key(st, kd(n, 0));
      if (k >= (i32)st.zones.size() || st.zones[k].empty()) return;
      shuffle_in_place(st.rng, st.zones[k]);
      if (st.recording) {
        Event e{E_SHUFFLE};
        e.a = k;
        e.cards = st.zones[k];
        st.log.push_back(std::move(e));
      }
      return;
    }
    case O_SET:
      set_value(st, n);
      return;
    case O_INC: {
      i32 k = skey(st, kd(n, 0));
      i64 amount = ev(st, kd(n, 1));
      i64 old = st.ints.get(k, 0);
      __int128 exact = (__int128)old + (__int128)n.p[0] * amount;  // runtime.py checked_increment
      if (exact < INT64_MIN || exact > INT64_MAX)
        overflow(std::string(n.p[0] > 0 ? "(inc " : "(dec ") + str(old) + " " + str(amount) + ")", n.span);
      i64 v = (i64)exact;
      st.ints.store(k, v);
      if (st.recording) {
        Event e{E_SET_INT};
        e.a = k;
        e.b = v;
        st.log.push_back(std::move(e));
      }
      return;
    }
    case O_CYCLE:
      cycle(st, n);
      return;
    case O_PASS:
      return;
    case O_REPEAT: {
      i64 times = repeat_count(ev(st, kd(n, 0)), n.span, P.limits);
      i32 body = kd(n, 1);
      if (nd(body).flags & STEADY_MOVE) return move_many(st, body, times);
      for (i64 i = 0; i < times; i++) exec(st, body);
      return;
    }
    case O_REPEATALL: {
      i64 times;
      {
        Lent<Coll> lent_(colls);
        Coll& scratch = lent_.item;
        times = (i64)evr(st, kd(n, 1), scratch).size();
      }
      i32 body = kd(n, 0);
      if (nd(body).flags & STEADY_MOVE) return move_many(st, body, times);
      for (i64 i = 0; i < times; i++) exec(st, body);
      return;
    }
    case O_SWAP: {
      i64 a = ev(st, kd(n, 0)), b = ev(st, kd(n, 1));
      if (a == NO_CARD || b == NO_CARD)
        error("swap with an empty location: there is no card to swap", n.span);
      if (a == b) return;
      i32 ka = st.card_zone[a], kb = st.card_zone[b];
      Coll& za = st.zones[ka];
      size_t ia = std::find(za.begin(), za.end(), a) - za.begin();
      Coll& zb = st.zones[kb];
      size_t ib = std::find(zb.begin(), zb.end(), b) - zb.begin();
      st.zones[ka][ia] = b;
      st.zones[kb][ib] = a;
      st.card_zone[a] = kb;
      st.card_zone[b] = ka;
      if (st.recording) {
        Event e1{E_MOVE};
        e1.a = a, e1.b = ka, e1.c = kb, e1.d = (i64)ib;
        st.log.push_back(std::move(e1));
        Event e2{E_MOVE};
        e2.a = b, e2.b = kb, e2.c = ka, e2.d = (i64)ia;
        st.log.push_back(std::move(e2));
      }
      return;
    }
    case O_CALL:
      call_atomic(st, ni);
      return;
    case O_CREATECARDS:
      create_cards(st, n);
      return;
    case O_CREATEDECK:
      create_deck(st, n);
      return;
    case O_CREATEPLAYERS:
      if (n.p[0] != -1 && n.p[0] != st.nplayers)
        error("the number of players cannot change during a game", n.span);
      return;
    case O_CREATETEAMS:
      create_teams(st, n);
      return;
    case O_STORE:
      st.regs[n.p[0]] = evv(st, kd(n, 0));
      return;
    case O_DO:
      for (int i = 0; i < n.nkids; i++) exec(st, kd(n, i));
      return;
    case O_GUARD:
      if (ev(st, kd(n, 0))) exec(st, kd(n, 1));
      return;
    case O_LET:
      st.regs[n.p[0]] = evv(st, kd(n, 0));
      exec(st, kd(n, 1));
      return;
    case O_FOREACH:
      for_each(st, n);
      return;
    case O_WHILE: {
      i64 passes = 0;
      i32 cond = kd(n, 0);
      while (ev(st, cond)) {
        passes++;
        if (passes > P.limits.max_repeat)
          error("(while ...) ran more than " + str(P.limits.max_repeat) +
                    " passes without a decision",
                n.span);
        for (int i = 1; i < n.nkids; i++) exec(st, kd(n, i));
      }
      return;
    }
    default:
      error("internal: not a statement (op " + str(n.op) + ")", n.span);
  }
}

// ---------------------------------------------------------------- procedures

void VM::call_args(State& st, const Node& n, const Procedure& proc, std::vector<Val>& args) {
  // compiler/control_flow.py: _arg_sources (a card collection is passed as a snapshot,
  // a location's cards included)
  args.reserve(n.nkids);
  for (int i = 0; i < n.nkids; i++) {
    i32 a = kd(n, i);
    if (i < (int)proc.param_types.size() && proc.param_types[i] == T_CARDS) {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      args.push_back(Val::of_list_copy(evr(st, a, scratch)));
    } else {
      args.push_back(evv(st, a));
    }
  }
}

i32 VM::body_for(State& st, const Procedure& proc, const std::vector<Val>& args, i32 span) {
  bool has_card = !args.empty() && !args[0].is_none;
  return body_of(st, proc, has_card, has_card ? args[0].i : NO_CARD, span);
}

i32 VM::body_of(State& st, const Procedure& proc, bool has_card, i64 card, i32 span) {
  // engine/control.py: CompiledProcedure.body_for (dispatch on the first card's KIND)
  if (proc.hooks.empty()) return proc.body;
  if (!has_card || card == NO_CARD)
    error("(call " + P.strings[proc.name] + " ...) of a card in an empty location", span);
  i32 kind = P.card_types[st.card_type[card]].kind;
  for (const auto& h : proc.hooks)
    if (h.first == kind) return h.second;
  return proc.body;
}

void VM::call_atomic(State& st, i32 ni) {
  // compiler/control_flow.py: _call_lines
  const Node& n = nd(ni);
  const Procedure& proc = P.procedures[n.p[0]];
  if (!proc.recursive && (n.flags & SCALAR_CALL)) {  // call_args and the loop below, in place
    i64 v[MAX_SCALAR_ARGS];
    for (int i = 0; i < n.nkids; i++) v[i] = ev(st, kd(n, i));
    for (int i = 0; i < n.nkids; i++) bind_scalar(st, proc.param_slots[i], v[i]);
    exec(st, body_of(st, proc, n.nkids > 0, n.nkids > 0 ? v[0] : NO_CARD, n.span));
    return;
  }
  Lent<std::vector<Val>> lent_args(vals);
  std::vector<Val>& args = lent_args.item;
  call_args(st, n, proc, args);
  if (!proc.recursive) {
    for (size_t i = 0; i < proc.param_slots.size(); i++) st.regs[proc.param_slots[i]] = args[i];
    exec(st, body_for(st, proc, args, n.span));
    return;
  }
  std::vector<Val> saved(st.regs.begin() + proc.low, st.regs.begin() + proc.high);
  if (st.atomic_call_depth >= P.limits.max_call_depth)
    error("procedure calls nested too deeply (recursion in " + P.strings[proc.name] + "?)",
          n.span);
  st.atomic_call_depth++;
  for (size_t i = 0; i < proc.param_slots.size(); i++) st.regs[proc.param_slots[i]] = args[i];
  try {
    exec(st, body_for(st, proc, args, n.span));
  } catch (...) {
    st.atomic_call_depth--;
    throw;
  }
  st.atomic_call_depth--;
  std::copy(saved.begin(), saved.end(), st.regs.begin() + proc.low);
}

void VM::call_enter(State& st, i32 ni) {
  // engine/control.py: CallNode.enter
  const Node& n = nd(ni);
  const Procedure& proc = P.procedures[n.p[0]];
  Lent<std::vector<Val>> lent_args(vals);
  std::vector<Val>& args = lent_args.item;
  call_args(st, n, proc, args);
  i32 body = body_for(st, proc, args, n.span);
  bool atomic_body = !(nd(body).flags & HAS_DECISION);
  if (proc.recursive && atomic_body) {
    std::vector<Val> saved(st.regs.begin() + proc.low, st.regs.begin() + proc.high);
    for (size_t i = 0; i < proc.param_slots.size(); i++) st.regs[proc.param_slots[i]] = args[i];
    exec(st, body);
    std::copy(saved.begin(), saved.end(), st.regs.begin() + proc.low);
    return;
  }
  if (proc.recursive) {
    i64 depth = 1;
    for (size_t i = st.stack.size(); i-- > 0;)
      if (st.stack[i].kind == F_CALL) {
        depth = st.stack[i].f[2] + 1;
        break;
      }
    if (depth > P.limits.max_call_depth)
      error("procedure calls nested too deeply (recursion in " + P.strings[proc.name] + "?)",
            n.span);
    Frame f{F_CALL};
    f.items = Rc<std::vector<Val>>::make(st.regs.begin() + proc.low,
                                                       st.regs.begin() + proc.high);
    f.f[0] = proc.low;
    f.f[1] = proc.high;
    f.f[2] = depth;
    st.stack.push_back(std::move(f));
  }
  for (size_t i = 0; i < proc.param_slots.size(); i++) st.regs[proc.param_slots[i]] = args[i];
  enter(st, body);
}

// ---------------------------------------------------------------- control

void VM::enter(State& st, i32 ni) {
  // engine/control.py: Control.enter of each node
  const Node& n = nd(ni);
  if (!(n.flags & HAS_DECISION)) {
    exec(st, ni);
    return;
  }
  switch (n.op) {
    case O_DO: {
      Frame f{F_SEQ};
      f.node = ni;
      st.stack.push_back(std::move(f));
      return;
    }
    case O_STAGE: {
      const Frame& outer = st.stack[st.stage_idx];
      i64 player = outer.f[S_PLAYER];
      bool team = n.p[0] != 0;
      i64 cur = team ? (outer.f[S_TEAM] ? outer.f[S_CUR] : st.team_of[player]) : player;
      Frame f{F_STAGE};
      f.node = ni;
      f.f[S_CUR] = cur;
      f.f[S_QUEUED] = -1;
      f.f[S_STARTED] = 0;
      f.f[S_OUTER] = st.stage_idx;
      f.f[S_TEAM] = team;
      f.f[S_PLAYER] = player;
      f.f[S_COUNTED] = 0;
      st.stack.push_back(std::move(f));
      st.stage_idx = (i32)st.stack.size() - 1;
      return;
    }
    case O_CHOICE:
      st.pending = ni;
      st.options.reset();
      st.mover = (i32)(n.p[1] ? ev(st, kd(n, 0)) : current_player(st));
      return;
    case O_CALL:
      call_enter(st, ni);
      return;
    case O_SIMULTANEOUS: {  // its choices are secret picks, kept in State::picks
      Frame f{F_SECRET};
      f.node = ni;
      st.stack.push_back(std::move(f));
      enter(st, kd(n, 0));
      return;
    }
    case O_WHILE: {
      Frame f{F_WHILE};
      f.node = ni;
      st.stack.push_back(std::move(f));
      return;
    }
    case O_GUARD:
      if (ev(st, kd(n, 0))) enter(st, kd(n, 1));
      return;
    case O_LET:
      st.regs[n.p[0]] = evv(st, kd(n, 0));
      enter(st, kd(n, 1));
      return;
    case O_FOREACH: {
      Frame f{F_LOOP};
      f.node = ni;
      std::vector<Val> items;
      elements(st, kd(n, 0), items);
      f.items = Rc<std::vector<Val>>::make(std::move(items));
      st.stack.push_back(std::move(f));
      return;
    }
    case O_REPEAT: {
      Frame f{F_REPEAT};
      f.node = ni;
      f.f[0] = repeat_count(ev(st, kd(n, 0)), n.span, P.limits);
      st.stack.push_back(std::move(f));
      return;
    }
    default:
      error("internal: no control node for op " + str(n.op), n.span);
  }
}

void VM::run_item(State& st, i32 block, i32 item) {
  const auto& range = P.items[nd(block).item0 + item];
  const Node& b = nd(block);
  if (range.second - range.first == 1) {
    i32 s = kids_[b.kid0 + range.first];
    if (nd(s).flags & HAS_DECISION) {
      enter(st, s);
      return;
    }
  }
  for (i32 i = range.first; i < range.second; i++) exec(st, kids_[b.kid0 + i]);
}

// ---------------------------------------------------------------- native agents

size_t RandomAgent::draw(size_t n) {
  uint64_t z = splitmix_next(state);
  return (size_t)(((unsigned __int128)z * n) >> 64);
}

size_t RandomAgent::choose(VM&, State&, const OptionList& options) {
  return draw(options.size());
}

i64 VM::play(State& st, const std::vector<NativeAgent*>& seats, i64 limit,
             const EngineLimits& limits) {
  // agents/loop.py: play_out, for the seats whose agents run in the engine
  i64 taken = 0;
  while (st.status == RUNNING && st.decisions < limit) {
    if (st.mover < 0 || st.mover >= (i32)seats.size() || !seats[st.mover]) break;
    const OptionList& options = legal_options(st);
    size_t index = seats[st.mover]->choose(*this, st, options);
    if (index >= options.size()) throw std::out_of_range("a native agent chose no option");
    apply(st, index, limits);
    taken++;
  }
  return taken;
}

// ---------------------------------------------------------------- the flow
// engine/gamemaster.py: Gamemaster

State VM::new_game(uint64_t rng, bool record, const EngineLimits& limits) {
  State st;
  st.nplayers = P.nplayers;
  st.regs.resize(P.n_registers);
  for (i64 p = 0; p < P.nplayers; p++) st.teams.push_back({p});
  for (i64 p = 0; p < P.nplayers; p++) st.team_of.push_back(p);
  st.rng = rng;
  st.recording = record;
  OpenBudget budget(*this, limits.max_work);
  Frame root{F_ROOT};
  root.f[S_CUR] = 0;
  root.f[S_QUEUED] = -1;
  root.f[S_STARTED] = 1;
  root.f[S_OUTER] = -1;
  root.f[S_TEAM] = 0;
  root.f[S_PLAYER] = 0;
  root.f[S_COUNTED] = 0;
  st.stack.push_back(std::move(root));
  st.stage_idx = 0;
  size_t first = 0;
  // the statements that draw nothing, run once, their work charged again (unless it
  // passes this budget: then they run, to fail where the Python engine fails)
  if (!record && setup_prefix_ && setup_prefix_work_ <= limits.max_work) {
    st = *setup_prefix_;
    st.rng = rng;
    budget_.left -= setup_prefix_work_;
    first = setup_prefix_length_;
  }
  try {
    for (size_t i = first; i < P.setup.size(); i++) {
      if (record || setup_probed_) {
        exec(st, P.setup[i]);
        continue;
      }
      // the first unrecorded game finds the prefix: the setup's statements up to the
      // first that draws from the RNG, whose state is the same for every seed
      State before = st;
      i64 work_before = budget_.limit - budget_.left;
      uint64_t drawn_from = st.rng;
      exec(st, P.setup[i]);
      if (st.rng != drawn_from) keep_setup_prefix(std::move(before), i, work_before);
    }
    if (!record && !setup_probed_)
      keep_setup_prefix(State(st), P.setup.size(), budget_.limit - budget_.left);
  } catch (const RuleErr& err) {
    if (!record) setup_probed_ = true;  // no prefix: every game runs its setup whole
    fail(st, err);
    return st;
  }
  Frame seq{F_SEQ};
  seq.node = P.program;
  st.stack.push_back(std::move(seq));
  advance(st, limits);
  return st;
}

void VM::keep_setup_prefix(State prefix, size_t length, i64 work) {
  setup_probed_ = true;
  if (length == 0) return;  // the first statement draws: nothing to keep
  setup_prefix_ = std::make_unique<State>(std::move(prefix));
  setup_prefix_length_ = length;
  setup_prefix_work_ = work;
}

const OptionList& VM::legal_options(State& st) {
  static const OptionList none;
  if (st.status != RUNNING) return none;
  if (!st.options) {
    auto found = fresh_options();
    list_options(st, st.pending, *found);
    st.options = std::move(found);
  }
  return *st.options;
}

// a secret pick: its option (copied, as the decision's list may be reused) and every
// register, for the reveal
static void keep_pick(State& st, i32 mover, i32 choice, OptionRef option) {
  Pick pick;
  pick.mover = mover;
  pick.choice = choice;
  pick.set_option(option);
  pick.regs = st.regs;
  st.picks.push_back(std::move(pick));
}

void VM::apply(State& st, size_t index, const EngineLimits& limits) {
  auto options = st.options;
  if (!options) {
    legal_options(st);
    options = st.options;
  }
  OptionRef option = (*options)[index];
  i32 choice = st.pending, mover = st.mover;
  if (st.recording) {
    Event e{E_DECISION};
    e.a = mover;
    e.b = st.turns;
    e.c = choice >= 0 ? nd(choice).p[0] : P.intern("CHOICE");
    e.label = option_label(st, option);
    st.log.push_back(std::move(e));
  }
  st.pending = -1;
  st.options.reset();
  st.mover = -1;
  st.decisions++;
  st.steps = 0;
  OpenBudget budget(*this, limits.max_work);
  if (choice >= 0 && nd(choice).p[2]) {
    keep_pick(st, mover, choice, option);  // unseen and unrun until its block is done
  } else {
    try {
      run_option(st, option);
    } catch (const RuleErr& err) {
      fail(st, err);
      return;
    }
  }
  recycle(std::move(options));
  advance(st, limits);
  if (st.status == RUNNING && st.decisions >= limits.max_decisions) cutoff(st, "decisions");
}

std::shared_ptr<OptionList> VM::fresh_options() {
  if (spare_options_) {
    auto list = std::move(spare_options_);
    list->clear();
    return list;
  }
  return std::make_shared<OptionList>();
}

void VM::recycle(std::shared_ptr<const OptionList> options) {
  // kept for the next decision's list when nothing else holds it (no clone, no Python
  // Options object), so that its arrays keep their capacity
  if (options && options.use_count() == 1)
    spare_options_ = std::const_pointer_cast<OptionList>(std::move(options));
}

void VM::advance(State& st, const EngineLimits& limits) {
  try {
    run_flow(st, limits);
    if (st.pending >= 0 && st.status == RUNNING) {
      auto found = fresh_options();
      list_options(st, st.pending, *found);
      if (found->empty())
        error("no legal option for player " + str(st.mover) +
                  ": every option of this choice is ruled out",
              nd(st.pending).span);
      st.options = std::move(found);
    }
  } catch (const RuleErr& err) {
    fail(st, err);
  }
}

void VM::run_flow(State& st, const EngineLimits& limits) {
  i64 max_steps = limits.max_steps;
  while (st.pending < 0) {
    size_t top = st.stack.size() - 1;
    Frame& frame = st.stack[top];
    switch (frame.kind) {
      case F_SEQ: {
        const Node& b = nd(frame.node);
        i64 i = frame.f[0];
        if (i == b.nitems) {
          st.stack.pop_back();
          continue;
        }
        frame.f[0] = i + 1;
        st.steps++;
        if (st.steps > max_steps) {
          cutoff(st, "steps");
          return;
        }
        run_item(st, frame.node, (i32)i);
        break;
      }
      case F_STAGE:
        stage_pass(st, top);
        st.steps++;
        if (st.steps > max_steps) {
          cutoff(st, "steps");
          return;
        }
        break;
      case F_LOOP: {
        i64 i = frame.f[0];
        if (i == (i64)frame.items->size()) {
          st.stack.pop_back();
          continue;
        }
        frame.f[0] = i + 1;
        const Node& n = nd(frame.node);
        st.regs[n.p[1]] = (*frame.items)[i];
        enter(st, kd(n, 1));
        break;
      }
      case F_REPEAT: {
        if (frame.f[0] <= 0) {
          st.stack.pop_back();
          continue;
        }
        frame.f[0] -= 1;
        enter(st, kd(nd(frame.node), 1));
        break;
      }
      case F_WHILE: {
        i32 node = frame.node;
        if (!ev(st, kd(nd(node), 0))) {
          st.stack.pop_back();
          continue;
        }
        st.steps++;
        if (st.steps > max_steps) {
          cutoff(st, "steps");
          return;
        }
        Frame seq{F_SEQ};
        seq.node = node;
        st.stack.push_back(std::move(seq));
        break;
      }
      case F_CALL: {
        auto saved = frame.items;
        i64 low = frame.f[0];
        std::copy(saved->begin(), saved->end(), st.regs.begin() + low);
        st.stack.pop_back();
        break;
      }
      case F_SECRET:  // the block's body is done: every pick is made (no step counted)
        st.stack.pop_back();
        reveal(st);
        break;
      default:  // ROOT
        finish(st);
        return;
    }
  }
}

void VM::stage_pass(State& st, size_t fi) {
  i32 node = st.stack[fi].node;
  if (ev(st, kd(nd(node), 0))) {
    st.stage_idx = (i32)st.stack[fi].f[S_OUTER];
    st.stack.pop_back();
    return;
  }
  Frame& frame = st.stack[fi];
  if (frame.f[S_STARTED]) {
    i64 queued = frame.f[S_QUEUED];
    set_current(frame, queued >= 0 ? queued : pymod(frame.f[S_CUR] + 1, cycle_size(st, frame)));
    frame.f[S_QUEUED] = -1;
  }
  frame.f[S_STARTED] = 1;
  st.turns += 1;
  frame.f[S_COUNTED] = 1;
  Frame& outer = st.stack[frame.f[S_OUTER]];
  if (outer.f[S_COUNTED]) {
    outer.f[S_COUNTED] = 0;
    st.turns -= 1;
  }
  Frame seq{F_SEQ};
  seq.node = node;
  st.stack.push_back(std::move(seq));
}

void VM::reveal(State& st) {
  // engine/gamemaster.py: Gamemaster._reveal.  The frame is popped, so its picks go; a
  // rule error leaves the registers as the failing option had them, as in Python.
  std::vector<Pick> picks = std::move(st.picks);
  st.picks.clear();
  if (st.recording)
    for (const Pick& p : picks) {  // a label reads no register: none are set for it
      Event e{E_REVEAL};
      e.a = p.mover;
      e.b = st.turns;
      e.c = nd(p.choice).p[0];
      e.label = option_label(st, p.option());
      st.log.push_back(std::move(e));
    }
  std::vector<Val> saved = st.regs;
  for (const Pick& p : picks) {
    st.regs = p.regs;
    run_option(st, p.option());  // plain actions: the checker lets no option decide
  }
  st.regs = std::move(saved);
}

void VM::finish(State& st) {
  st.status = COMPLETED;
  st.end_reason = "completed";
  try {
    st.scores = current_scores(st);
    st.has_scores = true;
  } catch (const RuleErr& err) {
    fail(st, err);
  }
}

template <class F>
static auto per_seat(State& st, F evaluate) {
  // evaluate with each seat in turn as (current player), from the root frame, as the
  // scoring reads it; the state as it was afterwards, after a rule error too
  // (gamemaster.py: _per_seat)
  i32 saved_idx = st.stage_idx;
  i64 saved_cur = st.stack[0].f[S_CUR];
  st.stage_idx = 0;
  std::vector<decltype(evaluate())> values;
  try {
    for (i64 p = 0; p < st.nplayers; p++) {
      set_current(st.stack[0], p);
      values.push_back(evaluate());
    }
  } catch (...) {
    set_current(st.stack[0], saved_cur);
    st.stage_idx = saved_idx;
    throw;
  }
  set_current(st.stack[0], saved_cur);
  st.stage_idx = saved_idx;
  return values;
}

std::vector<i64> VM::table_scores(State& st) {
  // the checker holds the table score to what every player sees and keeps random out of
  // it, so evaluating it changes nothing
  return per_seat(st, [&] { return ev(st, P.table_score); });
}

std::vector<std::vector<i64>> VM::ending_values(State& st) {
  // held by the checker to what every player sees, like the table score
  // (gamemaster.py: ending_values)
  return per_seat(st, [&] {
    std::vector<i64> values;
    for (i32 node : P.ending) values.push_back(ev(st, node));
    return values;
  });
}

std::vector<std::vector<i64>> VM::current_scores(State& st) {
  return per_seat(st, [&] {
    std::vector<i64> keys;
    for (const auto& s : P.scoring) keys.push_back(ev(st, s.second));
    return keys;
  });
}

void VM::fail(State& st, const RuleErr& err) {
  st.status = FAILED;
  st.end_reason = "failed";
  st.has_error = true;
  st.error = err;
  st.pending = -1;
  st.options.reset();
  st.mover = -1;
}

void VM::cutoff(State& st, const char* which) {
  st.status = CUTOFF;
  st.end_reason = std::string("cutoff:") + which;
  st.pending = -1;
  st.options.reset();
  st.mover = -1;
  try {
    st.scores = current_scores(st);
    st.has_scores = true;
  } catch (const RuleErr&) {
    st.scores.clear();
    st.has_scores = false;
  }
}

void VM::run_option(State& st, OptionRef option) {
  for (const Step& s : option) {
    if (s.slot >= 0)
      st.regs[s.slot] = option.value(s);
    else
      enter(st, s.node);  // enter runs a statement with no decision whole
  }
}

// ---------------------------------------------------------------- listing options
// compiler/choices.py: the expanders, and engine/control.py: list_options

struct VM::Cont {
  enum Kind { SEQ, REPEAT, EVERY } kind;
  const Cont* up;
  i32 node;      // SEQ: the DO whose parts run; REPEAT: the body; EVERY: the FOREACH
  i32 first;     // SEQ: the first part's index among the kids
  i64 index;     // the next part / pass / element
  i64 count;     // SEQ: last part (exclusive); REPEAT: passes
  const std::vector<Val>* elements;  // EVERY
};

struct VM::Lister {
  OptionList* out;
  StepStack steps;
  std::vector<Val> held;  // the collections that steps on the stack bind

  // a binding step on the stack; its value's collection (if any) beside it
  void push_binding(i32 node, i32 slot, i32 var, const Val& v) {
    if (__builtin_expect(v.list || v.lists, 0)) {
      held.push_back(v);
      steps.push_back(Step{node, slot, var, (i32)held.size() - 1, v.i, v.is_none});
      return;
    }
    steps.push_back(Step{node, slot, var, -1, v.i, v.is_none});
  }
  void pop_step() {
    if (steps.back().held >= 0) held.pop_back();
    steps.pop_back();
  }
  int branch = 0;  // the condact being expanded
  i32 choice_span;
  std::vector<std::unique_ptr<State>> clones;
};

State* VM::materialize(Lister& L, State* st, size_t& applied) {
  // the state as the option's steps so far leave it (a clone if any of them acts)
  if (applied == L.steps.size()) return st;
  bool only_bindings = true;
  for (size_t i = applied; i < L.steps.size(); i++)
    if (L.steps[i].slot < 0) {
      only_bindings = false;
      break;
    }
  if (only_bindings) {
    for (size_t i = applied; i < L.steps.size(); i++)
      st->regs[L.steps[i].slot] = step_value(L.steps[i], L.held.data());
    applied = L.steps.size();
    return st;
  }
  auto clone = std::make_unique<State>(*st);
  clone->recording = false;
  clone->log.clear();
  for (size_t i = applied; i < L.steps.size(); i++) {
    const Step& s = L.steps[i];
    if (s.slot >= 0)
      clone->regs[s.slot] = step_value(s, L.held.data());
    else
      enter(*clone, s.node);
  }
  applied = L.steps.size();
  State* result = clone.get();
  L.clones.push_back(std::move(clone));
  return result;
}

void VM::keep_option(Lister& L) {
  // the steps on the stack are an option of the choice
  L.out->add(L.steps.begin(), L.steps.end(), L.held, L.branch);
  if ((i64)L.out->size() > P.limits.max_options)
    error("this choice lists more than " + str(P.limits.max_options) + " options",
          L.choice_span);
}

void VM::proceed(Lister& L, State* st, size_t applied, const Cont* k) {
  if (!k) {  // the option is complete: keep it if it acts
    bool acts = false;
    for (const Step& s : L.steps)
      if (s.slot < 0) {
        acts = true;
        break;
      }
    if (!acts) return;
    keep_option(L);
    return;
  }
  switch (k->kind) {
    case Cont::SEQ: {
      if (k->index == k->count) {
        proceed(L, st, applied, k->up);
        return;
      }
      Cont next = *k;
      next.index++;
      expand(L, kids_[nd(k->node).kid0 + k->index], st, applied, &next);
      return;
    }
    case Cont::REPEAT: {
      if (k->index == k->count) {
        proceed(L, st, applied, k->up);
        return;
      }
      Cont next = *k;
      next.index++;
      expand(L, k->node, st, applied, &next);
      return;
    }
    case Cont::EVERY: {
      if (k->index == (i64)k->elements->size()) {
        proceed(L, st, applied, k->up);
        return;
      }
      const Node& n = nd(k->node);
      const Val& e = (*k->elements)[k->index];
      st->regs[n.p[1]] = e;
      Cont next = *k;
      next.index++;
      L.push_binding(k->node, (i32)n.p[1], (i32)n.p[2], e);
      expand(L, kd(n, 1), st, applied + 1, &next);
      L.pop_step();
      return;
    }
  }
}

// (any COLL 'X (GUARD (do ACTION...))) ending its option, where every step so far is
// applied (so the guard is evaluated on the state as it is, as expand's GUARD would),
// and its body is actions alone
bool VM::guarded_actions(i32 body) const {
  const Node& g = nd(body);
  if (g.op != O_GUARD) return false;
  const Node& d = nd(kd(g, 1));
  return d.op == O_DO && (d.flags & PLAIN_ACTIONS) && d.nkids > 0;
}

bool VM::acts(const Lister& L) {
  for (const Step& s : L.steps)
    if (s.slot < 0) return true;
  return false;
}

// expand's FOREACH, GUARD, DO and proceed for the shape guarded_actions accepts, in one
// loop: an element whose guard holds is an option (the steps so far, its binding, the
// actions); one whose guard fails lists nothing, since the steps so far only bind
// (proceed would find no action and keep nothing)
void VM::list_guarded(Lister& L, State& st, const Node& n, i32 ni, const Coll& items) {
  const Node& g = nd(kd(n, 1));
  i32 cond = kd(g, 0);
  const Node& d = nd(kd(g, 1));
  for (i64 e : items) {
    bind_scalar(st, n.p[1], e);
    if (!guard_hot(st, cond)) continue;
    L.steps.push_back(Step::scalar(ni, (i32)n.p[1], (i32)n.p[2], e));
    for (int i = 0; i < d.nkids; i++) L.steps.push_back(Step::action(kd(d, i)));
    keep_option(L);
    L.steps.pop((size_t)d.nkids + 1);
  }
}

static bool repeats_with_decision(const Node& n) {
  return (n.flags & HAS_DECISION) && (n.op == O_REPEAT || (n.op == O_FOREACH && n.p[0] == 1));
}

void VM::expand(Lister& L, i32 ni, State* st, size_t applied, const Cont* k) {
  const Node& n = nd(ni);
  if (repeats_with_decision(n)) {  // runs as one step after the option's actions
    L.steps.push_back(Step::action(ni));
    proceed(L, st, applied, k);
    L.steps.pop_back();
    return;
  }
  switch (n.op) {
    case O_GUARD: {
      i32 cond = kd(n, 0);
      if (!(nd(cond).flags & PURE) && applied != L.steps.size())
        st = materialize(L, st, applied);
      if (ev(*st, cond))
        expand(L, kd(n, 1), st, applied, k);
      else
        proceed(L, st, applied, k);
      return;
    }
    case O_FOREACH: {
      i32 coll = kd(n, 0);
      if (n.p[0] == 0) {  // any: one option per element
        if (!(nd(coll).flags & PURE) && applied != L.steps.size())
          st = materialize(L, st, applied);
        i32 body = kd(n, 1);
        // a fixed body (actions alone) binds the variable without applying it, as the
        // Python engine's fork_fixed does
        bool fixed = nd(body).flags & FIXED;
        if (nd(coll).type != T_CARDSS) {
          Lent<Coll> lent_(colls), lent_items(colls);
          Coll& scratch = lent_.item;
          Coll& items = lent_items.item;  // a copy (the body may rebind what it reads)
          const Coll& made = evr(*st, coll, scratch);
          items.assign(made.begin(), made.end());
          charge_passes(n, items.size());
          if (items.empty()) {  // like a false guard: the option goes on
            proceed(L, st, applied, k);
            return;
          }
          if (!fixed && !k && applied == L.steps.size() && guarded_actions(body) && !acts(L)) {
            list_guarded(L, *st, n, ni, items);
            return;
          }
          for (i64 e : items) {
            if (!fixed) bind_scalar(*st, n.p[1], e);
            L.steps.push_back(Step::scalar(ni, (i32)n.p[1], (i32)n.p[2], e));
            expand(L, body, st, fixed ? applied : applied + 1, k);
            L.steps.pop_back();
          }
          return;
        }
        std::vector<Val> items;
        elements(*st, coll, items);
        charge_passes(n, items.size());
        if (items.empty()) {  // like a false guard: the option goes on
          proceed(L, st, applied, k);
          return;
        }
        for (const Val& e : items) {
          if (!fixed) st->regs[n.p[1]] = e;
          L.push_binding(ni, (i32)n.p[1], (i32)n.p[2], e);
          expand(L, body, st, fixed ? applied : applied + 1, k);
          L.pop_step();
        }
        return;
      }
      // all: every element in turn, in the same option
      st = materialize(L, st, applied);
      std::vector<Val> items;
      elements(*st, coll, items);
      Cont every{Cont::EVERY, k, ni, 0, 0, 0, &items};
      proceed(L, st, applied, &every);
      return;
    }
    case O_LET: {
      st = materialize(L, st, applied);
      Val v = evv(*st, kd(n, 0));
      st->regs[n.p[0]] = v;
      L.push_binding(ni, (i32)n.p[0], (i32)n.p[1], v);
      expand(L, kd(n, 1), st, applied + 1, k);
      L.pop_step();
      return;
    }
    case O_DO: {
      if (n.flags & PLAIN_ACTIONS) {  // each part one action step (the common shape)
        for (int i = 0; i < n.nkids; i++) L.steps.push_back(Step::action(kd(n, i)));
        proceed(L, st, applied, k);
        L.steps.pop((size_t)n.nkids);
        return;
      }
      Cont seq{Cont::SEQ, k, ni, 0, 0, n.nkids, nullptr};
      proceed(L, st, applied, &seq);
      return;
    }
    case O_REPEAT: {
      i32 body = kd(n, 1);
      i64 times;
      if (n.p[0]) {  // a literal count: the body that many times, in sequence
        times = std::max<i64>(nd(kd(n, 0)).p[0], 0);
      } else {
        st = materialize(L, st, applied);
        times = repeat_count(ev(*st, kd(n, 0)), n.span, P.limits);
      }
      Cont rep{Cont::REPEAT, k, body, 0, 0, times, nullptr};
      proceed(L, st, applied, &rep);
      return;
    }
    default:  // an action (entered when it reaches a decision)
      L.steps.push_back(Step::action(ni));
      proceed(L, st, applied, k);
      L.steps.pop_back();
      return;
  }
}

void VM::list_options(State& st, i32 choice, OptionList& out) {
  // listing never changes the state: the registers it binds and the RNG are put back
  const std::vector<i32>& slots = P.choice_slots[choice];
  // registers hold scalars mostly (a card, a player): those are kept as plain numbers,
  // and only a collection as a value (a choice may bind a score of registers, and this
  // runs at every decision)
  enum : i64 { SCALAR = 0, NONE = 1, HELD = 2 };
  Saved saved(saved_, 2 * slots.size());  // no zeroing: every word is written first
  Lent<std::vector<Val>> lent_held(vals);
  std::vector<Val>& held = lent_held.item;
  i64* plain = saved.words();
  i64* kinds = plain + slots.size();
  for (size_t i = 0; i < slots.size(); i++) {
    const Val& v = st.regs[slots[i]];
    plain[i] = v.i;
    kinds[i] = v.is_none ? NONE : SCALAR;
    if (__builtin_expect(v.list || v.lists, 0)) {
      kinds[i] = HELD;
      held.push_back(v);
    }
  }
  uint64_t saved_rng = st.rng;
  auto restore = [&]() {
    size_t h = 0;
    const i64* plain = saved.words();
    const i64* kinds = plain + slots.size();
    for (size_t i = 0; i < slots.size(); i++) {
      Val& r = st.regs[slots[i]];
      if (kinds[i] == HELD) {
        r = std::move(held[h++]);
        continue;
      }
      if (r.list || r.lists) r = Val();
      r.i = plain[i];
      r.is_none = kinds[i] == NONE;
    }
    st.rng = saved_rng;
  };
  Lister L;
  L.out = &out;
  L.steps.swap(lister_steps_);  // a buffer kept from the last listing
  L.steps.clear();
  if (memo_stamp_.size() < (size_t)P.n_memo_slots) {
    memo_stamp_.resize(P.n_memo_slots, 0);
    memo_value_.resize(P.n_memo_slots, 0);
  }
  memo_epoch_++;
  memo_on_ = true;
  const Node& c = nd(choice);
  L.choice_span = c.span;
  try {
    int first = c.p[1] ? 1 : 0;
    for (int i = first; i < c.nkids; i++) {
      L.branch = i - first;
      expand(L, kd(c, i), &st, 0, nullptr);
      L.clones.clear();
    }
  } catch (...) {
    memo_on_ = false;
    restore();
    L.steps.swap(lister_steps_);
    throw;
  }
  memo_on_ = false;
  restore();
  L.steps.swap(lister_steps_);
}

// ---------------------------------------------------------------- secret picks
// engine/picks.py: a seat's skeleton forgets the others' picks, and each determinized
// world draws them again among the options their choices list in it

void VM::hide_picks(State& st, int seat) const {
  for (Pick& p : st.picks)
    if (p.mover != seat) {
      p.steps.clear();
      p.held.clear();
      p.blank = true;
    }
}

std::vector<size_t> VM::blank_picks(const State& st) const {
  std::vector<size_t> out;
  for (size_t k = 0; k < st.picks.size(); k++)
    if (st.picks[k].blank) out.push_back(k);
  return out;
}

void VM::list_pick_options(State& st, size_t k, OptionList& out) {
  // engine/picks.py: pick_options -- listed with the registers the pick was made with,
  // then every register put back (list_options puts back the RNG)
  if (k >= st.picks.size()) throw std::out_of_range("no such pick");
  std::vector<Val> saved = std::move(st.regs);
  st.regs = st.picks[k].regs;
  try {
    list_options(st, st.picks[k].choice, out);
  } catch (...) {
    st.regs = std::move(saved);
    throw;
  }
  st.regs = std::move(saved);
}

size_t VM::pick_option_count(State& st, size_t k) {
  auto found = fresh_options();
  list_pick_options(st, k, *found);
  size_t n = found->size();
  recycle(std::move(found));
  return n;
}

void VM::set_pick(State& st, size_t k, size_t index) {
  auto found = fresh_options();
  list_pick_options(st, k, *found);
  if (index >= found->size()) throw std::out_of_range("no such option");
  st.picks[k].set_option((*found)[index]);
  recycle(std::move(found));
}

// ---------------------------------------------------------------- what a seat sees

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

// ---------------------------------------------------------------- the program

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

void Program::prepare_block(Node& n, int first) {
  // engine: compiler/control_flow.py block(): each run of statements with no decision is
  // one item, each statement with a decision another
  n.item0 = (i32)items.size();
  int i = first;
  while (i < n.nkids) {
    i32 s = kids[n.kid0 + i];
    if (nodes[s].flags & HAS_DECISION) {
      items.push_back({i, i + 1});
      i++;
      continue;
    }
    int j = i;
    while (j < n.nkids && !(nodes[kids[n.kid0 + j]].flags & HAS_DECISION)) j++;
    items.push_back({i, j});
    i = j;
  }
  n.nitems = (i32)items.size() - n.item0;
}

void Program::bound_slots(i32 ni, std::vector<i32>& out) const {
  // the registers a choice's listing may bind: its bindings and its expressions' own
  const Node& n = nodes[ni];
  switch (n.op) {
    case O_LET: out.push_back((i32)n.p[0]); break;
    case O_FOREACH: out.push_back((i32)n.p[1]); break;
    case O_FILTER: out.push_back((i32)n.p[0]); break;
    case O_AGGREGATE: out.push_back((i32)n.p[1]); break;
    default: break;
  }
  for (int i = 0; i < n.nkids; i++) bound_slots(kids[n.kid0 + i], out);
}

// ---------------------------------------------------------------- shared guards
// The condacts of a choice often test the same thing (Hearts: "no card played yet" in
// three guards, "the suit led" in four).  Their top-level guards are evaluated one after
// the other on the same state within a listing, so an expression they hold twice is
// computed once (VM::ev_memo).  Only expressions that draw nothing, change nothing but
// their own variables, and give a scalar are shared; two are the same when their shapes
// are, variables they bind counted by position.

static bool scalar_type(int t) {
  return t == T_INT || t == T_BOOL || t == T_STR || t == T_CARD || t == T_PLAYER ||
         t == T_TEAM || t == T_INTSTO || t == T_STRSTO;
}

bool Program::memoizable(i32 ni) const {
  const Node& n = nodes[ni];
  switch (n.op) {
    case O_RANDOM:
    case O_MAXMIN:  // ties drawn from the game's RNG
    case O_AWARDS:
    case O_AWARD:
    case O_TUPLES:  // work charged (VM::charge): a shared value would charge it once,
    case O_RUNS:    // where the Python engine charges every evaluation
    case O_SUBSETS:
    case O_LONGEST:
      return false;
    case O_AGGREGATE:
    case O_FILTER:
      if (nodes[kids[n.kid0]].op != O_ALL) return false;
      break;
    default:
      break;
  }
  if (n.op >= O_MOVE) return false;  // a statement
  for (int i = 0; i < n.nkids; i++)
    if (!memoizable(kids[n.kid0 + i])) return false;
  return true;
}

std::string Program::shape(i32 ni, std::vector<i32>& binders, const std::vector<i32>& inner,
                           bool& shareable) const {
  // ``inner``: the registers bound anywhere in the choice; an expression that reads one
  // it does not bind itself (a loop's variable, from inside the loop) changes value
  // within a listing, and is not shared
  const Node& n = nodes[ni];
  std::string s = "(" + std::to_string(n.op) + ":" + std::to_string(n.type);
  i64 p[4] = {n.p[0], n.p[1], n.p[2], n.p[3]};
  int bound = -1;  // the parameter that names a variable this node binds
  if (n.op == O_FILTER) bound = 0;
  if (n.op == O_AGGREGATE) bound = 1;
  if (n.op == O_REG) {
    auto at = std::find(binders.begin(), binders.end(), (i32)p[0]);
    if (at != binders.end()) return s + ":b" + std::to_string(at - binders.begin()) + ")";
    if (std::find(inner.begin(), inner.end(), (i32)p[0]) != inner.end()) shareable = false;
  }
  for (int k = 0; k < 4; k++) s += ":" + (k == bound ? std::string("v") : std::to_string(p[k]));
  if (bound >= 0) binders.push_back((i32)p[bound]);
  for (int i = 0; i < n.nkids; i++) s += shape(kids[n.kid0 + i], binders, inner, shareable);
  if (bound >= 0) binders.pop_back();
  return s + ")";
}

void Program::find_shared_guards(i32 choice) {
  const Node& c = nodes[choice];
  std::unordered_map<std::string, std::vector<i32>> by_shape;
  std::vector<i32> inner;
  bound_slots(choice, inner);
  // The guards reached before any action of an option: a condact's guard, and the
  // guards of (any ...) bodies within it, as deep as guards and (any ...) nest.  The
  // state is the listing's own while they are evaluated.  A guard in an (any ...) body
  // is evaluated once per element: an expression there that reads no variable bound
  // inside the choice is worth keeping even if no other guard holds it.
  std::vector<std::pair<i32, bool>> todo;  // (expression, evaluated once per element)
  std::vector<std::pair<i32, bool>> chain;
  for (int i = c.p[1] ? 1 : 0; i < c.nkids; i++) chain.push_back({kids[c.kid0 + i], false});
  while (!chain.empty()) {
    auto [ni, repeated] = chain.back();
    chain.pop_back();
    const Node& n = nodes[ni];
    if (n.op == O_GUARD) {
      todo.push_back({kids[n.kid0], repeated});
      chain.push_back({kids[n.kid0 + 1], repeated});
    } else if (n.op == O_FOREACH && n.p[0] == 0 && !(n.flags & FIXED)) {
      chain.push_back({kids[n.kid0 + 1], true});
    }
  }
  std::unordered_map<std::string, bool> repeats;  // a shape some element repeats
  while (!todo.empty()) {
    auto [ni, repeated] = todo.back();
    todo.pop_back();
    const Node& n = nodes[ni];
    if (n.op <= O_GAME || n.op == O_LOCATION || n.op >= O_MOVE) continue;  // leaves
    if (scalar_type(n.type) && memoizable(ni)) {
      std::vector<i32> binders;
      bool shareable = true;
      std::string key = shape(ni, binders, inner, shareable);
      if (shareable) {
        by_shape[key].push_back(ni);
        if (repeated) repeats[key] = true;
      }
    }
    for (int i = 0; i < n.nkids; i++) todo.push_back({kids[n.kid0 + i], repeated});
  }
  for (auto& group : by_shape) {
    if (group.second.size() < 2 && !repeats.count(group.first)) continue;
    i32 slot = n_memo_slots++;
    for (i32 ni : group.second) {
      nodes[ni].flags |= MEMO;
      memo_slot[ni] = slot;
    }
  }
}

bool Program::plain_actions(const Node& n) const {
  // every part of the DO is expanded by VM::expand's default (one action step): no
  // form that forks, binds, repeats or nests
  for (int i = 0; i < n.nkids; i++) {
    const Node& part = nodes[kids[n.kid0 + i]];
    switch (part.op) {
      case O_GUARD:
      case O_FOREACH:
      case O_LET:
      case O_DO:
      case O_REPEAT:
        return false;
      default:
        break;
    }
  }
  return true;
}

void Program::prepare() {
  for (i64 p = 0; p < nplayers; p++) counting.push_back(p);
  empty_string = intern("");
  for (auto& n : nodes) {
    if (n.op == O_DO) prepare_block(n, 0);
    if (n.op == O_STAGE || n.op == O_WHILE) prepare_block(n, 1);
  }
  key_cache.resize(nodes.size());
  choice_slots.resize(nodes.size());
  memo_slot.assign(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); i++) {
    const Node& n = nodes[i];
    if ((n.op == O_LOCATION && !n.p[1]) || n.op == O_STORAGE) {
      if (nodes[kids[n.kid0 + 1]].op == O_STR)  // a literal name: one key per owner
        key_cache[i].assign(2 * (size_t)nplayers + 3, -1);
    }
    if (n.op == O_DO && plain_actions(n)) nodes[i].flags |= PLAIN_ACTIONS;
    if (n.op == O_COMPARE && !n.p[1] && n.p[0] >= 2) {
      int lt = nodes[kids[n.kid0]].type;
      if (lt == T_STR || lt == T_STRSTO) nodes[i].flags |= STRING_ORDER;
    }
    if (n.op == O_CHOICE) find_shared_guards((i32)i);
    if (n.op == O_SIMULTANEOUS) has_simultaneous = true;
    if (n.op == O_CHOICE) {
      std::vector<i32> slots;
      bound_slots((i32)i, slots);
      std::sort(slots.begin(), slots.end());
      slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
      choice_slots[i] = std::move(slots);
    }
  }
  find_hot_paths();
}

bool Program::steady_location(i32 ni) const {
  // a location named by a register, or by literal parts whose owner is a register, the
  // game or a number: the same location however the cards move
  const Node& n = nodes[ni];
  if (n.type != T_LOC && n.type != T_MEMLOC) return false;
  if (n.op == O_REG) return true;
  if (n.op != O_LOCATION || n.p[1] || n.nkids != 2) return false;
  int owner = nodes[kids[n.kid0]].op, name = nodes[kids[n.kid0 + 1]].op;
  return (owner == O_REG || owner == O_GAME || owner == O_INT) && name == O_STR;
}

bool Program::steady_move(const Node& n) const {
  if (n.op != O_MOVE || n.p[0] == 2) return false;  // to the top or the bottom
  const Node& card = nodes[kids[n.kid0]];
  if (card.op != O_CARDAT || card.p[0] == 2 || card.p[1]) return false;
  return steady_location(kids[card.kid0]) && steady_location(kids[n.kid0 + 1]);
}

bool Program::reads_type_only(i32 ni, i64 var, bool& reads) const {
  // whether an expression's value is a function of the type of the card in register
  // ``var`` (its attributes, which never change) and of constants; ``reads``: it reads
  // an attribute at all
  const Node& n = nodes[ni];
  switch (n.op) {
    case O_INT:
    case O_STR:
    case O_STRLIST:
      return true;
    case O_ATTR: {
      const Node& card = nodes[kids[n.kid0]];
      reads = true;
      return card.op == O_REG && card.p[0] == var;
    }
    case O_CONTAINS:
    case O_COMPARE:
    case O_AND:
    case O_OR:
    case O_NOT:
    case O_IF:
      for (int i = 0; i < n.nkids; i++)
        if (!reads_type_only(kids[n.kid0 + i], var, reads)) return false;
      return true;
    default:
      return false;
  }
}

void Program::mark_type_test(i32 cond, i64 var, i32 coll) {
  // the elements must be cards: a filter over numbers may read no attribute at all
  int t = nodes[coll].type;
  if (t != T_CARDS && t != T_LOC && t != T_MEMLOC) return;
  bool reads = false;
  if (nodes[cond].type_test || !reads_type_only(cond, var, reads) || !reads) return;
  if (n_type_tests >= INT16_MAX) return;
  nodes[cond].type_test = (int16_t)(++n_type_tests);
}

bool Program::scalar_call(const Node& n) const {
  if (n.op != O_CALL || n.p[0] < 0 || n.p[0] >= (i64)procedures.size()) return false;
  const Procedure& proc = procedures[n.p[0]];
  if (n.nkids > MAX_SCALAR_ARGS || n.nkids != (i32)proc.param_slots.size()) return false;
  for (int i = 0; i < n.nkids; i++) {
    if (i < (int)proc.param_types.size() && proc.param_types[i] == T_CARDS) return false;
    if (is_collection_type(nodes[kids[n.kid0 + i]].type)) return false;
  }
  return true;
}

void Program::find_hot_paths() {
  // after find_shared_guards: a node whose value a listing shares keeps the general path
  for (size_t i = 0; i < nodes.size(); i++) {
    const Node& n = nodes[i];
    if (n.op == O_FILTER) mark_type_test(kids[n.kid0 + 1], n.p[0], kids[n.kid0]);
    if (n.op == O_AGGREGATE) mark_type_test(kids[n.kid0 + 1], n.p[1], kids[n.kid0]);
  }
  for (Node& n : nodes) {
    if (steady_move(n)) n.flags |= STEADY_MOVE;
    if (scalar_call(n)) n.flags |= SCALAR_CALL;
    n.hot = H_NONE;
    if (n.flags & MEMO) continue;
    auto kid_is = [&](int i, int op) { return nodes[kids[n.kid0 + i]].op == op; };
    auto kid_is_location = [&]() {
      int t = nodes[kids[n.kid0]].type;
      return t == T_LOC || t == T_MEMLOC;
    };
    switch (n.op) {
      case O_SIZE:
        if (kid_is_location() && kid_is(0, O_REG)) n.hot = H_SIZE_REG;
        if (kid_is_location() && kid_is(0, O_LOCATION)) n.hot = H_SIZE_LOC;
        break;
      case O_CARDAT:
        if (n.p[0] != 2 && kid_is_location() && kid_is(0, O_REG)) n.hot = H_CAP_REG;
        if (n.p[0] != 2 && kid_is_location() && kid_is(0, O_LOCATION)) n.hot = H_CAP_LOC;
        break;
      case O_ATTR: {
        const Node& card = nodes[kids[n.kid0]];
        n.hot = card.op == O_REG ? H_ATTR_REG : card.hot == H_CAP_REG ? H_ATTR_CAP : H_ATTR;
        break;
      }
      case O_COMPARE:
        if (n.p[1]) n.hot = H_CMP_CARD;
        else if (!(n.flags & STRING_ORDER)) n.hot = H_CMP;
        break;
      case O_AND: n.hot = H_AND; break;
      case O_OR: n.hot = H_OR; break;
      case O_NOT: n.hot = H_NOT; break;
      case O_STORAGE:
        if (n.p[0] == 0) n.hot = H_STO_INT;
        break;
      default:
        break;
    }
  }
}

}  // namespace cardlang
