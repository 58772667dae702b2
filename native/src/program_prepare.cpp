// The program's preparation (program.h: Program::prepare), once the IR is read
// (ir_loader.cpp) and before any game: the blocks' items, the registers a choice binds,
// and the VM's own optimisations, each marking nodes for a faster path with the same
// results: the guards a listing shares (MEMO, memo slots), the hot paths of the
// commonest expressions (Hot), the filters' tests of a card's type alone (type tests),
// the moves of a (repeat ...) whose locations stay put (STEADY_MOVE), the calls whose
// arguments are scalars (SCALAR_CALL).  No Python twin but the blocks
// (compiler/control_flow.py: block): the Python engine compiles to Python functions
// instead.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "program.h"

namespace cardlang {

// ---------------------------------------------------------------- the pass

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

// ---------------------------------------------------------------- blocks and bindings

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
    case O_CONNECTS:
    case O_SORT:
    case O_RUNEND:
    case O_SETOP:
    case O_PARTITION:
    case O_SUM:
    case O_TOTAL:
    case O_SCOREEXT:
    case O_TOPN:
      return false;
    case O_CONTAINS:
      if (nodes[kids[n.kid0]].op != O_ATTR && nodes[kids[n.kid0]].op != O_STRLIST) return false;
      break;
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

// ---------------------------------------------------------------- the fast paths
// the moves, the type tests, the calls and the hot paths that vm.h's fast paths run

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
