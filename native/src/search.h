// ISMCTS inside the engine: agents/search/ismcts.py's search, iteration for iteration.
//
// The Python agent keeps the decision (its tree's reuse, its trace); a search whose every
// part the engine has (a native state, random rollouts) runs here instead, with the same
// random draws from the same generators, so that both give the same choices and the same
// event logs:
//   - the agent's ``random.Random`` (the deal and the choice among untried moves): CPython's
//     Mersenne Twister, its state handed over and back (``PyRandom``);
//   - the deal of each determinization (information/knowledge.py: Skeleton._deal), from
//     a plan the skeleton flattens once per decision (``DealPlan``);
//   - the move keys (agents/search/common.py: MoveKeys), as interned integer tuples whose
//     equality is Python's equality of the keys (``MoveKeyNames``);
//   - rollouts (agents/search/common.py: RandomRollout, AgentRollout): the engine's random
//     agent, or the twins inside the engine of the rollout policy's agents;
//   - rewards (agents/search/rewards.py: standings, score_shares), in the same float
//     operations.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vm.h"

namespace cardlang {

// CPython's random.Random (Modules/_randommodule.c): MT19937 and the draws built on it.
class PyRandom {
 public:
  // from random.Random.getstate()[1]: 624 words and the position
  void load(const std::vector<i64>& state);
  std::vector<i64> save() const;
  uint32_t next32();
  double random();                  // random.random()
  uint64_t getrandbits(int k);      // k <= 64
  uint64_t below(uint64_t n);       // random.Random._randbelow_with_getrandbits
  void shuffle(Coll& items);        // random.shuffle

 private:
  uint32_t mt_[624] = {};
  int index_ = 624;
};

// What the engine needs to name a move as agents/search/common.py: MoveKeys does: per
// card type the text of its type (card_type()), per IR node its AST node, and the card
// slots; texts and AST nodes as dense numbers, equal where Python's values are equal.
struct MoveKeyNames {
  std::vector<i32> type_text;     // card type -> text number
  std::vector<i64> action;        // IR node -> AST node number
  std::vector<uint8_t> card_slot;  // slot -> a card slot
  std::unordered_map<std::string, i32> texts;
  std::vector<std::string> text_of;  // text number -> the text
  std::vector<i32> string_text;   // the program's string number -> text number, -1 unknown
  i32 unseen = -1;                // the text "?"

