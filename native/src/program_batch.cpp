// NativeProgram's batches (native_program.h): a VectorEnv's plan read from env/batch.py's
// plain data into batch.h's BatchPlan and TokenPlan, and the VectorBatch made from it.
#include <string>
#include <unordered_map>

#include "ir_loader.h"
#include "native_program.h"

namespace cardlang {

BatchPlan NativeProgram::batch_plan(nb::dict d) {
  BatchPlan plan;
  plan.nplayers = nb::cast<i32>(d["nplayers"]);
  plan.width = nb::cast<i32>(d["width"]);
  plan.n_actions = nb::cast<i32>(d["n_actions"]);
  plan.learner = nb::cast<i32>(d["learner"]);
  if (plan.nplayers != P.nplayers || plan.width <= 0 || plan.n_actions <= 0 ||
      plan.learner < -1 || plan.learner >= plan.nplayers)
    throw nb::value_error("a batch plan of another game");
  for (nb::handle seat : nb::cast<nb::list>(d["seats"])) {
    ObsSeat s;
    s.current = nb::cast<i32>(seat["current"]);
    for (nb::handle t : nb::cast<nb::list>(seat["storages"]))
      s.storages.push_back({item<i32>(t, 0), P.storage_key(item<i32>(t, 1), P.intern(item<std::string>(t, 2)))});
    for (nb::handle z : nb::cast<nb::list>(seat["zones"]))
      s.zones.push_back(ObsZone{plan_key(z[0]), item<i32>(z, 1), item<i32>(z, 2), item<i32>(z, 3)});
    for (nb::handle ends : nb::cast<nb::list>(seat["ends"])) {
      std::vector<ObsEnd> list;
      for (nb::handle e : nb::cast<nb::list>(ends))
        list.push_back(ObsEnd{item<i32>(e, 0), plan_key(e[1]), item<bool>(e, 2)});
      s.ends.push_back(std::move(list));
    }
    plan.seats.push_back(std::move(s));
  }
  nb::list types = nb::cast<nb::list>(d["types"]);
  plan.n_types = (i32)types.size();
  for (size_t t = 0; t < types.size(); t++) plan.type_ids.emplace(nb::cast<std::string>(types[t]), (i32)t);
  for (nb::handle keys : nb::cast<nb::list>(d["keys"])) {
    std::unordered_map<std::string, i32> index;
    nb::list list = nb::cast<nb::list>(keys);
    for (size_t k = 0; k < list.size(); k++) index.emplace(nb::cast<std::string>(list[k]), (i32)k);
    plan.key_index.push_back(std::move(index));
  }
  for (nb::handle site : nb::cast<nb::list>(d["sites"])) {
    KeySite s;
    s.situation = item<i32>(site, 1);
    if (s.situation < 0 || s.situation >= (i32)plan.key_index.size())
      throw nb::value_error("a site of no situation");
    s.bare = nb::cast<std::vector<std::string>>(site[2]);
    s.heads = nb::cast<std::vector<std::string>>(site[3]);
    for (nb::handle part : nb::cast<nb::list>(site[4]))
      s.parts[item<i32>(part, 0)] = KeyPart{(int8_t)item<int>(part, 1), item<std::string>(part, 2)};
    plan.sites[item<i32>(site, 0)] = std::move(s);
  }
  for (nb::handle sign : nb::cast<nb::list>(d["ranking_signs"])) plan.ranking_signs.push_back(nb::cast<int>(sign));
  plan.score_reward = nb::cast<bool>(d["score_reward"]);
  plan.score_sign = nb::cast<double>(d["score_sign"]);
  plan.cards = d.contains("cards") && nb::cast<bool>(d["cards"]);
  for (const ObsSeat& s : plan.seats)
    if ((i32)s.ends.size() != (i32)plan.key_index.size()) throw nb::value_error("one end list per situation");
  if (d.contains("tokens") && !d["tokens"].is_none()) plan.tokens = token_plan(nb::cast<nb::dict>(d["tokens"]), plan);
  return plan;
}

TokenPlan NativeProgram::token_plan(nb::dict d, const BatchPlan& plan) {
  TokenPlan tp;
  tp.on = true;
  tp.max_tokens = nb::cast<i32>(d["max_tokens"]);
  for (nb::handle seat : nb::cast<nb::list>(d["seats"])) {
    TokenSeat s;
    for (nb::handle z : nb::cast<nb::list>(seat["zones"]))
      s.zones.push_back(TokenZone{plan_key(z[0]), item<i32>(z, 1), item<bool>(z, 2)});
    for (nb::handle t : nb::cast<nb::list>(seat["storages"]))
      s.storages.push_back({P.storage_key(item<i32>(t, 0), P.intern(item<std::string>(t, 1))), item<i32>(t, 2)});
    tp.seats.push_back(std::move(s));
  }
  tp.turns = nb::cast<i32>(d["turns"]);
  tp.situations = nb::cast<std::vector<i32>>(d["situations"]);
  tp.components = nb::cast<std::vector<std::vector<i32>>>(d["components"]);
  tp.actions = nb::cast<std::vector<std::vector<std::vector<i32>>>>(d["actions"]);
  bool fits = (i32)tp.seats.size() == plan.nplayers && tp.max_tokens > 0 &&
              tp.situations.size() == plan.key_index.size() && tp.actions.size() == plan.key_index.size();
  for (size_t k = 0; fits && k < tp.actions.size(); k++) fits = tp.actions[k].size() == plan.key_index[k].size();
  if (!fits) throw nb::value_error("a token plan of another game");
  return tp;
}

i32 NativeProgram::plan_key(nb::handle key) {
  std::string kind = item<std::string>(key, 1);
  for (int i = 0; i < 4; i++)
    if (kind == KIND_NAMES[i]) return P.zone_key(item<i32>(key, 0), i, P.intern(item<std::string>(key, 2)));
  throw nb::value_error("no such location kind");
}

VectorBatch* NativeProgram::vector_batch(nb::dict plan, i32 n, i64 max_decisions, i64 max_steps,
                                         i64 max_work, i64 max_game_work) {
  if (n < 1) throw nb::value_error("a batch needs a game at least");
  return new VectorBatch(vm, batch_plan(plan), n, EngineLimits{max_decisions, max_steps, max_work, max_game_work});
}

}  // namespace cardlang
