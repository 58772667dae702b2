// ev_node's families that measure a collection (vm_eval_scalar.cpp has the dispatch and
// the others): scores and point maps over cards, a collection's size, membership and
// quantifiers, and the route maps of (connects ...) and (longest-path ...).  Each charges
// the work budget for the elements it passes, as engine/runtime.py does.
// The Python twin: compiler/expressions.py, with engine/runtime.py and
// engine/collections.py doing the work.
#include "vm_internal.h"

namespace cardlang {

// (max|min COLL POINTS), (scoremax|scoremin COLL POINTS), (sum COLL POINTS),
// (score CARD POINTS), (total NAME COLL)
i64 VM::ev_score(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
    case O_MAXMIN: {
      // engine/runtime.py: _best (ties drawn uniformly from the game's RNG)
      Lent<Coll> lent_(colls), lent_copy(colls), lent_scores(colls), lent_tied(colls);
      const Coll& cards = evr(st, kd(n, 0), lent_.item);
      i64 pm = ev(st, kd(n, 1));
      charge((i64)cards.size(), n.span, n.p[0] ? "(max ...)" : "(min ...)");
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
    case O_SCOREEXT: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& cards = evr(st, kd(n, 0), scratch);
      i64 pm = ev(st, kd(n, 1));
      charge((i64)cards.size(), n.span, n.p[0] ? "(scoremax ...)" : "(scoremin ...)");
      if (cards.empty()) return n.p[0] ? -1 : 2147483647;
      i64 best = n.p[0] ? INT64_MIN : INT64_MAX;
      for (i64 c : cards) {
        i64 s = score(pm, c, st);
        best = n.p[0] ? std::max(best, s) : std::min(best, s);
      }
      return best;
    }
    case O_SUM: {
      Lent<Coll> lent_(colls), lent_copy(colls);
      const Coll& cards = evr(st, kd(n, 0), lent_.item);
      Coll& copy = lent_copy.item;
      copy.assign(cards.begin(), cards.end());
      i64 pm = ev(st, kd(n, 1));
      charge((i64)copy.size(), n.span, "(sum ...)");
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
    case O_TOTAL: {
      Lent<Coll> lent_(colls);
      Coll& scratch = lent_.item;
      const Coll& cards = evr(st, kd(n, 0), scratch);
      charge((i64)cards.size(), n.span, "(total ...)");
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
    default:
      not_a_scalar(n);
  }
}

// (size COLL), (contains COLL X), (any|all COLL 'V BOOL)
i64 VM::ev_collection(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
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
      if (cn.op != O_STRLIST) charge((i64)copy.size(), n.span, "(contains ...)");
      return std::find(copy.begin(), copy.end(), v) != copy.end();
    }
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
      not_a_scalar(n);
  }
}

// engine/collections.py: routes.  The cards of a (connects ...) or (longest-path ...)
// node (its first child; p0, p1 the ends' attributes, p2 the length's, for LONGEST) as
// routes; a card that lacks an end is no route.
void VM::routes(State& st, const Node& n, std::vector<Route>& out) {
  Lent<Coll> lent_(colls);
  const Coll& cards = evr(st, kd(n, 0), lent_.item);
  bool lengths = n.op == O_LONGEST;
  charge((i64)cards.size(), n.span, lengths ? "(longest-path ...)" : "(connects ...)");
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

// (connects COLL X Y), (longest-path COLL)
i64 VM::ev_route(State& st, i32 ni) {
  const Node& n = nd(ni);
  std::vector<Route> edges;
  routes(st, n, edges);
  if (n.op == O_CONNECTS) {
    // the collection, then X, then Y, as the Python engine's call evaluates them
    i64 x = ev(st, kd(n, 1));
    i64 y = ev(st, kd(n, 2));
    return connected(edges, x, y);
  }
  // one unit per route the search takes (collections.py: longest_trail)
  TrailSearch search(edges, room());
  try {
    __int128 best = search.longest();
    charge(search.taken(), n.span, "(longest-path ...)");
    if (best < INT64_MIN || best > INT64_MAX) overflow("(longest-path ...)", n.span);
    return (i64)best;
  } catch (const TrailSearch::OverBudget&) {
    over_room(n.span, "(longest-path ...)");
  }
}

}  // namespace cardlang
