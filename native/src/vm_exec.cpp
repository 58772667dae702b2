// The VM's statements and flow (vm.h): exec runs a statement with no decision whole,
// enter starts one that reaches a decision (a frame on the state's stack), run_flow takes
// the frames on until the next decision, and new_game, apply and play are the engine
// protocol's moves; stages, turns, procedure calls, the secret picks' reveal and the
// end of a game (scores, failure, cutoff) are here too.  The Python twin:
// compiler/statements.py with compiler/moves.py, board.py and control_flow.py (the
// statements), engine/control.py and engine/frames.py (the frames), and
// engine/gamemaster.py (the flow).
#include <algorithm>
#include <memory>
#include <new>
#include <stdexcept>
#include <unordered_set>

#include "vm_internal.h"

namespace cardlang {

// a frame's current player or team (S_CUR), and with a player its current player
static void set_current(Frame& f, i64 value) {
  f.f[S_CUR] = value;
  if (!f.f[S_TEAM]) f.f[S_PLAYER] = value;
}

// ---------------------------------------------------------------- randomness
// engine/state.py: shuffle_in_place (splitmix64 is inline in vm.h)

void shuffle_in_place(uint64_t& rng, Coll& items) {
  for (size_t i = items.size(); i-- > 1;) {
    uint64_t z = splitmix_next(rng);
    size_t j = (size_t)(((unsigned __int128)z * (i + 1)) >> 64);
    std::swap(items[i], items[j]);
  }
}

// ---------------------------------------------------------------- statements

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
  // runtime.py: reference_room -- a reference costs memory as a card does, and a game may
  // have many mem locations, so the bound is the game's: cards and references together
  i64 held = (i64)st.card_type.size();
  if (held + st.refs >= P.limits.max_cards)
    error("the game holds " + str(held) + " cards and " + str(st.refs) +
              " references: no more may be remembered (a game holds at most " +
              str(P.limits.max_cards) + " cards and references together)",
          n.span);
  charge(1, n.span, "(remember ...)");
  i64 at;
  place(st, n, dz, c, at);
  st.refs++;
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
// and references together
static void card_room(const State& st, i64 made, i32 span, const Limits& lim) {
  i64 held = (i64)st.card_type.size();
  if (made > lim.max_cards - held - st.refs) {
    // runtime._held: references are named only when the game holds some
    std::string holds = st.refs ? str(held) + " cards and " + str(st.refs) + " references"
                                : str(held);
    throw RuleErr{"this creates " + str(made) + " cards and the game holds " + holds +
                      ": more than a game may hold (" + str(lim.max_cards) + " cards" +
                      (st.refs ? ", references included)" : ")"),
                  span};
  }
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
    charge_passes(n, items.size());
    for (i64 e : items) {
      bind_scalar(st, n.p[1], e);
      exec(st, body);
    }
    return;
  }
  Lent<std::vector<Val>> lent(vals);
  std::vector<Val>& items = lent.item;
  elements(st, coll, items);
  charge_passes(n, items.size());
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
      charge((i64)z.size(), n.span, "(forget ...)");  // the search below
      for (size_t i = z.size(); i-- > 0;)
        if (z[i] == c) {
          z.erase(z.begin() + i);
          st.refs--;
          return;
        }
      return;
    }
    case O_SHUFFLE: {
      i32 k = loc_key(st, kd(n, 0));
      if (k >= (i32)st.zones.size() || st.zones[k].empty()) return;
      charge((i64)st.zones[k].size(), n.span, "(shuffle ...)");
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
      charge(times, n.span, "(repeat ...)");  // its passes, before the first
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
      charge(times, n.span, "(repeat ...)");
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
        charge(1, n.span, "(while ...)");  // nested loops could otherwise run 10^12 passes
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
  OpenBudget budget(*this, limits, st);
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
  if (!record && setup_prefix_ && setup_prefix_work_ <= limits.max_work &&
      setup_prefix_work_ <= limits.max_game_work) {
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
  } catch (const std::bad_alloc&) {
    if (!record) setup_probed_ = true;
    fail(st, out_of_memory());
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
  if (st.tallying && choice >= 0) tally_pick(st, choice, mover, option);  // before it runs
  st.pending = -1;
  st.options.reset();
  st.mover = -1;
  st.decisions++;
  st.steps = 0;
  {
    // the budget is closed before the cut-off below, whose scores are not the game's
    // work (gamemaster.py: apply)
    OpenBudget budget(*this, limits, st);
    if (choice >= 0 && nd(choice).p[2]) {
      keep_pick(st, mover, choice, option);  // unseen and unrun until its block is done
    } else {
      try {
        run_option(st, option);
      } catch (const RuleErr& err) {
        fail(st, err);
        return;
      } catch (const std::bad_alloc&) {
        fail(st, out_of_memory());
        return;
      }
    }
    recycle(std::move(options));
    advance(st, limits);
  }
  if (st.status == RUNNING && st.decisions >= limits.max_decisions) cutoff(st, "decisions");
}


void VM::tally_pick(State& st, i32 choice, i32 mover, OptionRef option) const {
  i64 card = option_card(st, option);
  if (card == NO_CARD) return;
  i32 situation = (i32)nd(choice).p[0], type = st.card_type[(size_t)card];
  for (PickTally& t : st.tally)
    if (t.seat == mover && t.situation == situation && t.card_type == type) {
      t.count++;
      return;
    }
  if (st.tally.empty()) st.tally.reserve(32);  // a game's counts are few: grown once
  st.tally.push_back(PickTally{mover, situation, type, 1, st.turns});
}

i64 VM::option_card(const State& st, OptionRef option) const {
  for (const Step& s : option) {
    if (s.slot < 0 || s.held >= 0 || s.is_none) continue;  // an action, or no scalar
    int type = P.slot_types[s.slot];
    if (type == T_LOC || type == T_MEMLOC) {
      const Coll& z = st.zone((i32)s.i);
      if (!z.empty()) return z.back();
    } else if (type == T_CARD && s.i >= 0) {
      return s.i;
    }
  }
  return NO_CARD;
}

void VM::advance(State& st, const EngineLimits& limits) {
  try {
    run_flow(st, limits);
    if (st.pending >= 0 && st.status == RUNNING) {
      check_game_work(st, limits);
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
  } catch (const std::bad_alloc&) {
    fail(st, out_of_memory());
  }
}

void VM::check_game_work(const State& st, const EngineLimits& limits) const {
  // work.py: check_game_work -- the steps' work, counted as they run, checked here
  if (st.work > limits.max_game_work)
    error("the game's work passes its budget of " + str(limits.max_game_work) +
              " units before this decision (--max-game-work)",
          nd(st.pending).span);
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
        st.work++;
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
        st.work++;
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
        st.work++;
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

RuleErr out_of_memory() {
  // work.py: OUT_OF_MEMORY -- what the budgets did not stop (the machine's memory is
  // smaller than what they allow) fails the game, not the program
  return RuleErr{"the game ran out of memory: a smaller --max-work or --max-game-work "
                 "stops it sooner",
                 -1};
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

}  // namespace cardlang
