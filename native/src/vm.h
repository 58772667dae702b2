// The VM: runs a program (program.h) on states (state.h) with the Python engine's
// behaviour, step for step: the same event log, the same options in the same order, the
// same random draws and the same rule errors.  Each function says which Python code it
// mirrors; read that code for the why.  Its definitions, by job: vm_eval.cpp (the
// expressions: ev's fast paths, the collections), vm_eval_scalar.cpp and
// vm_eval_measure.cpp (ev_node: the other scalar expressions, by op family), vm_exec.cpp
// (the statements and the flow), vm_options.cpp (the listing of options), vm_labels.cpp
// (labels and names); vm_internal.h holds the helpers they share, and
// program_prepare.cpp the program's preparation (Program::prepare).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graphs.h"
#include "program.h"
#include "state.h"

namespace cardlang {

struct EngineLimits {
  i64 max_decisions = 5000;
  i64 max_steps = 200000;
  i64 max_work = DEFAULT_MAX_WORK;
  i64 max_game_work = DEFAULT_MAX_GAME_WORK;
};

// information/visibility.py: can_see -- whether a seat sees a location's contents
inline bool seat_sees(const Program& P, i32 key, int seat) {
  const ZoneKey& k = P.keys[key];
  return k.kind == 0 || k.kind == 3 || (k.kind == 1 && k.owner == seat && seat >= 0);
}

// (top Z) / (bottom Z) of a location's cards: ``which`` 0 the top, 1 the bottom
inline i64 cap_card(const Coll& z, int which) {
  if (z.empty()) return NO_CARD;
  return which == 0 ? z.back() : z.front();
}

// a COMPARE node's operator (p0: ==, !=, <, <=, >, >=) on numbers
inline bool compare_numbers(i64 op, i64 a, i64 b) {
  switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

// on cards, by identity (== or !=): a missing card equals nothing
inline bool compare_cards(i64 op, i64 a, i64 b) {
  bool same = a != NO_CARD && a == b;
  return op == 0 ? same : !same;
}

// a register set to a single value (a card, a number...), as a Val assignment would
inline void bind_scalar(Val& r, i64 v) {
  r.i = v;
  r.is_none = false;
  if (r.list) r.list.reset();
  if (r.lists) r.lists.reset();
}

// An agent that decides inside the engine, so that a whole game (or a rollout) of such
// agents never returns to Python.  Each mirrors a Python agent choice for choice.
class NativeAgent {
 public:
  virtual ~NativeAgent() = default;
  // the index of the chosen option of the pending decision
  virtual size_t choose(class VM& vm, State& st, const OptionList& options) = 0;
  // become the agent a fresh Python agent made with this seed is (a batch reuses one
  // native agent per seat for all its games)
  virtual void start_game(uint64_t seed) = 0;
  // a copy of its own (each row of a lockstep batch plays its own: batch.h)
  virtual std::unique_ptr<NativeAgent> clone() const = 0;
};

// agents/random_agent.py: a uniformly random option from its own SplitMix64 stream
class RandomAgent : public NativeAgent {
 public:
  explicit RandomAgent(uint64_t seed) : state(seed) {}
  uint64_t state;
  size_t draw(size_t n);
  size_t choose(class VM& vm, State& st, const OptionList& options) override;
  void start_game(uint64_t seed) override { state = seed; }
  std::unique_ptr<NativeAgent> clone() const override {
    return std::make_unique<RandomAgent>(*this);
  }
};

// Scratch buffers lent for one evaluation and given back in reverse order (RAII), so
// that a filter or a procedure call reuses the capacity of an earlier one instead of
// allocating: the VM's hot paths make no allocation once play has warmed them up.
template <class T>
class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  __attribute__((always_inline)) T& borrow() {
    if (used_ == items_.size()) grow();
    T& item = *items_[used_++];
    item.clear();
    return item;
  }
  void give_back() { used_--; }

 private:
  __attribute__((noinline)) void grow() { items_.push_back(std::make_unique<T>()); }

  std::vector<std::unique_ptr<T>> items_;  // boxed: a lent buffer never moves
  size_t used_ = 0;
};

// Words a listing keeps aside (the registers it will put back), taken from one stack
// and given back in reverse order; unlike a lent vector they are not zeroed first.
struct WordStack {
  std::vector<i64> words;
  size_t top = 0;
};

struct Saved {
  Saved(WordStack& s, size_t n) : stack(s), base(s.top), count(n) {
    if (s.top + n > s.words.size()) s.words.resize(2 * (s.top + n));
    s.top += n;
  }
  ~Saved() { stack.top -= count; }
  Saved(const Saved&) = delete;
  Saved& operator=(const Saved&) = delete;
  // read again after anything that may take words itself (the stack may have grown)
  i64* words() const { return stack.words.data() + base; }
  WordStack& stack;
  size_t base, count;
};

template <class T>
struct Lent {
  explicit Lent(Pool<T>& p) : pool(p), item(p.borrow()) {}
  ~Lent() { pool.give_back(); }
  Lent(const Lent&) = delete;
  Lent& operator=(const Lent&) = delete;
  Pool<T>& pool;
  T& item;
};

class VM {
 public:
  explicit VM(Program& program) : P(program) { bind_tables(); }
  Program& P;
  // the program's node and kid tables, read at every node: held here so that a read is
  // one load, not two (the tables are complete before play and never grow)
  void bind_tables() {
    nodes_ = P.nodes.data();
    kids_ = P.kids.data();
    type_tests_.resize((size_t)P.n_type_tests);
  }
  const Node* nodes_ = nullptr;
  const i32* kids_ = nullptr;
  const Node& nd(i32 n) const { return nodes_[n]; }
  i32 kd(const Node& n, int i) const { return kids_[n.kid0 + i]; }
  Pool<Coll> colls;
  Pool<std::vector<Val>> vals;
  WordStack saved_;

