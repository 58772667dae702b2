// NativeProgram: the program behind cardlang._native's ``Program`` (a compiled game's
// tables and the VM that plays them), and the small objects the bindings hand to Python
// with it.  Its methods are the engine protocol's calls on ``State`` objects and the
// readers that turn a state's board, options and events into the Python engine's values
// (location keys as (owner, kind, name) tuples, cards as ids, None for no card).
//
// Declared here, defined by topic: program_values.cpp (values for Python, the event log,
// the board's readers, single reads, frames and picks), program_play.cpp (new games,
// options, moves, scores, native agents' play, card counts), program_search.cpp (the
// search's move keys, determinizations and deal plans, secret picks) and
// program_batch.cpp (a VectorBatch and its plan).  The bindings are bind_*.cpp's
// (bindings.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// The STL's casters, here so that every file that binds or converts through this header
// sees the same ones (a conversion that finds no caster in one file would compile there
// as a bound class, and fail only when called).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "batch.h"
#include "bots.h"
#include "search.h"
#include "str_cache.h"
#include "vm.h"

namespace nb = nanobind;

namespace cardlang {

inline constexpr const char* KIND_NAMES[] = {"vloc", "iloc", "hloc", "mem"};
inline constexpr const char* STATUS_NAMES[] = {"running", "completed", "failed", "cutoff"};

class NativeProgram;

// One search agent's tree: the subtree kept between its decisions (ismcts.py: Node).
struct SearchTree {
  std::unique_ptr<SearchNode> root = std::make_unique<SearchNode>();
};

// The options of one decision, kept alive by whoever holds them: the state may move on,
// these stay what they were (engine/native.py converts each on first use).
struct Options {
  std::shared_ptr<const OptionList> list;
  NativeProgram* program;
};

class NativeProgram {
 public:
  Program P;
  VM vm;
  std::vector<nb::object> key_objects;  // location keys as Python tuples, made once
  i32 kind_attribute = -1;              // the string KIND (option_kinds reads it)

  explicit NativeProgram(nb::dict ir);  // program_play.cpp

  // ------------------------------------------------------------ values for Python
  // (this banner and the next three: program_values.cpp)
  nb::object key(i32 k);
  nb::object storage_key(i32 k);
  nb::object value(const Val& v, int type);

  int slot_type(i32 slot) const {
    return slot >= 0 && slot < (i32)P.slot_types.size() ? P.slot_types[slot] : T_ANY;
  }

  // views.py: option_kinds -- per option the KIND of the first bound card the seat sees
  // (None where it sees none or the card has no KIND); None for the whole list where a
  // KIND is not a string (the view then reads the options itself)
  nb::object option_kinds(const State& st, const OptionList& list, int seat);
  std::vector<i64> seen_cards_;  // option_kinds' scratch

  // a string of the program as a Python str, made once (the bots read KINDs every decision)
  nb::object string_object(i64 id) { return string_objects_.get(P.strings, (size_t)id); }
  StrCache string_objects_;

  nb::list steps_of(const OptionList& list, size_t index);
  nb::list option_steps(OptionRef option);

  // ------------------------------------------------------------ the board and the log
  nb::object error(State& st);
  nb::list events(State& st, size_t start);

  // a point map's awards, as engine/points.py's PointMap holds them
  nb::tuple awards(i64 pm);

  nb::dict zones(State& st);

  // every made location's top card, in the order made (empty ones left out)
  nb::list top_attributes(State& st, nb::list by_type);

  nb::list zone_keys(State& st);
  nb::list card_zone(State& st);

  std::vector<i32> card_types(State& st) { return st.card_type; }

  nb::list card_type_attrs(i32 type);
  nb::dict ints(State& st);
  nb::dict strs(State& st);
  nb::list regs(State& st);

  // ------------------------------------------------------------ single reads
  // (what a view asks for one at a time: no table is converted whole)
  i32 find_string(const std::string& s) const;
  i32 find_zone_key(i32 owner, const std::string& kind, const std::string& name) const;
  nb::object zone_get(State& st, i32 owner, const std::string& kind, const std::string& name);
  nb::object int_get(State& st, i32 owner, const std::string& name);
  nb::object card_zone_of(State& st, i64 card);

  // ------------------------------------------------------------ frames and picks
  // the frame stack, for equality tests (engine/state.py: fingerprint)
  nb::list frames(State& st);

  // the running (simultaneous ...) block's picks, for equality tests (engine/state.py:
  // fingerprint): per pick (mover, choice node, blank, its steps as steps_of gives
  // them, its registers)
  nb::list picks(State& st);

  // ------------------------------------------------------------ search's move keys
  // (this banner and the next: program_search.cpp)
  // agents/search/common.py: MoveKeys.key, for every option of a decision at once, made
  // by the engine's search (search.h: move_key_parts) and turned into Python's tuples.
  // The names come from Python (set_move_key_names): per card type, the card's type as
  // card_type() names it; per node, id() of its AST node; the card slots.
  MoveKeyNames key_names;
  i64 named_types = -1;  // what the names were last given for (move_key_names)
  std::vector<i32> named_slots;
  StrCache text_objects_;

  void set_move_key_names(nb::list types, nb::list actions, std::vector<i32> card_slots);

  // None where Python must make them: a card type not named yet, a card that lies
  // nowhere, a collection of collections
  nb::object move_keys(const OptionList& list, const State& st);