  i32 text(const std::string& s);
  i32 string_text_of(const Program& P, i64 string);
};

// A move key's parts (move_key_parts), each a tag and its words: an action (its AST
// node), a text (a card's type, "?", a string), a number (bools are numbers in Python
// too), None, a location (its key), a list (its kind, length and items).
enum KeyTag : i64 { K_ACTION, K_TEXT, K_NUMBER, K_NONE, K_LOCATION, K_LIST };
enum ListKind : i64 { L_INTS, L_TEXTS, L_LOCATIONS };  // an empty list is L_INTS: () == ()

// A card type without a name yet (a named deck's, made since the names were given).
struct Unnamed {};

// agents/search/common.py: MoveKeys.key for one option, appended to ``parts``; throws
// where Python's key would fail, and Unnamed
void move_key_parts(const VM& vm, MoveKeyNames& names, const State& st, OptionRef option,
                    std::vector<i64>& parts);

struct KeyHash {
  size_t operator()(const std::vector<i64>& k) const {
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (i64 v : k) h = (h ^ (uint64_t)v) * 0x100000001B3ULL + (h >> 29);
    return (size_t)h;
  }
};

// A determinization's plan (knowledge.py: _EngineDealtSkeleton and Skeleton._deal): the
// hidden locations with the seat's entries (negative where it cannot tell the card), the
// pools' members, where each pool's shuffled members go, and the place of each stand-in.
struct DealPlan {
  std::vector<i32> zone_keys;
  std::vector<Coll> entries;
  std::vector<Coll> members;
  // per pool, its places in order: (h >= 0: hidden location h; -1 - q: pool q's members,
  // index)
  std::vector<std::vector<std::pair<i32, i32>>> places;
  std::vector<std::pair<i32, i32>> refs;  // stand-in j -> (hidden location, index)
};

// The stand-in for an unidentified card in a skeleton's flow (knowledge.py: _PLACEHOLDER)
constexpr i64 PLACEHOLDER = (i64)1 << 40;

// A copy of ``base`` whose locations ``zones`` hold the cards given, the flow's references
// to cards mapped by ``card`` (knowledge.py: _map_references), the given RNG, and the
// ``unplaced`` cards nowhere (native.py's Program.determinized)
template <class CardMap>
State determinized_state(const Program& P, const State& base,
                         std::vector<std::pair<i32, Coll>>& zones, bool map_cards,
                         const CardMap& card, uint64_t rng, const Coll& unplaced) {
  State out(base);
  const i64 n_cards = (i64)out.card_zone.size();
  for (i64 c : unplaced) {  // an unidentified card: where it lies is not known
    if (c < 0 || c >= n_cards) throw std::out_of_range("no such card");
    out.card_zone[c] = -1;
  }
  out.recording = false;
  out.log.clear();
  out.options.reset();
  out.indexed.clear();
  out.rng = rng;
  for (auto& [k, cards] : zones) {
    if (k < 0 || !out.made(k)) throw std::out_of_range("no such location in this game");
    for (i64 c : cards) {
      if (c < 0 || c >= n_cards) throw std::out_of_range("no such card");
      out.card_zone[c] = k;
    }
    out.zones[k] = std::move(cards);
  }
  if (!map_cards) return out;
  auto slot_type = [&](size_t slot) {
    return slot < P.slot_types.size() ? P.slot_types[slot] : (int16_t)T_ANY;
  };
  auto mapped = [&](size_t slot, const Val& v) -> Val {
    int type = slot_type(slot);
    if (v.is_none) return v;
    if (type == T_CARD) {
      Val x = v;
      x.i = card(v.i);
      return x;
    }
    if (type == T_CARDS && v.list) {
      Coll items = *v.list;
      for (i64& c : items) c = card(c);
      return Val::of_list(std::move(items));
    }
    return v;
  };
  // knowledge.py: _map_references (card variables, loops over cards, saved registers,
  // secret picks)
  for (size_t s = 0; s < out.regs.size(); s++) out.regs[s] = mapped(s, out.regs[s]);
  for (Frame& f : out.stack) {
    if (f.kind == F_LOOP && slot_type((size_t)P.node(f.node).p[1]) == T_CARD) {
      std::vector<Val> items = *f.items;
      for (Val& v : items) v.i = card(v.i);
      f.items = Rc<std::vector<Val>>::make(std::move(items));
    } else if (f.kind == F_CALL) {
      std::vector<Val> saved = *f.items;
      for (size_t i = 0; i < saved.size(); i++) saved[i] = mapped((size_t)f.f[0] + i, saved[i]);
      f.items = Rc<std::vector<Val>>::make(std::move(saved));
    }
  }
  for (Pick& p : out.picks) {  // secret picks: their registers and their bindings
    for (size_t s = 0; s < p.regs.size(); s++) p.regs[s] = mapped(s, p.regs[s]);
    for (Step& step : p.steps) {
      if (step.slot < 0) continue;
      if (step.held >= 0)
        p.held[(size_t)step.held] = mapped((size_t)step.slot, p.held[(size_t)step.held]);
      else if (!step.is_none && slot_type((size_t)step.slot) == T_CARD)
        step.i = card(step.i);
    }
  }
  return out;
}

struct SearchNode;

// A search stopped from outside (Python's Ctrl-C): it leaves the agent as it was.
struct Interrupted {};

struct SearchEdge {
  i32 key;
  i64 visits = 0;
  double total = 0.0;  // the mover's rewards through this edge
  i64 available = 0;   // iterations in which this move was legal here
  std::unique_ptr<SearchNode> child;
};

struct SearchNode {
  std::vector<SearchEdge> edges;
  i32 find(i32 key) const {
    for (size_t i = 0; i < edges.size(); i++)
      if (edges[i].key == key) return (i32)i;
    return -1;
  }
};

// What one decision's search is told.
struct SearchSettings {
  double c = 0.7;
  i64 cap = 1000;
  double margin = 0.0;
  i64 iterations = 1;
  double seconds = 0.0;
  bool one_world = false;    // MCTS: one determinization per decision, cloned
  int score_sign = 1;        // -1 where the game's scoring is min
  std::vector<int> ranking_signs;  // gamemaster.py: ranking_keys
  EngineLimits limits;
};

struct SearchAnswer {
  size_t best = 0;
  std::vector<double> values;  // per option: its mean for the mover, NaN for none
  std::vector<i64> visits;     // per option: the iterations that went through it
  std::vector<double> totals;  // per seat: its summed standings over the iterations
  i64 done = 0;
  std::unique_ptr<SearchNode> kept;  // the subtree under the chosen move
};

class Ismcts {
 public:
  Ismcts(VM& vm, MoveKeyNames& names) : vm_(vm), names_(names) {}
  PyRandom rng;
  RandomAgent rollout{0};  // random rollouts: one stream for every seat
  // rollouts by agents inside the engine (a Dominion bot's twin per seat), else empty
  std::vector<NativeAgent*> rollout_agents;
  // asked to give the names again when a card type has none (a named deck's, made since)
  std::function<void()> refresh_names;
  // asked every few iterations whether to stop (Ctrl-C): true ends the search with
  // Interrupted, and the caller raises what Python has pending
  std::function<bool()> interrupted;

  // One decision (ismcts.py: ISMCTSAgent.choose after its forced-move check): the
  // search from ``root``, then the real options named in one more determinization.
  SearchAnswer decide(const SearchSettings& s, const DealPlan& plan, const State& base,
                      const OptionList& real, SearchNode& root, int nplayers);

 private:
  VM& vm_;
  MoveKeyNames& names_;
  std::unordered_map<std::vector<i64>, i32, KeyHash> key_ids_;
  std::vector<i64> parts_;
  std::vector<i32> keys_, firsts_, untried_;
  std::vector<i64> index_of_;
  std::vector<std::pair<SearchNode*, i32>> path_;
  std::vector<i32> movers_;
  std::unique_ptr<State> world_;  // MCTS: this decision's one determinization

  State world(const SearchSettings& s, const DealPlan& plan, const State& base);
  State deal(const DealPlan& plan, const State& base);
  void name_moves(const State& st, const OptionList& options, std::vector<i32>& out);
  void iterate(const SearchSettings& s, State st, SearchNode& root, std::vector<double>& rewards,
               std::vector<double>& standings);
  i32 select(const SearchSettings& s, const SearchNode& node) const;
  void leaf_value(const SearchSettings& s, State& st, std::vector<double>& rewards,
                  std::vector<double>& standings);
  void standings_of(const SearchSettings& s, State& st, std::vector<double>& out);
  void score_shares(const SearchSettings& s, State& st, std::vector<double>& out);
};

}  // namespace cardlang