  // ------------------------------------------------------------ the engine protocol
  // (engine/gamemaster.py: Gamemaster)
  State new_game(uint64_t rng, bool record, const EngineLimits& limits);
  const OptionList& legal_options(State& st);
  void apply(State& st, size_t index, const EngineLimits& limits);
  std::vector<std::vector<i64>> current_scores(State& st);
  // (table-score ...) per seat, as a table shows it (P.table_score must be a node)
  std::vector<i64> table_scores(State& st);
  // per seat, the (end-reason ...) conditions then the (score-part ...) values
  std::vector<std::vector<i64>> ending_values(State& st);
  std::string option_label(const State& st, OptionRef option) const;
  // engine/tally.py: count_pick -- the option, about to be played by the mover, counted
  // into st.tally (a state made to count: st.tallying)
  void tally_pick(State& st, i32 choice, i32 mover, OptionRef option) const;
  // engine/tally.py: option_card -- the first card the option binds, or the top card of
  // the first bound location that holds one; NO_CARD for neither
  i64 option_card(const State& st, OptionRef option) const;
  // play on while the mover's agent is native (not null), up to ``limit`` decisions in
  // all; how many decisions were taken
  i64 play(State& st, const std::vector<NativeAgent*>& seats, i64 limit,
           const EngineLimits& limits);

  // ------------------------------------------------------------ secret picks
  // engine/picks.py: what a determinization does with the running (simultaneous ...)
  // block's picks.  Listing a pick's options leaves the state as it was.
  void hide_picks(State& st, int seat) const;
  std::vector<size_t> blank_picks(const State& st) const;
  size_t pick_option_count(State& st, size_t k);
  void set_pick(State& st, size_t k, size_t index);

  // ------------------------------------------------------------ what a seat sees
  bool can_see(i32 key, int seat) const { return seat_sees(P, key, seat); }
  // information/views.py: option_kinds -- per option, the first bound card the seat
  // sees (a bound card, or a bound location's top card), -1 for none
  void first_seen_cards(const State& st, const OptionList& options, int seat,
                        std::vector<i64>& out) const;

  // ------------------------------------------------------------ names
  std::string card_label(const State& st, i64 card) const;
  std::string location_label(i32 key) const;
  std::string value_label(const State& st, const Val& v, int type) const;

  // ------------------------------------------------------------ expressions
  // an expression's scalar value: constants and registers here, the rest in ev_node
  // (most expressions evaluated are leaves, and this spares them a call)
  i64 ev(State& st, i32 ni) {
    const Node& n = nodes_[ni];
    if (n.op == O_REG) return st.regs[n.p[0]].i;
    if (n.op <= O_STR) return n.p[0];  // O_INT, O_STR
    return ev_hot(st, ni);
  }
  i64 ev_hot(State& st, i32 ni);
  i64 ev_memo(State& st, i32 ni);
  i64 ev_node(State& st, i32 n);
  const Coll& evr(State& st, i32 n, Coll& scratch);
  void evcc(State& st, i32 n, std::vector<Coll>& out);
  const Coll& card_union(State& st, const Node& n, Coll& out);
  void set_parts(State& st, const Node& n, std::vector<Coll>& groups);
  Val evv(State& st, i32 n);
  i32 loc_key(State& st, i32 n);
  i32 skey(State& st, i32 n);

