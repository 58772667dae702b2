// The scripted Dominion bots inside the engine: agents/scripted/dominion.py, choice for
// choice.  A bot is its buy rules (a card and an optional condition, compiled from the
// TOML's text by dominion.py into ``Cond`` nodes) and its play order; the handlers of
// the situations it knows mirror DominionBot's methods, each named after it.
#pragma once

#include <string>
#include <vector>

#include "vm.h"

namespace cardlang {

// A condition's node: dominion.py ``native_condition`` writes them, children first.
struct Cond {
  int op;               // COND_* below
  double value = 0;     // CONST
  int arg = 0;          // VAR: which fact; CALL: 0 count, 1 left; BIN/CMP: the operator
  i32 card = -1;        // CALL: the card kind (a string)
  std::vector<int> kids;
};
enum { COND_CONST, COND_VAR, COND_BIN, COND_NOT, COND_NEG, COND_AND, COND_OR, COND_CMP,
       COND_CALL };

struct BuyRule {
  i32 card;                 // a kind (a string)
  std::vector<Cond> cond;   // empty: always; else the last node is the root
};

class DominionBot : public NativeAgent {
 public:
  DominionBot(Program& program, std::vector<BuyRule> buy, std::vector<i32> play);
  size_t choose(VM& vm, State& st, const OptionList& options) override;
  // a fresh bot knows no Supply pile yet; the seed is not used (the bots draw nothing)
  void start_game(uint64_t) override { piles.clear(); }
  std::unique_ptr<NativeAgent> clone() const override {
    return std::make_unique<DominionBot>(*this);
  }

 private:
  struct Facts;
  struct Opt {
    i32 kind = -1;        // the first bound card's KIND the chooser sees, -1 none
    i64 card = -1;        // that card (-1: none seen)
    int branch = 0;
  };
  Program& P;
  std::vector<BuyRule> buy_rules;
  std::vector<i32> play_order;
  std::vector<std::pair<i32, i32>> piles;  // supply pile key -> its kind, seen first
  // strings the bot reads
  i32 s_types, s_coins, s_cost, s_curse, s_victory, s_treasure, s_action, s_throne, s_copper,
      s_silver, s_estate, s_buys, s_actions, s_turns;

  void remember_piles(const State& st);
  std::vector<Opt> described;  // describe's last list
  const std::vector<Opt>& describe(VM& vm, const State& st, const OptionList& options, int seat);
  bool is_a(const State& st, i64 card, i32 type) const;
  i64 attr_int(const State& st, i64 card, i32 name) const;
  double keep_value(const State& st, i64 card) const;
  double trash_value(const State& st, i64 card) const;
  size_t decline(const std::vector<Opt>& opts) const;
  int find_kind(const std::vector<Opt>& opts, i32 kind) const;
  int by_rules(const std::vector<Opt>& opts, Facts& facts);
  double eval(const std::vector<Cond>& cond, int node, Facts& facts);
};

}  // namespace cardlang
