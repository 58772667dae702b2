// ISMCTS inside the engine (search.h): each function names the Python it mirrors.
#include "search.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cardlang {

// ---------------------------------------------------------------- CPython's random
// Modules/_randommodule.c: genrand_uint32, random_random, getrandbits; Lib/random.py:
// _randbelow_with_getrandbits, shuffle.

void PyRandom::load(const std::vector<i64>& state) {
  if (state.size() != 625) throw std::invalid_argument("a random.Random state has 625 words");
  for (int i = 0; i < 624; i++) mt_[i] = (uint32_t)state[i];
  if (state[624] < 0 || state[624] > 624) throw std::invalid_argument("bad random.Random state");
  index_ = (int)state[624];
}

std::vector<i64> PyRandom::save() const {
  std::vector<i64> out(mt_, mt_ + 624);
  out.push_back(index_);
  return out;
}

uint32_t PyRandom::next32() {
  constexpr int N = 624, M = 397;
  constexpr uint32_t UPPER = 0x80000000U, LOWER = 0x7fffffffU;
  static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
  uint32_t y;
  if (index_ >= N) {
    int kk;
    for (kk = 0; kk < N - M; kk++) {
      y = (mt_[kk] & UPPER) | (mt_[kk + 1] & LOWER);
      mt_[kk] = mt_[kk + M] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    for (; kk < N - 1; kk++) {
      y = (mt_[kk] & UPPER) | (mt_[kk + 1] & LOWER);
      mt_[kk] = mt_[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    y = (mt_[N - 1] & UPPER) | (mt_[0] & LOWER);
    mt_[N - 1] = mt_[M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
    index_ = 0;
  }
  y = mt_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

double PyRandom::random() {
  uint32_t a = next32() >> 5, b = next32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint64_t PyRandom::getrandbits(int k) {
  if (k <= 0) return 0;
  if (k <= 32) return next32() >> (32 - k);
  uint64_t low = next32();  // words from the least significant up
  uint64_t high = next32() >> (64 - k);
  return low | (high << 32);
}

uint64_t PyRandom::below(uint64_t n) {
  int k = 64 - __builtin_clzll(n);  // n.bit_length(), n > 0
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

void PyRandom::shuffle(Coll& items) {
  for (size_t i = items.size(); i-- > 1;) {
    size_t j = (size_t)below(i + 1);
    std::swap(items[i], items[j]);
  }
}

// ---------------------------------------------------------------- names

i32 MoveKeyNames::text(const std::string& s) {
  auto it = texts.find(s);
  if (it != texts.end()) return it->second;
  i32 id = (i32)text_of.size();
  texts.emplace(s, id);
  text_of.push_back(s);
  return id;
}

i32 MoveKeyNames::string_text_of(const Program& P, i64 string) {
  if (string < 0 || string >= (i64)P.strings.size()) throw std::out_of_range("no such string");
  if ((size_t)string >= string_text.size()) string_text.resize(P.strings.size(), -1);
  i32& found = string_text[(size_t)string];
  if (found < 0) found = text(P.strings[(size_t)string]);
  return found;
}

// ---------------------------------------------------------------- the search

State Ismcts::deal(const DealPlan& plan, const State& base) {
  // knowledge.py: _EngineDealtSkeleton.determinize and Skeleton._deal
  std::vector<std::pair<i32, Coll>> zones;
  zones.reserve(plan.zone_keys.size());
  for (size_t h = 0; h < plan.zone_keys.size(); h++)
    zones.emplace_back(plan.zone_keys[h], plan.entries[h]);
  std::vector<Coll> members = plan.members;
  for (size_t pool = 0; pool < members.size(); pool++) {
    Coll& cards = members[pool];
    rng.shuffle(cards);
    const auto& places = plan.places[pool];
    for (size_t j = 0; j < cards.size(); j++) {
      auto [target, i] = places[j];
      if (target >= 0)
        zones[(size_t)target].second[(size_t)i] = cards[j];
      else
        members[(size_t)(-1 - target)][(size_t)i] = cards[j];
    }
  }
  std::vector<i64> refs;
  refs.reserve(plan.refs.size());
  for (auto [h, i] : plan.refs) refs.push_back(zones[(size_t)h].second[(size_t)i]);
  uint64_t state_rng = rng.getrandbits(64);
  auto card = [&](i64 c) {
    i64 j = c - PLACEHOLDER;
    return j >= 0 && j < (i64)refs.size() ? refs[(size_t)j] : c;
  };
  static const Coll none;
  return determinized_state(vm_.P, base, zones, !refs.empty(), card, state_rng, none);
}

State Ismcts::world(const SearchSettings& s, const DealPlan& plan, const State& base) {
  // ismcts.py: ISMCTSAgent._world (a fresh determinization), MCTSAgent._world (one per
  // decision, cloned, with a fresh RNG)
  if (!s.one_world) return deal(plan, base);
  if (!world_) world_ = std::make_unique<State>(deal(plan, base));
  State st(*world_);
  st.rng = rng.getrandbits(64);
  return st;
}

void move_key_parts(const VM& vm, MoveKeyNames& names, const State& st, OptionRef option,
                    std::vector<i64>& parts) {
  // agents/search/common.py: MoveKeys.key, each part tagged so that two keys are equal
  // exactly where Python's tuples are (KeyTag)
  const Program& P = vm.P;
  for (const Step& s : option) {
    if (s.slot < 0) {
      if ((size_t)s.node >= names.action.size()) throw std::out_of_range("an unnamed action");
      parts.push_back(K_ACTION);
      parts.push_back(names.action[(size_t)s.node]);
      continue;
    }
    const Val v = option.value(s);
    bool card_slot = (size_t)s.slot < names.card_slot.size() && names.card_slot[(size_t)s.slot];
    int type = (size_t)s.slot < P.slot_types.size() ? P.slot_types[(size_t)s.slot] : T_ANY;
    bool none = v.is_none || (type == T_CARD && !v.list && !v.lists && v.i == NO_CARD);
    if (v.lists || (card_slot && v.list))
      throw std::invalid_argument("a move binds a collection where search keys need a value");
    if (card_slot && !none) {
      i64 card = v.i;
      if (card < 0 || card >= (i64)st.card_zone.size() || st.card_zone[(size_t)card] < 0)
        throw std::invalid_argument("a move binds a card that lies nowhere");
      parts.push_back(K_TEXT);
      if (!vm.can_see(st.card_zone[(size_t)card], (int)st.mover)) {
        parts.push_back(names.unseen);
        continue;
      }
      size_t t = (size_t)st.card_type[(size_t)card];
      if (t >= names.type_text.size()) throw Unnamed{};
      parts.push_back(names.type_text[t]);
      continue;
    }
    if (none) {
      parts.push_back(K_NONE);
    } else if (v.list) {
      const Coll& items = *v.list;
      i64 sub = items.empty() ? L_INTS : type == T_STRS ? L_TEXTS : type == T_LOCS ? L_LOCATIONS
                                                                                    : L_INTS;
      parts.push_back(K_LIST);
      parts.push_back(sub);
      parts.push_back((i64)items.size());
      for (i64 x : items) parts.push_back(sub == L_TEXTS ? names.string_text_of(P, x) : x);
    } else if (type == T_LOC || type == T_MEMLOC) {
      parts.push_back(K_LOCATION);
      parts.push_back(v.i);
    } else if (type == T_STR) {
      parts.push_back(K_TEXT);
      parts.push_back(names.string_text_of(P, v.i));
    } else {
      parts.push_back(K_NUMBER);
      parts.push_back(type == T_BOOL ? (i64)(v.i != 0) : v.i);
    }
  }
}

void Ismcts::name_moves(const State& st, const OptionList& options, std::vector<i32>& out) {
  // each option's key as a number of this search's table; a card type made since the
  // names were given (a named deck's) has them given again, once
  out.clear();
  for (size_t o = 0; o < options.size(); o++) {
    parts_.clear();
    try {
      move_key_parts(vm_, names_, st, options[o], parts_);
    } catch (const Unnamed&) {
      if (refresh_names) refresh_names();
      parts_.clear();
      try {
        move_key_parts(vm_, names_, st, options[o], parts_);
      } catch (const Unnamed&) {
        throw std::out_of_range("a card type without a name");
      }
    }
    auto it = key_ids_.find(parts_);
    if (it == key_ids_.end()) it = key_ids_.emplace(parts_, (i32)key_ids_.size()).first;
    out.push_back(it->second);
  }
}

SearchAnswer Ismcts::decide(const SearchSettings& s, const DealPlan& plan, const State& base,
                            const OptionList& real, SearchNode& root, int nplayers) {
  // ismcts.py: ISMCTSAgent.choose, _search, _best, _trace
  SearchAnswer answer;
  world_.reset();
  answer.totals.assign((size_t)nplayers, 0.0);
  std::vector<double> rewards, standings;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(s.seconds));
  for (i64 done = 0;; done++) {
    if (s.seconds <= 0 ? done >= s.iterations : done > 0 && Clock::now() >= deadline) {
      answer.done = done;
      break;
    }
    if (done % 32 == 31 && interrupted && interrupted()) throw Interrupted{};
    iterate(s, world(s, plan, base), root, rewards, standings);
    for (size_t p = 0; p < answer.totals.size() && p < standings.size(); p++)
      answer.totals[p] += standings[p];
  }
  // the real options, named as in the simulations (their cards are the same ids)
  State named = world(s, plan, base);
  std::vector<i32> keys;
  name_moves(named, real, keys);
  i64 best_visits = -1;
  double best_mean = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < keys.size(); i++) {
    i32 e = root.find(keys[i]);
    bool seen = e >= 0 && root.edges[(size_t)e].visits;
    const SearchEdge* edge = seen ? &root.edges[(size_t)e] : nullptr;
    double mean = edge ? edge->total / (double)edge->visits
                       : -std::numeric_limits<double>::infinity();
    i64 visits = edge ? edge->visits : 0;
    answer.values.push_back(edge ? mean : std::numeric_limits<double>::quiet_NaN());
    answer.visits.push_back(visits);
    if (visits > best_visits || (visits == best_visits && mean > best_mean)) {
      answer.best = i;
      best_visits = visits;
      best_mean = mean;
    }
  }
  if (!keys.empty()) {
    i32 chosen = root.find(keys[answer.best]);
    if (chosen >= 0) answer.kept = std::move(root.edges[(size_t)chosen].child);
  }
  world_.reset();
  return answer;
}

void Ismcts::iterate(const SearchSettings& s, State st, SearchNode& root,
                     std::vector<double>& rewards, std::vector<double>& standings) {
  // ismcts.py: ISMCTSAgent._iterate
  path_.clear();
  movers_.clear();
  SearchNode* node = &root;
  bool expanded = false;
  while (st.status == RUNNING) {
    const OptionList& options = vm_.legal_options(st);
    if (options.empty()) throw std::logic_error("a decision without options");
    name_moves(st, options, keys_);
    // first_index_by_key: each key's first option, in the order of first appearance
    firsts_.clear();
    index_of_.clear();
    for (size_t i = 0; i < keys_.size(); i++) {
      bool seen = false;
      for (i32 k : firsts_)
        if (k == keys_[i]) {
          seen = true;
          break;
        }
      if (!seen) {
        firsts_.push_back(keys_[i]);
        index_of_.push_back((i64)i);
      }
    }
    untried_.clear();
    for (size_t f = 0; f < firsts_.size(); f++) {
      i32 e = node->find(firsts_[f]);
      if (e >= 0) node->edges[(size_t)e].available++;
      if (e < 0 || node->edges[(size_t)e].visits == 0) untried_.push_back((i32)f);
    }
    size_t f;
    i32 e;
    if (!untried_.empty()) {
      f = (size_t)untried_[(size_t)(rng.random() * (double)untried_.size())];
      e = node->find(firsts_[f]);
      if (e < 0) {
        node->edges.push_back(SearchEdge{firsts_[f]});
        node->edges.back().available = 1;
        e = (i32)node->edges.size() - 1;
      }
      expanded = true;
    } else {
      f = (size_t)select(s, *node);
      e = node->find(firsts_[f]);
    }
    path_.emplace_back(node, e);
    movers_.push_back(st.mover);
    vm_.apply(st, (size_t)index_of_[f], s.limits);
    if (expanded) break;
    SearchEdge& edge = node->edges[(size_t)e];
    if (!edge.child) edge.child = std::make_unique<SearchNode>();
    node = edge.child.get();
  }
  leaf_value(s, st, rewards, standings);
  for (size_t i = 0; i < path_.size(); i++) {
    SearchEdge& edge = path_[i].first->edges[(size_t)path_[i].second];
    edge.visits += 1;
    i32 mover = movers_[i];
    edge.total += mover >= 0 && (size_t)mover < rewards.size() ? rewards[(size_t)mover] : 0.0;
  }
}

i32 Ismcts::select(const SearchSettings& s, const SearchNode& node) const {
  // ismcts.py: ISMCTSAgent._select (UCT; ties: the first)
  i32 best = -1;
  double best_score = -std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < firsts_.size(); f++) {
    const SearchEdge& e = node.edges[(size_t)node.find(firsts_[f])];
    double mean = e.total / (double)e.visits;
    double score = mean + s.c * std::sqrt(std::log((double)e.available) / (double)e.visits);
    if (score > best_score) {
      best = (i32)f;
      best_score = score;
    }
  }
  if (best < 0) throw std::logic_error("no move to select");
  return best;
}

void Ismcts::leaf_value(const SearchSettings& s, State& st, std::vector<double>& rewards,
                        std::vector<double>& standings) {
  // ismcts.py: _leaf_value; evaluator.py: RolloutEvaluator, terminal_value;
  // common.py: RandomRollout.play (one stream for every seat), AgentRollout.play (whose
  // agents' twins agents/loop.py's play_out would hand the whole rollout)
  if (st.status == RUNNING) {
    if (rollout_agents.empty()) {
      std::vector<NativeAgent*> seats((size_t)st.nplayers, &rollout);
      vm_.play(st, seats, st.decisions + s.cap, s.limits);
    } else {
      vm_.play(st, rollout_agents, st.decisions + s.cap, s.limits);
    }
  }
  standings_of(s, st, standings);
  rewards = standings;
  if (s.margin != 0.0) {
    std::vector<double> shares;
    score_shares(s, st, shares);
    for (size_t i = 0; i < rewards.size(); i++)
      rewards[i] = (1 - s.margin) * standings[i] + s.margin * shares[i];
  }
}

void Ismcts::standings_of(const SearchSettings& s, State& st, std::vector<double>& out) {
  // rewards.py: standings
  const size_t n = (size_t)st.nplayers;
  out.clear();
  if (st.status == FAILED || n < 2) {
    out.assign(n, st.status == FAILED ? 0.5 : 1.0);
    return;
  }
  std::vector<std::vector<i64>> keys;
  if (st.status == RUNNING) {
    try {
      keys = vm_.current_scores(st);
    } catch (const RuleErr&) {
      out.assign(n, 0.5);
      return;
    }
  } else if (st.has_scores && !st.scores.empty()) {
    keys = st.scores;
  } else {
    keys.assign(n, std::vector<i64>(s.ranking_signs.size(), 0));
  }
  for (auto& k : keys) {  // gamemaster.py: ranking_keys
    if (k.size() != s.ranking_signs.size()) throw std::logic_error("scores of another shape");
    for (size_t j = 0; j < k.size(); j++) k[j] *= s.ranking_signs[j];
  }
  for (const auto& mine : keys) {
    i64 ahead = 0, level = 0;
    for (const auto& other : keys) {
      ahead += other > mine;
      level += other == mine;
    }
    out.push_back(((double)ahead + 0.5 * (double)(level - 1)) / (double)(n - 1));
  }
}

void Ismcts::score_shares(const SearchSettings& s, State& st, std::vector<double>& out) {
  // rewards.py: score_shares, signed_scores
  std::vector<i64> scores;
  if (st.has_scores) {
    for (const auto& k : st.scores) scores.push_back(k.at(0));
  } else {
    try {
      for (const auto& k : vm_.current_scores(st)) scores.push_back(k.at(0));
    } catch (const RuleErr&) {
      scores.assign((size_t)st.nplayers, 0);
    }
  }
  out.clear();
  if (scores.empty()) throw std::logic_error("no scores to share");
  for (i64& x : scores) x *= s.score_sign;
  const i64 low = *std::min_element(scores.begin(), scores.end());
  const i64 high = *std::max_element(scores.begin(), scores.end());
  for (i64 x : scores)
    out.push_back(high == low ? 0.5 : (double)(x - low) / (double)(high - low));
}

}  // namespace cardlang
