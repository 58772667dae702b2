// Lockstep games inside the engine: n games of one program stepped by one call, which
// writes what a learner reads into the caller's arrays (env/vector.py: VectorEnv, whose
// Python path it mirrors value for value; the test holds the two equal on every game file).
//
// One call of step(actions) applies each row's chosen option, lets the in-engine agents
// of the other seats move until the row reaches a learner's decision or its game ends,
// restarts an ended game from the batch's seed stream (Gymnasium's same-step autoreset),
// and writes each row's observation (Encoder.encode's vector), legal-action mask
// (vocabulary keys), seat, situation, rewards and flags.  What the Python side computes
// once (where each part of the layout reads the board, the vocabulary's keys, how each
// card type is named) comes in a BatchPlan; nothing here calls back into Python.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "vm.h"

namespace cardlang {

// --------------------------------------------------------------------- the plan

// One location of the layout, for one seat (env/vector.py: _SeatPlan.zones): where its
// size is written, where its cards by type (a location the seat sees) or their expected
// counts (one it does not: expected_at >= 0) go.
struct ObsZone {
  i32 key;
  i32 size_at, cards_at, expected_at;
};

// A situation's extra blocks: the type of a location's top (or bottom) card, one-hot.
struct ObsEnd {
  i32 pos, key;
  bool top;
};

struct ObsSeat {
  i32 current = 0;                              // the current-seat one-hot's start
  std::vector<std::pair<i32, i32>> storages;    // (position, storage key)
  std::vector<ObsZone> zones;
  std::vector<std::vector<ObsEnd>> ends;        // per situation id
};

// How a keyed fork's bound value is written in an option's key (vocabulary.py: _part_fn)
enum PartKind : int8_t { PART_CARD, PART_PLAYER, PART_TEAM, PART_INT, PART_STR, PART_BOOL,
                         PART_LOC, PART_CARDS };

struct KeyPart {
  int8_t kind;
  std::string pre;  // "VAR="
};

// One choice site (vocabulary.py: _Keyer): its situation and how its options are named.
struct KeySite {
  i32 situation = -1;
  std::vector<std::string> bare, heads;  // per branch: its key without bindings, "B:"
  std::unordered_map<i32, KeyPart> parts;  // keyed fork slot -> how it is written
};

// The tokens of a view (information/tokens.py: Tokenizer), for one seat: every name as
// its id in the model's NameTable, given by the plan.
struct TokenZone {
  i32 key, label;  // the location; its name's id (zone:P+k:NAME(kind))
  bool reads_top;  // a choice reads its top card: a TOP token
};

struct TokenSeat {
  std::vector<TokenZone> zones;               // Tokenizer.zones' order
  std::vector<std::pair<i32, i32>> storages;  // (storage key, its name's id)
};

struct TokenPlan {
  bool on = false;
  i32 max_tokens = 0;                             // T: the arrays' token rows
  std::vector<TokenSeat> seats;
  i32 turns = 0;                                  // the id of "turns"
  std::vector<i32> situations;                    // per situation: the id of "sit:NAME"
  std::vector<std::vector<i32>> components;       // per card type id: its components' ids
  std::vector<std::vector<std::vector<i32>>> actions;  // per situation, per key: its names
};

struct BatchPlan {
  i32 nplayers = 0, width = 0, n_actions = 0;
  i32 learner = -1;  // the seat the caller plays; -1: the caller plays every seat
  std::vector<ObsSeat> seats;
  i32 n_types = 0;                                  // the encoder's card types
  std::unordered_map<std::string, i32> type_ids;    // card type text -> type id
  std::unordered_map<i32, KeySite> sites;           // CHOICE node -> its site
  std::vector<std::unordered_map<std::string, i32>> key_index;  // per situation: key -> index
  std::vector<int> ranking_signs;  // engine/gamemaster.py: ranking_signs
  bool score_reward = false;       // reward="score" (else "outcome")
  double score_sign = 1.0;         // -1 where the lowest score wins
  bool cards = false;              // count the picks per card type (engine/tally.py)
  TokenPlan tokens;
};

// Token arrays, bound when the plan asks for tokens (T = TokenPlan::max_tokens, A =
// n_actions, N = MAX_TOKEN_NAMES): a row's tokens are its first tok_count[i] rows (a row
// that needs more than T writes T and says how many it needs: the caller grows the arrays
// and asks again), its action tokens its first act_count[i].
constexpr int MAX_TOKEN_NAMES = 24;  // tokens.py: MAX_NAMES
struct TokenOut {
  int32_t* names = nullptr;    // [n, T, N]
  int8_t* kinds = nullptr;     // [n, T]
  int8_t* buckets = nullptr;   // [n, T]
  float* cont = nullptr;       // [n, T, 3]
  int32_t* count = nullptr;    // [n]
  int32_t* act_names = nullptr;  // [n, A, N]
  int64_t* act_key = nullptr;  // [n, A]: each action token's vocabulary index
  int32_t* act_count = nullptr;  // [n]
};

// The caller's arrays (numpy's memory, kept alive by the binding), row-major.
struct BatchOut {
  float* obs = nullptr;        // [n, width]
  bool* mask = nullptr;        // [n, n_actions]
  int64_t* seat = nullptr;     // [n]
  int64_t* situation = nullptr;  // [n]
  float* rewards = nullptr;    // [n] with a learner, else [n, nplayers]
  bool* terminated = nullptr;  // [n]
  bool* truncated = nullptr;   // [n]
  float* final_obs = nullptr;  // [n, width]
  bool* has_final = nullptr;   // [n]
};

// What stops a step: an action no legal key names (nothing applied in any row), or a
// game that failed with a rule error (its state kept: finished(row)).
struct BatchError {
  enum Kind { ILLEGAL, FAILED, NO_DECISION } kind;
  i32 row;
  i64 action;
};

class VectorBatch {
 public:
  VectorBatch(VM& vm, BatchPlan plan, i32 n, EngineLimits limits);
  VectorBatch(const VectorBatch&) = delete;  // its rows own their agents
  VectorBatch& operator=(const VectorBatch&) = delete;
  // per row, its agent per seat (nullptr: the caller's seat), cloned from prototypes
  void set_agents(const std::vector<NativeAgent*>& prototypes);
  void bind(const BatchOut& out) { out_ = out; }
  void bind_tokens(const TokenOut& out, i32 max_tokens) {
    tok_ = out;
    plan_.tokens.max_tokens = max_tokens;
  }
  bool wants_tokens() const { return plan_.tokens.on; }
  i32 n_actions() const { return plan_.n_actions; }
  // every row's tokens written again from its state (after the arrays grew)
  void rewrite_tokens();
  // the arrays' second dimensions (0 for one of one dimension), checked before bind
  void check_widths(size_t obs, size_t mask, size_t rewards, size_t final_obs) const {
    size_t per_seat = plan_.learner >= 0 ? 0 : (size_t)plan_.nplayers;
    if (obs != (size_t)plan_.width || final_obs != (size_t)plan_.width ||
        mask != (size_t)plan_.n_actions || rewards != per_seat)
      throw std::invalid_argument("the arrays are not the shape of this batch's env");
  }
  // every row starts its first game again; the games' seeds come from the root's words
  // (numpy's SeedSequence entropy of the batch's seed)
  void reset(std::vector<uint32_t> root_words);
  // the rows that finished a game in this step; a row whose action is HOLD does not move
  // (its arrays stay as they were)
  std::vector<i32> step(const int64_t* actions);
  static constexpr int64_t HOLD = -1;
  // row dst's game becomes a copy of row src's as it stands (its state, seed, random
  // streams and in-engine opponents), its arrays written: from there the two play on
  // apart, the cards still to come the same in both (a rollout from the position)
  void fork(i32 src, i32 dst);

