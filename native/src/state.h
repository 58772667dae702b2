// The state of one game in the native engine: flat data, copied whole by clone().
//
// It mirrors cardlang/engine/state.py field by field (read that docstring first): the
// board (zones by location key, where each card is, each card's type, the storages, the
// registers), the RNG (one SplitMix64 integer), the flow (the frame stack of
// engine/frames.py), the outcome and the event log.  Location and storage keys are
// numbers of the program's tables; strings are numbers of its string table.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "program.h"

namespace cardlang {

// A shared, immutable value with a plain (not atomic) count: what a Val's collection
// and a loop's elements are held by.  std::shared_ptr counts atomically, and copying
// values is the VM's commonest work; every native call holds the GIL, so no two threads
// ever touch one count.
template <class T>
class Rc {
 public:
  Rc() = default;
  __attribute__((always_inline)) Rc(const Rc& o) : box_(o.box_) {
    if (box_) box_->count++;
  }
  Rc(Rc&& o) noexcept : box_(o.box_) { o.box_ = nullptr; }
  __attribute__((always_inline)) Rc& operator=(const Rc& o) {
    if (o.box_) o.box_->count++;
    release();
    box_ = o.box_;
    return *this;
  }
  __attribute__((always_inline)) Rc& operator=(Rc&& o) noexcept {
    if (this != &o) {
      release();
      box_ = o.box_;
      o.box_ = nullptr;
    }
    return *this;
  }
  __attribute__((always_inline)) ~Rc() { release(); }
  template <class... A>
  static Rc make(A&&... args) {
    Rc r;
    r.box_ = new Box{1, T(std::forward<A>(args)...)};
    return r;
  }
  explicit operator bool() const { return box_ != nullptr; }
  const T& operator*() const { return box_->value; }
  const T* operator->() const { return &box_->value; }
  void reset() { release(); }

 private:
  struct Box {
    long count;
    T value;
  };
  // inline: most values hold nothing, and their copies and ends must cost nothing
  __attribute__((always_inline)) void release() {
    if (box_) {
      if (--box_->count == 0) destroy(box_);
      box_ = nullptr;
    }
  }
  __attribute__((noinline)) static void destroy(Box* box) { delete box; }
  Box* box_ = nullptr;
};

// A value held by a register, an option's binding or a loop's elements.  Scalars
// (integers, booleans, cards with -1 for none, players, teams, strings, location keys,
// point maps) are ``i``; a collection is ``list``; a collection of collections ``lists``.
struct Val {
  i64 i = NO_CARD;
  Rc<Coll> list;
  Rc<std::vector<Coll>> lists;
  bool is_none = true;  // a register never set (Python's None)

  // inline: values are copied and dropped everywhere, and most hold no collection
  Val() = default;
  __attribute__((always_inline)) Val(const Val&) = default;
  __attribute__((always_inline)) Val(Val&&) noexcept = default;
  __attribute__((always_inline)) Val& operator=(const Val&) = default;
  __attribute__((always_inline)) Val& operator=(Val&&) noexcept = default;
  __attribute__((always_inline)) ~Val() = default;

  static Val scalar(i64 v) {
    Val x;
    x.i = v;
    x.is_none = false;
    return x;
  }
  static Val of_list(Coll c) {
    Val x;
    x.list = Rc<Coll>::make(std::move(c));
    x.is_none = false;
    return x;
  }
  static Val of_list_copy(const Coll& c) {
    Val x;
    x.list = Rc<Coll>::make(c);
    x.is_none = false;
    return x;
  }
  static Val of_lists(std::vector<Coll> c) {
    Val x;
    x.lists = Rc<std::vector<Coll>>::make(std::move(c));
    x.is_none = false;
    return x;
  }
};

// Frame kinds and fields: cardlang/engine/frames.py.
// F_SECRET: a (simultaneous ...) block whose body runs; its picks lie in State::picks
// (blocks do not nest, so a state holds one block's picks at most).
enum FrameKind : int8_t { F_SEQ, F_STAGE, F_LOOP, F_REPEAT, F_ROOT, F_WHILE, F_CALL, F_SECRET };

struct Frame {
  int8_t kind;
  i32 node = -1;  // SEQ: the block; STAGE, LOOP, REPEAT, WHILE: the statement
  // SEQ: next; STAGE/ROOT: current, queued (-1 none), started, outer, is_team, player,
  // counted; LOOP: next; REPEAT: left; CALL: low, high, depth
  i64 f[7] = {0, 0, 0, 0, 0, 0, 0};
  Rc<std::vector<Val>> items;  // LOOP: the elements; CALL: saved registers
};
// field numbers of a stage frame
enum { S_CUR = 0, S_QUEUED = 1, S_STARTED = 2, S_OUTER = 3, S_TEAM = 4, S_PLAYER = 5,
       S_COUNTED = 6 };

enum EventKind : int8_t { E_CREATE, E_MOVE, E_SET_INT, E_SET_STR, E_SET_POINTS, E_SHUFFLE,
                          E_REMEMBER, E_DECISION, E_REVEAL };

struct Event {
  int8_t kind;
  i64 a = 0, b = 0, c = 0, d = 0;  // create: n, key; move: card, from, to, at; set: key,
                                   // value; shuffle: key; remember: card, key;
                                   // decision, reveal: mover, turns, situation
  std::vector<i64> cards;          // shuffle: the new order
  std::string label;               // decision, reveal: the option's label
};

enum Status : int8_t { RUNNING, COMPLETED, FAILED, CUTOFF };

// One step of an option: a binding (slot, value, the variable's name) or an action (a
// statement run whole, or entered when it can reach a decision).  Plain data, so that a
// listing copies its steps as bytes: a value that is a collection (rare) lies in the
// list's `held` values, and the step keeps its index there.
struct Step {
  i32 node;          // the action's statement; for a binding, the binding statement
  i32 slot;          // -1 for an action
  i32 var;           // the variable's name (a binding)
  i32 held;          // -1: the value is the scalar below; else its index in `held`
  i64 i;             // the scalar value (a binding)
  bool is_none;      // the scalar value is None

