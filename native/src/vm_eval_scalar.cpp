// The scalar expressions that ev_hot's fast paths leave to the general evaluator:
// ev_node, a dispatch by op family, and the families of places, players and teams,
// cards, numbers and conditions (those that measure a collection are in
// vm_eval_measure.cpp).  Each family is a function of its own, called from ev_node's
// switch as a tail call (the same arguments), so that an op pays for its own family's
// frame rather than for one frame large enough for every op.  (Measured: the families
// inlined back into ev_node, always_inline, ran more instructions, not fewer.)
// The Python twin: compiler/expressions.py, with engine/runtime.py doing the work.
#include "vm_internal.h"

namespace cardlang {

// The largest n whose Fibonacci number fits in 64 bits (runtime.py MAX_FIB).
static const i64 MAX_FIB = 92;

__attribute__((noinline)) i64 VM::ev_node(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
    // values: constants and registers (ev's own leaves, met here through a listing's
    // shared value), and the game as an owner
    case O_INT:
    case O_STR:
      return n.p[0];
    case O_REG:
      return st.regs[n.p[0]].i;
    case O_GAME:
      return -1;
    case O_LOCATION:
    case O_STORAGE:
      return ev_place(st, ni);
    case O_PLAYER:
    case O_TEAM:
    case O_OWNER:
    case O_TEAMOF:
      return ev_seat(st, ni);
    case O_CARDAT:
    case O_ATTR:
    case O_CARDATT:
      return ev_card(st, ni);
    case O_ARITH:
    case O_UNARY:
    case O_RANDOM:
      return ev_number(st, ni);
    case O_IF:
    case O_COMPARE:
    case O_AND:
    case O_OR:
    case O_NOT:
      return ev_condition(st, ni);
    case O_MAXMIN:
    case O_SCOREEXT:
    case O_SUM:
    case O_SCORE:
    case O_TOTAL:
      return ev_score(st, ni);
    case O_SIZE:
    case O_CONTAINS:
    case O_AGGREGATE:
      return ev_collection(st, ni);
    case O_CONNECTS:
    case O_LONGEST:
      return ev_route(st, ni);
    default:
      not_a_scalar(n);
  }
}

void VM::not_a_scalar(const Node& n) const {
  error("internal: not a scalar expression (op " + str(n.op) + ")", n.span);
}

// (location OWNER 'NAME [INDEX]) as its key; (storage OWNER 'NAME) as its value
i64 VM::ev_place(State& st, i32 ni) {
  const Node& n = nd(ni);
  if (n.op == O_LOCATION) return loc_key(st, ni);
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

// (current|next|previous player), (player N), the same of teams, (owner CARD), (team-of P)
i64 VM::ev_seat(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
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
    default:
      not_a_scalar(n);
  }
}

// (top|bottom|nth ...) of a location or collection, (attr NAME CARD), (cardatt KEY CARD)
i64 VM::ev_card(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
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
    case O_ATTR:
      return attr_value(st, n).v;
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
    default:
      not_a_scalar(n);
  }
}

// (+ - * // % ^ ...), (tri N), (fib N), (random LO .. HI): checked 64-bit integers, as
// runtime.py's _add, _sub, _mul, _power, _divide, _tri, _fib
i64 VM::ev_number(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
    case O_ARITH: {
      if (n.nkids > 2) return arith_all(st, n);
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
    case O_RANDOM: {
      i64 lo = ev(st, kd(n, 0)), hi = ev(st, kd(n, 1));
      if (hi < lo) error("(random " + str(lo) + " .. " + str(hi) + ") is an empty range", n.span);
      // the span in unsigned arithmetic: hi - lo may not fit an i64; the whole 64-bit
      // range wraps to 0, where Python's (z * 2^64) >> 64 is the draw z itself
      uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
      uint64_t offset = span ? (uint64_t)rand_below(st, span) : splitmix_next(st.rng);
      return (i64)((uint64_t)lo + offset);
    }
    default:
      not_a_scalar(n);
  }
}

// (+ A B C ...) and (* A B C ...): every operand first, then the exact result of the
// whole form, checked once (runtime.py: _add_all, _mul_all)
i64 VM::arith_all(State& st, const Node& n) {
  Lent<Coll> lent_(colls);
  Coll& values = lent_.item;
  for (int i = 0; i < n.nkids; i++) values.push_back(ev(st, kd(n, i)));
  const __int128 limit = (__int128)1 << 63;
  bool sum = n.p[0] == 0;
  bool zero = !sum && std::find(values.begin(), values.end(), 0) != values.end();
  __int128 r = sum || zero ? 0 : 1;
  for (size_t i = 0; i < values.size() && !zero; i++) {
    if (sum) {
      r += values[i];  // at most 2^63 per operand: far from the __int128 edge
    } else {
      if (r > limit || r < -limit) break;  // |r| only grows: outside whatever follows
      r *= values[i];
    }
  }
  if (r < INT64_MIN || r > INT64_MAX) {
    std::string text = n.p[0] == 0 ? "(+" : "(*";
    for (i64 v : values) text += " " + str(v);
    overflow(text + ")", n.span);
  }
  return (i64)r;
}

// (if C A B), (== A B) and the other comparisons, (and ...), (or ...), (not A): the
// operands evaluated only as far as Python's short-circuiting goes
i64 VM::ev_condition(State& st, i32 ni) {
  const Node& n = nd(ni);
  switch (n.op) {
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
    default:
      not_a_scalar(n);
  }
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

}  // namespace cardlang