 private:
  // flow
  void advance(State& st, const EngineLimits& limits);
  void run_flow(State& st, const EngineLimits& limits);
  void stage_pass(State& st, size_t frame);
  void reveal(State& st);
  void list_pick_options(State& st, size_t k, OptionList& out);
  void finish(State& st);
  void fail(State& st, const RuleErr& err);
  void cutoff(State& st, const char* which);
  void enter(State& st, i32 n);
  void exec(State& st, i32 n);
  void run_item(State& st, i32 block, i32 item);
  void call_enter(State& st, i32 n);
  void call_atomic(State& st, i32 n);
  i32 body_for(State& st, const Procedure& proc, const std::vector<Val>& args, i32 span);
  i32 body_of(State& st, const Procedure& proc, bool has_card, i64 card, i32 span);
  void call_args(State& st, const Node& n, const Procedure& proc, std::vector<Val>& args);
  void list_options(State& st, i32 choice, OptionList& out);
  std::shared_ptr<OptionList> fresh_options();
  void recycle(std::shared_ptr<const OptionList> options);
  std::shared_ptr<OptionList> spare_options_;  // a list no one holds, for the next one
  // The state after the setup's first statements that draw nothing from the RNG (the
  // same for every seed), which an unrecorded game starts from (new_game)
  bool setup_probed_ = false;
  std::unique_ptr<State> setup_prefix_;
  size_t setup_prefix_length_ = 0;
  i64 setup_prefix_work_ = 0;  // the work those statements were charged
  void keep_setup_prefix(State prefix, size_t length, i64 work);
  // the work budget of the running new_game or apply (charge)
  // and the game's account, the work of the state the call plays (State::work), which
  // states copied while it runs (a listing's) charge too (engine/work.py: WorkBudget)
  struct Budget {
    bool open = false;
    i64 left = 0, limit = 0;
    i64 game_limit = 0;
    i64* game = nullptr;
  };
  Budget budget_;
  // opens a budget for one call of new_game or apply, and puts back the one before (a
  // search inside a native agent plays its own games)
  struct OpenBudget {
    VM& vm;
    Budget before;
    OpenBudget(VM& v, const EngineLimits& limits, State& st) : vm(v), before(v.budget_) {
      vm.budget_ = Budget{true, limits.max_work, limits.max_work, limits.max_game_work, &st.work};
    }
    ~OpenBudget() { vm.budget_ = before; }
  };
  void check_game_work(const State& st, const EngineLimits& limits) const;
  // the values of a listing's shared guard expressions (Program::memo_slot): valid while
  // their stamp is the listing's
  bool memo_on_ = false;
  uint64_t memo_epoch_ = 0;
  std::vector<uint64_t> memo_stamp_;
  std::vector<i64> memo_value_;
  StepStack lister_steps_;
  void run_option(State& st, OptionRef option);

  // statements
  void move(State& st, const Node& n, i32 self);
  void move_many(State& st, i32 move, i64 times);
  i32 take_card(State& st, i64 card);
  void put_card(State& st, const Node& n, i64 card, i32 src, i32 to);
  void remember(State& st, const Node& n, i32 self);
  void place(State& st, const Node& n, Coll& z, i64 card, i64& at);
  void set_value(State& st, const Node& n);
  void create_cards(State& st, const Node& n);
  void create_deck(State& st, const Node& n);
  void create_teams(State& st, const Node& n);
  const Coll& team_members(const State& st, i64 t, i32 span) const;
  void cycle(State& st, const Node& n);
  void for_each(State& st, const Node& n);

  // ev_node's op families, each called with ev_node's own arguments (vm_eval_scalar.cpp,
  // vm_eval_measure.cpp)
  i64 ev_place(State& st, i32 ni);       // LOCATION, STORAGE
  i64 ev_seat(State& st, i32 ni);        // PLAYER, TEAM, OWNER, TEAMOF
  i64 ev_card(State& st, i32 ni);        // CARDAT, ATTR, CARDATT
  i64 ev_number(State& st, i32 ni);      // ARITH, UNARY, RANDOM
  i64 ev_condition(State& st, i32 ni);   // IF, COMPARE, AND, OR, NOT
  i64 ev_score(State& st, i32 ni);       // MAXMIN, SCOREEXT, SUM, SCORE, TOTAL
  i64 ev_collection(State& st, i32 ni);  // SIZE, CONTAINS, AGGREGATE
  i64 ev_route(State& st, i32 ni);       // CONNECTS, LONGEST
  i64 arith_all(State& st, const Node& n);
  [[noreturn, gnu::cold, gnu::noinline]] void not_a_scalar(const Node& n) const;

