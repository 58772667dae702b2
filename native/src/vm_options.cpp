// The VM's listing of options (vm.h): legal_options lists a decision's options once
// (list_options, kept on the state until the decision is made) by expanding each branch
// of the choice into its options, step by step (expand, proceed, materialize), with the
// shared guards' values (Program::memo_slot) kept for the listing; the secret picks of a
// (simultaneous ...) block are listed here too.  The Python twin: compiler/choices.py
// (the expanders), engine/control.py (list_options), engine/picks.py (the picks).
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "vm_internal.h"

namespace cardlang {

// ---------------------------------------------------------------- a decision's options
// engine/gamemaster.py: Gamemaster.legal_options

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
  i64 open_passes = 0;  // the loop passes on the option's path (VM::open_passes)
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

// a loop of `times` passes, or a do of `times` parts, in an option: each stays on the
// stack until the option is complete (the rest of the option is listed inside it), so
// an option runs at most max_option_passes of them in all (engine/runtime.py:
// option_passes); the caller takes them off again when its listing returns
void VM::open_passes(Lister& L, i64 times, i32 span, const char* what) {
  i64 total = L.open_passes + times;
  if (total > P.limits.max_option_passes)
    throw RuleErr{std::string(what) + " would make this option run " + str(total) +
                      " loop passes and sequence parts: an option of a choice runs at most " +
                      str(P.limits.max_option_passes),
                  span};
  L.open_passes = total;
}

static bool repeats_with_decision(const Node& n) {
  return (n.flags & HAS_DECISION) && (n.op == O_REPEAT || (n.op == O_FOREACH && n.p[0] == 1));
}

// the steps of a FIXED statement (compiler/ir.py: _is_fixed), in order: a do's parts',
// each other part one step (an action, or a statement entered after them), as the Python
// engine's fixed_steps (compiler/choices.py); no recursion per part, only per do nested
void VM::push_fixed(Lister& L, i32 ni) {
  const Node& n = nd(ni);
  if (n.op == O_DO && !repeats_with_decision(n)) {
    for (int i = 0; i < n.nkids; i++) push_fixed(L, kd(n, i));
    return;
  }
  L.steps.push_back(Step::action(ni));
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
      charge_passes(n, items.size());  // as the statement's (all ...)
      open_passes(L, (i64)items.size(), n.span, "(all ...)");
      Cont every{Cont::EVERY, k, ni, 0, 0, 0, &items};
      proceed(L, st, applied, &every);
      L.open_passes -= (i64)items.size();
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
      if (n.flags & FIXED) {  // actions alone, nested: their steps in one go, as Python's
        size_t before = L.steps.size();
        push_fixed(L, ni);
        proceed(L, st, applied, k);
        L.steps.pop(L.steps.size() - before);
        return;
      }
      // each part lists the rest of the option inside itself: they count as passes
      open_passes(L, n.nkids, n.span, "(do ...)");
      Cont seq{Cont::SEQ, k, ni, 0, 0, n.nkids, nullptr};
      proceed(L, st, applied, &seq);
      L.open_passes -= n.nkids;
      return;
    }
    case O_REPEAT: {
      i32 body = kd(n, 1);
      i64 count;
      if (n.p[0]) {  // a literal count: no state to read it from
        count = nd(kd(n, 0)).p[0];
      } else {
        st = materialize(L, st, applied);
        count = ev(*st, kd(n, 0));
      }
      i64 times = repeat_count(count, n.span, P.limits);
      charge(times, n.span, "(repeat ...)");
      open_passes(L, times, n.span, "(repeat ...)");
      Cont rep{Cont::REPEAT, k, body, 0, 0, times, nullptr};
      proceed(L, st, applied, &rep);
      L.open_passes -= times;
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

}  // namespace cardlang