  static Step action(i32 node) { return Step{node, -1, -1, -1, NO_CARD, true}; }
  static Step scalar(i32 node, i32 slot, i32 var, i64 v) {
    return Step{node, slot, var, -1, v, false};
  }
};
static_assert(std::is_trivially_copyable<Step>::value, "steps are copied as bytes");

// A step's value: its scalar, or the collection it holds in `held`.
inline Val step_value(const Step& s, const Val* held) {
  if (s.held >= 0) return held[s.held];
  Val v;
  v.i = s.i;
  v.is_none = s.is_none;
  return v;
}

// One option: a range of steps of an OptionList, and the list's held values.
struct OptionRef {
  const Step* first;
  const Step* last;
  const Val* held;
  const Step* begin() const { return first; }
  const Step* end() const { return last; }
  Val value(const Step& s) const { return step_value(s, held); }
};

// The options of a decision, their steps in one array (one allocation, not one per option).
struct OptionList {
  std::vector<Step> steps;
  std::vector<Val> held;  // the values of bindings to collections
  std::vector<uint32_t> ends;  // option i is steps[ends[i - 1], ends[i])
  std::vector<uint16_t> branches;  // the condact of the choice each option comes from
  size_t size() const { return ends.size(); }
  bool empty() const { return ends.empty(); }
  OptionRef operator[](size_t i) const {
    size_t from = i ? ends[i - 1] : 0;
    return OptionRef{steps.data() + from, steps.data() + ends[i], held.data()};
  }
  // an option from a listing's steps, whose collections lie in `option_held`
  void add(const Step* first, const Step* last, const std::vector<Val>& option_held,
           int branch) {
    size_t from = steps.size();
    steps.insert(steps.end(), first, last);
    if (!option_held.empty())
      for (size_t k = from; k < steps.size(); k++)
        if (steps[k].held >= 0) {
          held.push_back(option_held[(size_t)steps[k].held]);
          steps[k].held = (i32)held.size() - 1;
        }
    ends.push_back((uint32_t)steps.size());
    branches.push_back((uint16_t)branch);
  }
  void clear() {
    steps.clear();
    held.clear();
    ends.clear();
    branches.clear();
  }
};

// The lister's stack of steps: pushed and popped at every node a listing expands, so an
// array and a length (a vector's push is a call the compiler keeps out of line).
struct StepStack {
  std::vector<Step> buf;
  size_t n = 0;
  size_t size() const { return n; }
  const Step& operator[](size_t i) const { return buf[i]; }
  const Step& back() const { return buf[n - 1]; }
  const Step* begin() const { return buf.data(); }
  const Step* end() const { return buf.data() + n; }
  void push_back(const Step& s) {
    if (__builtin_expect(n == buf.size(), 0)) buf.resize(n ? 2 * n : 64);
    buf[n++] = s;
  }
  void pop_back() { n--; }
  void pop(size_t k) { n -= k; }
  void clear() { n = 0; }
  void swap(StepStack& o) {
    buf.swap(o.buf);
    std::swap(n, o.n);
  }
};

// A secret pick of a (simultaneous ...) block (engine/frames.py: SECRET): the option
// chosen, kept unseen and unrun until the block's body is done, and every register as it
// was when picked (the option runs with them).  Its collections lie in its own `held`,
// re-indexed as OptionList::add does, so that it outlives the decision's option list.
struct Pick {
  i32 mover = -1;
  i32 choice = -1;  // the CHOICE node
  std::vector<Step> steps;
  std::vector<Val> held;
  std::vector<Val> regs;
  bool blank = false;  // its option forgotten (a seat's skeleton: engine/picks.py)

