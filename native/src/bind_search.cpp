// The native agents' and the search's bindings (bindings.h): the random agent and the
// scripted Dominion bot (vm.h, bots.h), CPython's random stream as the search draws from
// it, and ismcts.py's search inside the engine (search.h) with its deal plans and trees.
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "bindings.h"
#include "native_program.h"

namespace cardlang {

void bind_agents(nb::module_& m) {
  nb::class_<NativeAgent>(m, "NativeAgent");
  nb::class_<RandomAgent, NativeAgent>(m, "RandomAgent")
      .def(nb::init<uint64_t>())
      .def_rw("state", &RandomAgent::state)
      .def("draw", &RandomAgent::draw);

  nb::class_<DominionBot, NativeAgent>(m, "DominionBot");

  // CPython's random.Random as the engine's search draws from it (tests hold it to Python's)
  nb::class_<PyRandom>(m, "PyRandom")
      .def(nb::init<>())
      .def("load", &PyRandom::load)
      .def("save", &PyRandom::save)
      .def("random", &PyRandom::random)
      .def("getrandbits",
           [](PyRandom& r, int k) {
             if (k < 0 || k > 64) throw nb::value_error("0 to 64 bits");
             return r.getrandbits(k);
           })
      .def("below",
           [](PyRandom& r, uint64_t n) {
             if (n == 0) throw nb::value_error("below 0");
             return r.below(n);
           })
      .def("shuffle", [](PyRandom& r, Coll items) {
        r.shuffle(items);
        return items;
      });
}

void bind_search(nb::module_& m) {
  nb::class_<DealPlan>(m, "DealPlan");
  nb::class_<SearchTree>(m, "SearchTree");

  // ismcts.py's search inside the engine (search.h); one per agent, keeping the program
  nb::class_<Ismcts>(m, "Ismcts")
      .def(
          "decide",
          [](Ismcts& search, nb::tuple settings, const DealPlan& plan, const State& base,
             const Options& real, nb::object given_tree, std::vector<i64> rng_state,
             uint64_t rollout_state, nb::list rollout_agents, nb::object refresh_names) {
            SearchSettings s;
            s.c = nb::cast<double>(settings[0]);
            s.cap = nb::cast<i64>(settings[1]);
            s.margin = nb::cast<double>(settings[2]);
            s.iterations = nb::cast<i64>(settings[3]);
            s.seconds = nb::cast<double>(settings[4]);
            s.one_world = nb::cast<bool>(settings[5]);
            s.score_sign = nb::cast<int>(settings[6]);
            s.ranking_signs = nb::cast<std::vector<int>>(settings[7]);
            s.limits = EngineLimits{nb::cast<i64>(settings[8]), nb::cast<i64>(settings[9]),
                                    nb::cast<i64>(settings[10]), nb::cast<i64>(settings[11])};
            search.rng.load(rng_state);
            search.rollout.state = rollout_state;
            struct Reset {  // what this call lends the search, taken back however it ends
              Ismcts& s;
              ~Reset() {
                s.refresh_names = nullptr;
                s.interrupted = nullptr;
                s.rollout_agents.clear();
              }
            } reset{search};
            search.interrupted = []() { return PyErr_CheckSignals() != 0; };
            search.rollout_agents.clear();  // the list holds them while the search runs
            for (nb::handle a : rollout_agents)
              search.rollout_agents.push_back(nb::cast<NativeAgent*>(a));
            search.refresh_names = [&refresh_names]() { refresh_names(); };
            SearchTree fresh;  // None: a search from a new root
            SearchTree& tree = given_tree.is_none() ? fresh : nb::cast<SearchTree&>(given_tree);
            SearchAnswer a;
            try {
              a = search.decide(s, plan, base, *real.list, *tree.root, (int)base.nplayers);
            } catch (const Interrupted&) {
              throw nb::python_error();  // the KeyboardInterrupt Python has pending
            }
            nb::list values;
            for (double v : a.values) values.append(std::isnan(v) ? nb::none() : nb::cast(v));
            nb::object kept = nb::none();
            if (a.kept) {
              auto* t = new SearchTree();
              t->root = std::move(a.kept);
              kept = nb::cast(t, nb::rv_policy::take_ownership);
            }
            return nb::make_tuple(a.best, values, a.totals, a.done, kept, search.rng.save(),
                                  search.rollout.state, a.visits);
          },
          nb::arg("settings"), nb::arg("plan"), nb::arg("base"), nb::arg("options"),
          nb::arg("tree").none(), nb::arg("rng_state"), nb::arg("rollout_state"),
          nb::arg("rollout_agents"), nb::arg("refresh_names"));
}

}  // namespace cardlang