  nb::object text_object(i64 text) { return text_objects_.get(key_names.text_of, (size_t)text); }

  // a key's parts (search.h: KeyTag) as the tuple MoveKeys.key makes
  nb::object key_object(const std::vector<i64>& parts);

  // ------------------------------------------------------------ worlds and secret picks
  // A determinization (information/knowledge.py: Skeleton.determinize): a copy of ``st``
  // whose hidden locations hold the cards given, the references the flow holds to
  // unidentified cards mapped to the cards now in their places, and a new RNG.
  State determinized(const State& st, nb::list zones, nb::dict mapping, uint64_t rng,
                     std::vector<i64> unplaced);

  // A determinization's plan for the engine's search (search.h: DealPlan), from
  // knowledge.py's skeleton: the hidden locations and their entries, the pools' members,
  // each pool's places ((location index, i) or (-1 - pool, i)) and the stand-ins' places
  DealPlan deal_plan(nb::list hidden, std::vector<Coll> members,
                     std::vector<std::vector<std::pair<i32, i32>>> places,
                     std::vector<std::pair<i32, i32>> refs);

  // engine/picks.py: pick_option_count and set_pick (a rule error while listing as
  // current_scores reports one)
  size_t pick_option_count(State& st, size_t k);
  void set_pick(State& st, size_t k, size_t index);

  // ------------------------------------------------------------ the engine's calls
  // (this banner and the next two: program_play.cpp)
  // the engine's Limits (engine/gamemaster.py) come with every call that plays on
  State new_game(uint64_t rng, bool record, i64 max_decisions, i64 max_steps, i64 max_work,
                 i64 max_game_work);

  size_t option_count(State& st) { return vm.legal_options(st).size(); }

  Options options_of(State& st);

  void apply(State& st, size_t index, i64 max_decisions, i64 max_steps, i64 max_work,
             i64 max_game_work);

  nb::object scores(State& st);
  nb::object table_scores(State& st);
  nb::list current_scores(State& st);
  nb::list ending_values(State& st);

  // each seat's values as a tuple; a rule error as "rule:SPAN:TEXT" (native.py: _scores)
  template <class F>
  nb::list per_seat_tuples(F evaluate) {
    nb::list out;
    try {
      for (const auto& s : evaluate()) out.append(nb::tuple(nb::cast(s)));
    } catch (const RuleErr& err) {
      throw nb::value_error(("rule:" + std::to_string(err.span) + ":" + err.message).c_str());
    }
    return out;
  }

  // ------------------------------------------------------------ counts per card type
  // engine/tally.py: card_counts -- (picks, owned), each sorted and flat (CardCounts's
  // cells: 5 a pick row, 3 an owned row), or None for a state made without counting.
  // Counts are kept by card type and told by its text (card_type): two types that read
  // alike are one (same_type).
  nb::object card_counts(const State& st);

  // engine/tally.py: owned_cards -- per seat and card type (by its text), sorted, the
  // cards in the seat's locations (memory locations hold references only: left out)
  nb::tuple owned_cards(const State& st);

  // the first card type whose text is the text of ``type``
  i32 same_type(i32 type);
  // the tables of card types by text, grown as the game makes types (named decks')
  void know_types();
  nb::object type_object(i32 type) { return type_objects_.get(type_texts_, (size_t)type); }
  std::vector<std::string> type_texts_;  // per card type, its text (card_type)
  std::vector<i32> type_same_;           // per card type, the first of its text
  std::vector<i32> types_by_text_;       // the first types of each text, by text
  StrCache type_objects_;
  std::vector<i64> owned_scratch_;

  // ------------------------------------------------------------ play
  // a scripted Dominion bot (agents/scripted/dominion.py) inside the engine: its buy rules
  // as (card, condition nodes), each node (op, value, arg, card, kids)
  DominionBot* dominion_bot(nb::list rules, std::vector<std::string> play);

  // play on while the mover's seat has a native agent (None: a Python agent decides)
  i64 play(State& st, nb::list seats, i64 limit, i64 max_decisions, i64 max_steps,
           i64 max_work, i64 max_game_work);

  // Whole games with native agents alone, one after the other, without returning to
  // Python between them (runs/planned.py: play_batch).  Game i starts from seeds[i] and
  // is played by seat_sets[which[i]], each agent first given its seat's seed
  // (runs/planned.py: agent_seeds).  Per game: (status, end reason, scores or None,
  // decisions, turns, team of each seat, its card_counts with ``tally``, else None); a
  // failed game's error is left for the caller to find by playing it again.
  nb::list play_batch(std::vector<uint64_t> seeds, nb::list seat_sets, std::vector<i64> which,
                      bool tally, i64 max_decisions, i64 max_steps, i64 max_work,
                      i64 max_game_work);

  // ------------------------------------------------------------ batches
  // (program_batch.cpp)
  // env/batch.py: plan_for -- the BatchPlan of a VectorEnv, from plain data
  BatchPlan batch_plan(nb::dict d);

  // env/batch.py: token_plan -- the names of a view's tokens, as NameTable ids
  TokenPlan token_plan(nb::dict d, const BatchPlan& plan);

  // a location key of a plan, (owner, kind, name): its number, made if no game made it yet
  i32 plan_key(nb::handle key);

  VectorBatch* vector_batch(nb::dict plan, i32 n, i64 max_decisions, i64 max_steps,
                            i64 max_work, i64 max_game_work);
};

}  // namespace cardlang