  OptionRef option() const {
    return OptionRef{steps.data(), steps.data() + steps.size(), held.data()};
  }
  void set_option(OptionRef option) {
    steps.assign(option.first, option.last);
    held.clear();
    for (Step& s : steps)
      if (s.held >= 0) {
        held.push_back(option.held[s.held]);
        s.held = (i32)held.size() - 1;
      }
    blank = false;
  }
};

// One count of engine/tally.py: the options a seat chose in a situation that bind a card
// of one type, and the game's turn at the first (situation: a string; card_type: the
// program's; a game's counts are few, so a list searched from the start).
struct PickTally {
  i32 seat, situation, card_type;
  i64 count, first_turn;
};

struct RuleErr {
  std::string message;
  i32 span;  // -1 when it has none
};

// A table of storages by storage key: each set value, and the keys in the order first
// set (how the Python engine's dicts iterate).
struct Storages {
  std::vector<i64> values;
  std::vector<uint8_t> set;
  std::vector<i32> order;

  bool has(i32 k) const { return k >= 0 && k < (i32)set.size() && set[k]; }
  i64 get(i32 k, i64 otherwise) const { return has(k) ? values[k] : otherwise; }
  void store(i32 k, i64 v) {
    if (k >= (i32)values.size()) {
      values.resize(k + 1, 0);
      set.resize(k + 1, 0);
    }
    if (!set[k]) {
      set[k] = 1;
      order.push_back(k);
    }
    values[k] = v;
  }
  size_t bytes() const {
    return values.capacity() * sizeof(i64) + set.capacity() + order.capacity() * sizeof(i32);
  }
};

struct State {
  // board
  std::vector<Coll> zones;        // by location key (the program's table)
  std::vector<uint8_t> zone_made; // a zone is made on first write
  std::vector<i32> zone_order;    // the keys of the made zones, in the order made
  std::vector<i32> card_zone;
  i64 refs = 0;  // references in all mem zones: +1 at each remember, -1 at each forget
  std::vector<i32> card_type;
  Storages ints;    // integer storages
  Storages strs;    // string storages: a string
  Storages points;  // point storages: a point map
  std::vector<Val> regs;
  i32 nplayers = 0;
  std::vector<std::vector<i64>> teams;
  std::vector<i64> team_of;
  // chance
  uint64_t rng = 0;
  i64 seed = 0;
  // flow
  std::vector<Frame> stack;
  std::vector<Pick> picks;  // the running (simultaneous ...) block's, in the order made
  i32 stage_idx = 0;
  i32 pending = -1;  // the CHOICE node waiting, -1 for none
  std::shared_ptr<const OptionList> options;  // once listed
  i32 mover = -1;
  i64 decisions = 0, steps = 0, turns = 0;
  i64 work = 0;  // the game's work so far, its steps included (VM::charge)
  // outcome
  Status status = RUNNING;
  std::string end_reason;
  bool has_error = false;
  RuleErr error;
  std::vector<std::vector<i64>> scores;
  bool has_scores = false;
  // record
  bool recording = false;
  std::vector<Event> log;
  bool tallying = false;  // count the picks per card type (engine/tally.py)
  std::vector<PickTally> tally;
  // (indexed OWNER KIND NAME) as last found: zones are never removed, so the answer holds
  // while no zone is made (engine/state.py: indexed)
  struct Indexed {
    i64 owner;
    i32 kind, name;
    size_t zones;  // how many zones were made when it was found
    Rc<Coll> keys;
  };
  std::vector<Indexed> indexed;
  i64 atomic_call_depth = 0;  // atomic calls of recursive procedures now running

  bool made(i32 key) const { return key < (i32)zone_made.size() && zone_made[key]; }
  static const Coll& no_cards() {
    static const Coll empty;
    return empty;
  }
  __attribute__((always_inline)) const Coll& zone(i32 key) const {
    return key < (i32)zones.size() ? zones[key] : no_cards();
  }
  Coll& zone_for_write(i32 key) {
    if (key >= (i32)zones.size()) {
      zones.resize(key + 1);
      zone_made.resize(key + 1, 0);
    }
    if (!zone_made[key]) {
      zone_made[key] = 1;
      zone_order.push_back(key);
    }
    return zones[key];
  }
};

}  // namespace cardlang
