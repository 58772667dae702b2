// The VM's expressions (vm.h): ev and its fast paths (ev_hot, from the Hot marks of
// program_prepare.cpp), evr for a collection, evcc for a collection of collections, evv
// for any value, and what they read: players and teams, scores and point maps, location
// and storage keys, the work a collection costs, the rule errors they raise.  The other
// scalar expressions, ev_node's, are in vm_eval_scalar.cpp and vm_eval_measure.cpp.
// The Python twin: compiler/expressions.py (each expression compiled to a function),
// with engine/runtime.py and engine/collections.py doing the work it calls.
#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "vm_internal.h"

namespace cardlang {

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

// ---------------------------------------------------------------- rule errors

void VM::error(const std::string& message, i32 span) const { throw RuleErr{message, span}; }

void VM::over_budget(i32 span, const char* what) const {
  // runtime.py: over_budget
  error(std::string(what) + " passes the work budget of " + str(budget_.limit) +
            " units since the last decision (--max-work)",
        span);
}

void VM::over_game_budget(i32 span, const char* what) const {
  // work.py: over_game_budget
  error(std::string(what) + " passes the game's work budget of " + str(budget_.game_limit) +
            " units (--max-game-work)",
        span);
}

void VM::over_room(i32 span, const char* what) const {
  // work.py: WorkBudget.passed
  if (budget_.left <= budget_.game_limit - *budget_.game) over_budget(span, what);
  over_game_budget(span, what);
}

const char* VM::pass_name(const Node& n) {
  if (n.op == O_FILTER) return "(filter ...)";
  return n.p[0] == 0 ? "(any ...)" : "(all ...)";  // an aggregate, a choice's FOREACH
}

void VM::overflow(const std::string& what, i32 span) const {
  error("integer overflow: " + what + " is outside the 64-bit range", span);
}

// ---------------------------------------------------------------- players and teams
// (the current player or team, the next and previous ones: inline, vm_internal.h)

const Coll& VM::team_members(const State& st, i64 t, i32 span) const {
  // a team bound before create teams regrouped the players may be gone (runtime.py)
  if (t < 0 || t >= (i64)st.teams.size())
    error("there is no team " + str(t) + " now (create teams regrouped the players)", span);
  return st.teams[t];
}

// ---------------------------------------------------------------- scores

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
  // every index up to INT64_MAX (19 digits): location_name writes the index's digits,
  // and the Python engine reads any run of digits back (runtime.py: _indexed_members)
  uint64_t index = 0;
  for (size_t i = base.size() + 1; i < zname.size(); i++) {
    char c = zname[i];
    if (c < '0' || c > '9') return -1;
    if (index > ((uint64_t)INT64_MAX - (uint64_t)(c - '0')) / 10) return -1;  // no i64 name
    index = index * 10 + (uint64_t)(c - '0');
  }
  return (i64)index;
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

// The fast paths of Program::find_hot_paths, each the same evaluation as ev_node's for
// the node (the same order of evaluation, the same errors); any other node, and a
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
      charge(std::min(count, (i64)z.size()), n.span, n.p[0] == 0 ? "(top ...)" : "(bottom ...)");
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
      i64 cards = 0;  // runtime.py: _joined -- once every part is evaluated
      for (const Coll& g : groups) cards += (i64)g.size();
      charge(cards, n.span, set_op_name(n));
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
      charge((i64)cards.size(), n.span, "(sort ...)");
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
      // every prefix of at least count cards is sorted: their cards (runtime.py _run_at_end)
      i64 shortest = std::max<i64>(count, 1), longest = (i64)cards.size();
      if (longest >= shortest)
        charge(saturating_mul(longest, longest + 1) / 2 - saturating_mul(shortest - 1, shortest) / 2,
               n.span, "(run ...)");
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
      // counted, not compared with hi: v <= hi always holds when hi is INT64_MAX, and
      // v++ past it overflows (runtime.py: _range)
      if (hi >= lo) {
        uint64_t count = (uint64_t)hi - (uint64_t)lo + 1;
        out.reserve(count);
        for (uint64_t k = 0; k < count; k++) out.push_back((i64)((uint64_t)lo + k));
      }
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
  i64 read = 0;  // the cards of the parts, charged once all are read (runtime.py: _joined)
  auto add = [&](const Coll& part) {
    read += (i64)part.size();
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
      charge_passes(pn, items.size());
      for (size_t j = 0; j < items.size(); j++) {
        st.regs[pn.p[1]] = Val::scalar(items[j]);
        const Coll& group = evr(st, body, lent_scratch.item);
        charge_group(pn, group.size());
        add(group);
      }
    } else {
      std::vector<Coll> groups;
      evcc(st, part, groups);
      for (const Coll& g : groups) add(g);
    }
  }
  charge(read, n.span, "(union ...)");
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
        const Coll& group = evr(st, body, scratch);
        charge_group(n, group.size());  // before it is copied
        out.push_back(group);
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
      charge((i64)cards.size(), n.span, "(partition ...)");
      // groups in first-seen order, found by their value in a hash table (a scan of the
      // groups made each card cost as many steps as there were values)
      std::map<std::pair<int, i64>, size_t> group_of;
      for (i64 c : cards) {
        bool found;
        Typed t = attribute(st, c, (i32)key, found);
        if (!found) t = Typed{1, P.empty_string};
        auto at = group_of.emplace(std::make_pair(t.tag, t.v), out.size());
        if (at.second) out.emplace_back();
        out[at.first->second].push_back(c);
      }
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

}  // namespace cardlang