  // expression helpers (the players' and teams', cards' attributes and rand_below
  // inline: vm_internal.h)
  inline i64 current_player(const State& st) const;
  inline i64 current_team(const State& st) const;
  inline i64 cycle_size(const State& st, const Frame& f) const;
  inline i64 next_in_cycle(const State& st) const;
  inline i64 previous_in_cycle(const State& st) const;
  i64 score(i64 pointmap, i64 card, const State& st);
  i32 make_pointmap(State& st, i32 awards);
  Typed attribute(const State& st, i64 card, i32 name, bool& found) const;
  Typed attr_value(State& st, const Node& attr);
  void routes(State& st, const Node& n, std::vector<Route>& out);
  void elements(State& st, i32 coll, std::vector<Val>& out);
  bool compare(State& st, const Node& n);
  i64 rand_below(State& st, uint64_t n);
  i32 location_name(i32 base, i64 index);
  void indexed(State& st, i64 owner, i32 kind, i32 name, Coll& out);
  std::vector<std::pair<i64, i32>> indexed_found_;  // indexed's scratch

  // listing (compiler/choices.py: the expanders)
  struct Cont;
  struct Lister;
  void expand(Lister& L, i32 n, State* st, size_t applied, const Cont* k);
  bool guarded_actions(i32 body) const;
  static bool acts(const Lister& L);
  void list_guarded(Lister& L, State& st, const Node& n, i32 ni, const Coll& items);
  void keep_option(Lister& L);
  void proceed(Lister& L, State* st, size_t applied, const Cont* k);
  void open_passes(Lister& L, i64 times, i32 span, const char* what);
  void push_fixed(Lister& L, i32 ni);
  State* materialize(Lister& L, State* st, size_t& applied);
  // ------------------------------------------------------------ the fast paths
  // Program::find_hot_paths marks the commonest expressions (Hot, in program.h); these
  // evaluate them with ev's results, order and errors but without a call per node, and
  // a filter's condition of a card's type alone once per type.