  i32 size() const { return (i32)rows_.size(); }
  const State& state(i32 row) const { return rows_[row].st; }
  const State& finished(i32 row) const { return rows_[row].done; }
  uint64_t seed(i32 row) const { return rows_[row].seed; }
  uint64_t finished_seed(i32 row) const { return rows_[row].done_seed; }
  // games in a row that may end before the learner's first decision
  static constexpr int MAX_SKIPPED_GAMES = 100;

 private:
  struct Row {
    State st, done;
    uint64_t seed = 0, done_seed = 0;
    i64 episode = 0;
    std::vector<std::unique_ptr<NativeAgent>> agents;  // per seat; null: the caller's
    std::vector<NativeAgent*> seats;                    // the same, as VM::play takes them
    std::vector<i32> first_option;                      // per action: its first option, -1
    std::vector<i32> actions;  // the legal actions, in the order their keys were first met
  };
  VM& vm_;
  BatchPlan plan_;
  EngineLimits limits_;
  std::vector<Row> rows_;
  std::vector<uint32_t> root_;
  BatchOut out_;
  TokenOut tok_;
  std::vector<i32> type_of_native_;  // native card type -> type id (made as types appear)
  std::vector<std::string> type_names_;  // type id -> its text
  // scratch
  std::vector<uint8_t> seen_;
  std::vector<i64> unseen_counts_;  // per type id (count_unseen)
  std::vector<i32> unseen_order_;   // the unseen types, in the order their first card is met
  std::string key_, part_;

  void start(i32 i);
  void observe(i32 i);
  void finish(i32 i);
  void write_obs(const State& st, int seat, int situation, float* out);
  void write_tokens(i32 i);
  void count_unseen(const State& st, int seat, i64& total);
  std::vector<i32> first_type_at_;  // write_tokens' scratch: type ids in first-met order
  std::vector<i64> type_count_;
  i32 type_of(const State& st, i64 card);
  void write_part(const State& st, const KeyPart& part, const Val& v, int seat);
  const KeySite& site_of(const State& st) const;
};

uint64_t seed_sequence_child(const std::vector<uint32_t>& entropy, uint64_t index);
uint64_t agent_seed(uint64_t game_seed, size_t seat);

}  // namespace cardlang
