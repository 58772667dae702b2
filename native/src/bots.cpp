// The scripted Dominion bots inside the engine (bots.h): agents/scripted/dominion.py's
// DominionBot, handler for handler.  Read that file for what each handler means; this
// one only says where it differs in form.
#include "bots.h"

#include <cmath>
#include <cstring>

namespace cardlang {

// What the deciding player knows (dominion.py: Facts), computed on first use.
struct DominionBot::Facts {
  DominionBot& bot;
  const State& st;
  int me;
  bool owned_done = false;
  double money = 0, treasures = 0, cards = 0;

  i64 storage(i32 name) const {
    i32 k = -1;
    auto it = bot.P.storage_ids.find((i64)me * 4294967296LL + (i64)(uint32_t)name);
    if (it != bot.P.storage_ids.end()) k = it->second;
    return st.ints.get(k, 0);
  }
  void owned() {
    if (owned_done) return;
    owned_done = true;
    for (const auto& kt : bot.P.kind_types) {
      const CardType& t = bot.P.card_types[kt.second];
      double n = (double)storage(kt.first);
      bool treasure = false;
      if ((size_t)bot.s_types < t.by_name.size() && t.by_name[bot.s_types].tag == 2)
        for (i64 s : bot.P.lists[t.by_name[bot.s_types].v])
          if (s == bot.s_treasure) treasure = true;
      i64 coins = ((size_t)bot.s_coins < t.by_name.size() && t.by_name[bot.s_coins].tag == 0)
                      ? t.by_name[bot.s_coins].v
                      : 0;
      if (treasure) {
        money += (double)coins * n;
        treasures += n;
      }
      cards += n;
    }
  }
  double left(i32 kind) const {
    for (const auto& p : bot.piles)
      if (p.second == kind) return (double)st.zone(p.first).size();
    return 0;
  }
  double fact(int which) {
    switch (which) {
      case 0: owned(); return money;
      case 1: owned(); return treasures;
      case 2: owned(); return cards;
      case 3: return (double)storage(bot.s_coins);
      case 4: return (double)storage(bot.s_buys);
      case 5: return (double)storage(bot.s_actions);
      case 6: return (double)storage(bot.s_turns);
      case 7: return (double)st.nplayers;
      default: {  // empty_piles
        double n = 0;
        for (const auto& p : bot.piles)
          if (st.zone(p.first).empty()) n++;
        return n;
      }
    }
  }
};

DominionBot::DominionBot(Program& program, std::vector<BuyRule> buy, std::vector<i32> play)
    : P(program), buy_rules(std::move(buy)), play_order(std::move(play)) {
  s_types = P.intern("TYPES");
  s_coins = P.intern("COINS");
  s_cost = P.intern("COST");
  s_curse = P.intern("CURSE");
  s_victory = P.intern("VICTORY");
  s_treasure = P.intern("TREASURE");
  s_action = P.intern("ACTION");
  s_throne = P.intern("THRONE-ROOM");
  s_copper = P.intern("COPPER");
  s_silver = P.intern("SILVER");
  s_estate = P.intern("ESTATE");
  s_buys = P.intern("BUYS");
  s_actions = P.intern("ACTIONS");
  s_turns = P.intern("TURNS");
}

void DominionBot::remember_piles(const State& st) {
  // _remember_piles: which kind each Supply pile holds, learnt once some pile is seen
  if (!piles.empty()) return;
  for (i32 key : st.zone_order) {
    const ZoneKey& k = P.keys[key];
    const std::string& name = P.strings[k.name];
    if (k.owner != -1 || name.compare(0, 6, "SUPPLY") != 0) continue;
    const Coll& z = st.zone(key);
    if (z.empty() || !seat_sees(P, key, -1)) continue;
    i32 kind = P.card_types[st.card_type[z.back()]].kind;
    if (kind >= 0) piles.push_back({key, kind});
  }
}

const std::vector<DominionBot::Opt>& DominionBot::describe(VM& vm, const State& st,
                                                           const OptionList& options, int seat) {
  // views.py: option_kinds and OptionView (the first bound card the chooser sees)
  Lent<Coll> lent_seen(vm.colls);
  Coll& seen = lent_seen.item;
  vm.first_seen_cards(st, options, seat, seen);
  std::vector<Opt>& out = described;  // kept: a decision's list, without an allocation
  out.assign(options.size(), Opt{});
  for (size_t i = 0; i < options.size(); i++) {
    Opt& o = out[i];
    o.branch = options.branches[i];
    o.card = seen[i];
    if (o.card >= 0) o.kind = P.card_types[st.card_type[o.card]].kind;
  }
  return out;
}

bool DominionBot::is_a(const State& st, i64 card, i32 type) const {
  if (card < 0) return false;
  const CardType& t = P.card_types[st.card_type[card]];
  if ((size_t)s_types >= t.by_name.size() || t.by_name[s_types].tag != 2) return false;
  for (i64 s : P.lists[t.by_name[s_types].v])
    if (s == type) return true;
  return false;
}

i64 DominionBot::attr_int(const State& st, i64 card, i32 name) const {
  const CardType& t = P.card_types[st.card_type[card]];
  if ((size_t)name < t.by_name.size() && t.by_name[name].tag == 0) return t.by_name[name].v;
  return 0;
}

double DominionBot::keep_value(const State& st, i64 card) const {
  if (card < 0) return 0.0;
  if (is_a(st, card, s_curse)) return -2.0;
  if (is_a(st, card, s_victory) && !is_a(st, card, s_treasure) && !is_a(st, card, s_action))
    return -1.0;
  if (is_a(st, card, s_treasure)) return 1.5 * (double)attr_int(st, card, s_coins);
  return (double)attr_int(st, card, s_cost);
}

double DominionBot::trash_value(const State& st, i64 card) const {
  if (card < 0) return 0.0;
  return is_a(st, card, s_curse) ? -1.0 : (double)attr_int(st, card, s_cost);
}

size_t DominionBot::decline(const std::vector<Opt>& opts) const {
  for (size_t i = 0; i < opts.size(); i++)
    if (opts[i].kind < 0) return i;
  return 0;
}

int DominionBot::find_kind(const std::vector<Opt>& opts, i32 kind) const {
  for (size_t i = 0; i < opts.size(); i++)
    if (opts[i].kind == kind) return (int)i;
  return -1;
}

double DominionBot::eval(const std::vector<Cond>& cond, int i, Facts& facts) {
  const Cond& c = cond[i];
  switch (c.op) {
    case COND_CONST:
      return c.value;
    case COND_VAR:
      return facts.fact(c.arg);
    case COND_CALL:
      return c.arg == 0 ? (double)facts.storage(c.card) : facts.left(c.card);
    case COND_NOT:
      return eval(cond, c.kids[0], facts) == 0 ? 1 : 0;
    case COND_NEG:
      return -eval(cond, c.kids[0], facts);
    case COND_AND:
      for (int k : c.kids)
        if (eval(cond, k, facts) == 0) return 0;
      return 1;
    case COND_OR:
      for (int k : c.kids)
        if (eval(cond, k, facts) != 0) return 1;
      return 0;
    case COND_BIN: {
      double a = eval(cond, c.kids[0], facts), b = eval(cond, c.kids[1], facts);
      switch (c.arg) {
        case 0: return a + b;
        case 1: return a - b;
        case 2: return a * b;
        case 3: return a / b;
        case 4: return std::floor(a / b);
        default: return a - b * std::floor(a / b);  // Python's %
      }
    }
    default: {  // COND_CMP: a chain, each operator in turn (kids: first, then one per op)
      double left = eval(cond, c.kids[0], facts);
      int ops = c.arg;
      for (size_t k = 1; k < c.kids.size(); k++) {
        double right = eval(cond, c.kids[k], facts);
        int op = ops % 8;
        ops /= 8;
        bool ok = op == 0 ? left < right
                  : op == 1 ? left <= right
                  : op == 2 ? left > right
                  : op == 3 ? left >= right
                  : op == 4 ? left == right
                            : left != right;
        if (!ok) return 0;
        left = right;
      }
      return 1;
    }
  }
}

int DominionBot::by_rules(const std::vector<Opt>& opts, Facts& facts) {
  for (const BuyRule& rule : buy_rules) {
    int at = find_kind(opts, rule.card);
    if (at < 0) continue;
    if (rule.cond.empty() || eval(rule.cond, (int)rule.cond.size() - 1, facts) != 0) return at;
  }
  return -1;
}

template <typename F>
static size_t best(size_t n, F score) {
  // _best: the highest score, the first on ties
  size_t found = 0;
  bool any = false;
  double top = 0;
  for (size_t i = 0; i < n; i++) {
    double s = score(i);
    if (!any || s > top) {
      found = i;
      top = s;
      any = true;
    }
  }
  return found;
}

size_t DominionBot::choose(VM& vm, State& st, const OptionList& options) {
  remember_piles(st);
  int seat = st.mover;
  const std::vector<Opt>& opts = describe(vm, st, options, seat);
  Facts facts{*this, st, seat};
  const std::string& situation = P.strings[P.node(st.pending).p[0]];
  auto card = [&](size_t i) { return opts[i].card; };

  if (situation == "ACTION-PHASE" || situation == "THRONE-ROOM-PLAY") {  // play_action
    for (i32 wanted : play_order) {
      int at = find_kind(opts, wanted);
      if (at >= 0) return (size_t)at;
    }
    int found = -1;
    std::pair<int, i64> top{0, 0};
    for (size_t i = 0; i < opts.size(); i++) {
      if (opts[i].card < 0) continue;
      std::pair<int, i64> rank{opts[i].kind != s_throne, attr_int(st, opts[i].card, s_cost)};
      if (found < 0 || rank > top) {
        found = (int)i;
        top = rank;
      }
    }
    return found >= 0 ? (size_t)found : decline(opts);
  }
  if (situation == "BUY-PHASE") {
    int at = by_rules(opts, facts);
    return at >= 0 ? (size_t)at : decline(opts);
  }
  if (situation == "WORKSHOP-GAIN" || situation == "REMODEL-GAIN" ||
      situation == "ARTISAN-GAIN" || situation == "MINE-GAIN") {  // gain, remodel_gain
    int at = by_rules(opts, facts);
    if (at >= 0) return (size_t)at;
    bool remodel = situation == "REMODEL-GAIN";  // remodel_gain_value: scoring cards last
    return best(opts.size(), [&](size_t i) {
      double penalty = remodel && keep_value(st, card(i)) < 0 ? 100.0 : 0.0;
      return trash_value(st, card(i)) - penalty;
    });
  }
  if (situation == "MILITIA-DISCARD" || situation == "POACHER-DISCARD" ||
      situation == "BUREAUCRAT-TOPDECK" || situation == "SENTRY-ORDER")  // discard_worst
    return best(opts.size(), [&](size_t i) { return -keep_value(st, card(i)); });
  if (situation == "CELLAR-DISCARD") {  // discard_junk
    for (size_t i = 0; i < opts.size(); i++)
      if (keep_value(st, card(i)) < 0) return i;
    return decline(opts);
  }
  if (situation == "CHAPEL-TRASH") {  // trash_junk
    for (i32 wanted : {s_curse, s_estate}) {
      int at = find_kind(opts, wanted);
      if (at >= 0) return (size_t)at;
    }
    return decline(opts);
  }
  if (situation == "REMODEL-TRASH")  // remodel_trash
    for (i32 wanted : {s_curse, s_estate, s_copper}) {
      int at = find_kind(opts, wanted);
      if (at >= 0) return (size_t)at;
    }
  if (situation == "REMODEL-TRASH" || situation == "BANDIT-TRASH")  // trash_cheapest
    return best(opts.size(), [&](size_t i) { return -trash_value(st, card(i)); });
  if (situation == "MINE-TRASH") {  // mine_trash
    for (i32 wanted : {s_copper, s_silver}) {
      int at = find_kind(opts, wanted);
      if (at >= 0) return (size_t)at;
    }
    return decline(opts);
  }
  if (situation == "MONEYLENDER-TRASH" || situation == "MOAT-REVEAL" ||
      situation == "VASSAL-PLAY") {  // accept
    for (size_t i = 0; i < opts.size(); i++)
      if (opts[i].branch == 0) return i;
    return 0;
  }
  if (situation == "HARBINGER-TOPDECK") {  // harbinger
    size_t b = best(opts.size(), [&](size_t i) { return keep_value(st, card(i)); });
    return keep_value(st, card(b)) >= 3 ? b : decline(opts);
  }
  if (situation == "LIBRARY-SKIP") {  // library
    int wanted = facts.fact(5) == 0 ? 0 : 1;
    for (size_t i = 0; i < opts.size(); i++)
      if (opts[i].branch == wanted) return i;
    return 0;
  }
  if (situation == "SENTRY-SORT") {  // sentry_sort: 0 trash, 1 discard, 2 keep
    for (size_t i = 0; i < opts.size(); i++) {
      int fate = 2;
      i32 k = opts[i].kind;
      if (k == s_curse || k == s_estate || k == s_copper)
        fate = 0;
      else if (keep_value(st, card(i)) < 0)
        fate = 1;
      if (opts[i].branch == fate) return i;
    }
    return 0;
  }
  if (situation == "ARTISAN-TOPDECK")  // artisan_topdeck
    return best(opts.size(), [&](size_t i) {
      i64 c = card(i);
      if (is_a(st, c, s_action)) return 100 + keep_value(st, c);
      if (is_a(st, c, s_treasure)) return 50 - keep_value(st, c);
      return keep_value(st, c);
    });
  // first: no rule covers the decision: decline where an option binds no card, else
  // give up the least valuable card (dominion.py: first)
  for (size_t i = 0; i < opts.size(); i++)
    if (opts[i].kind < 0) return i;
  return best(opts.size(), [&](size_t i) { return -trash_value(st, card(i)); });
}

}  // namespace cardlang