  // a filter's (or any/all's) condition for one card, bound to the variable as ev would
  // find it; a condition of the card's type alone is evaluated once per type
  __attribute__((always_inline)) bool test_card(State& st, i64 var, i32 cond, i64 card) {
    bind_scalar(st.regs[var], card);
    int16_t slot = nodes_[cond].type_test;
    if (!slot || card < 0) return test_hot(st, cond);  // no card: ev's error
    std::vector<int8_t>& known = type_tests_[slot - 1];
    size_t type = (size_t)st.card_type[card];
    if (type < known.size() && known[type] >= 0) return known[type];
    return learn_type_test(st, cond, known, type);
  }
  bool learn_type_test(State& st, i32 cond, std::vector<int8_t>& known, size_t type);
  std::vector<std::vector<int8_t>> type_tests_;  // per slot, per card type: -1 unknown
  // ev for the operands of ev_hot's nodes: the location reads that end most guards
  // (a register's size or top card) too are done in place, without a call
  __attribute__((always_inline)) i64 evk(State& st, i32 ni) {
    const Node& n = nodes_[ni];
    if (n.op == O_REG) return st.regs[n.p[0]].i;
    if (n.op <= O_STR) return n.p[0];
    switch (n.hot) {
      case H_SIZE_REG:
        return (i64)st.zone((i32)st.regs[nodes_[kids_[n.kid0]].p[0]].i).size();
      case H_CAP_REG:
        return cap_of(nodes_[ni], st);
      case H_ATTR_REG:
      case H_ATTR_CAP: {
        const Node& card = nodes_[kids_[n.kid0]];
        i64 c = n.hot == H_ATTR_REG ? st.regs[card.p[0]].i : cap_of(card, st);
        if (c == NO_CARD) attr_of_no_card(n);
        return attr_of(st, n, c).v;
      }
      case H_NONE: {  // a listing's shared value, once known
        i64 known;
        if ((n.flags & MEMO) && memo_hit(ni, known)) return known;
        break;
      }
      default:
        break;
    }
    return ev_hot(st, ni);
  }
  // (top 'L) / (bottom 'L) of a register holding a location (H_CAP_REG)
  __attribute__((always_inline)) i64 cap_of(const Node& n, const State& st) const {
    return cap_card(st.zone((i32)st.regs[nodes_[kids_[n.kid0]].p[0]].i), (int)n.p[0]);
  }
  // an ATTR node's value for a card: its type's, else the node's default
  __attribute__((always_inline)) Typed attr_of(const State& st, const Node& n, i64 c) const {
    const CardType& t = P.card_types[st.card_type[c]];
    size_t name = (size_t)n.p[0];
    if (name < t.by_name.size() && t.by_name[name].tag >= 0) return t.by_name[name];
    return P.values[n.p[1]];
  }
  // a listing's shared value of node ``ni`` (MEMO), if it is known yet
  __attribute__((always_inline)) bool memo_hit(i32 ni, i64& value) const {
    if (!memo_on_) return false;
    i32 slot = P.memo_slot[ni];
    if (memo_stamp_[slot] != memo_epoch_) return false;
    value = memo_value_[slot];
    return true;
  }
  // a comparison of numbers (H_CMP), its operands by evk
  __attribute__((always_inline)) bool compare_hot(State& st, const Node& n) {
    i64 a = evk(st, kids_[n.kid0]);
    i64 b = evk(st, kids_[n.kid0 + 1]);
    return compare_numbers(n.p[0], a, b);
  }
  // a condition (ev != 0); a comparison of numbers is done in place
  __attribute__((always_inline)) bool test_hot(State& st, i32 ni) {
    const Node& n = nodes_[ni];
    if (n.hot == H_CMP) return compare_hot(st, n);
    return evk(st, ni) != 0;
  }
  // a guard evaluated for every element of a listing: an AND of comparisons too
  __attribute__((always_inline)) bool guard_hot(State& st, i32 ni) {
    const Node& n = nodes_[ni];
    if (n.hot != H_AND) return test_hot(st, ni);
    for (int i = 0; i < n.nkids; i++)
      if (!test_hot(st, kids_[n.kid0 + i])) return false;
    return true;
  }
  [[noreturn]] void error(const std::string& message, i32 span) const;
  [[noreturn]] void overflow(const std::string& what, i32 span) const;
  // The work budget (docs/language.md, "Work"): ``amount`` more units of work in this
  // call of new_game or apply (from one decision to the next), a rule error at ``span``
  // past its limit.  Charged only while the engine runs (a Budget is open): an
  // expression evaluated for a view or a score is not the game's work.
  void charge(i64 amount, i32 span, const char* what) {
    if (!budget_.open || amount <= 0) return;
    if (amount > budget_.left) over_budget(span, what);
    if (amount > budget_.game_limit - *budget_.game) over_game_budget(span, what);
    budget_.left -= amount;
    *budget_.game += amount;
  }
  // the most that may still be charged now (work.py: WorkBudget.room)
  i64 room() const {
    if (!budget_.open) return INT64_MAX;
    return std::max<i64>(0, std::min(budget_.left, budget_.game_limit - *budget_.game));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void over_budget(i32 span, const char* what) const;
  [[noreturn, gnu::cold, gnu::noinline]] void over_game_budget(i32 span, const char* what) const;
  // work past room(): the decision's budget's error if it is the smaller, else the game's
  [[noreturn, gnu::cold, gnu::noinline]] void over_room(i32 span, const char* what) const;
  // an element loop of an aggregate, a filter or a choice's (any ...): one unit per
  // element, except over all players or all teams (few, and unrolled by the Python engine)
  void charge_passes(const Node& n, size_t count) {
    if (nd(kd(n, 0)).op != O_ALL) charge((i64)count, n.span, pass_name(n));
  }
  static const char* pass_name(const Node& n);
  // a group of (all COLL 'V CARDS) made: one unit per card (runtime.py: _group), but
  // not over all players or teams (as their passes)
  void charge_group(const Node& n, size_t cards) {
    if (nd(kd(n, 0)).op != O_ALL) charge((i64)cards, n.span, "(all ...)");
  }
  static const char* set_op_name(const Node& n) {
    return n.p[0] == 0 ? "(union ...)" : n.p[0] == 1 ? "(intersect ...)" : "(disjunction ...)";
  }
  [[noreturn, gnu::cold, gnu::noinline]] void attr_of_no_card(const Node& n) const;
};

// engine/state.py: splitmix64 (inline: every draw of the game's RNG and of the agents')
inline uint64_t splitmix_next(uint64_t& x) {
  x += 0x9E3779B97F4A7C15ULL;
  uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void shuffle_in_place(uint64_t& rng, Coll& items);

}  // namespace cardlang
