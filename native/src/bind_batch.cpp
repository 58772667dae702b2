// VectorBatch's binding (bindings.h): a VectorEnv's games stepped in lockstep
// (batch.h), writing the caller's numpy arrays.
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/ndarray.h>

#include "batch.h"
#include "bindings.h"

namespace cardlang {

namespace {

// the arrays a VectorBatch writes (numpy's, C-contiguous, on the CPU)
using Floats = nb::ndarray<float, nb::c_contig, nb::device::cpu>;
using Bools = nb::ndarray<bool, nb::c_contig, nb::device::cpu>;
using Ints = nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using I32s = nb::ndarray<int32_t, nb::c_contig, nb::device::cpu>;
using I8s = nb::ndarray<int8_t, nb::c_contig, nb::device::cpu>;
using I64s = nb::ndarray<int64_t, nb::c_contig, nb::device::cpu>;

i32 checked_row(const VectorBatch& b, i32 i) {
  if (i < 0 || i >= b.size()) throw nb::index_error("no such row");
  return i;
}

// a batch's call, its BatchError as a ValueError env/batch.py reads ("illegal:ROW:ACTION",
// "failed:ROW", "no-decision:ROW")
template <class F>
void batch_call(VectorBatch&, F&& f) {
  try {
    f();
  } catch (const BatchError& e) {
    std::string what = e.kind == BatchError::ILLEGAL ? "illegal:" + std::to_string(e.row) + ":" + std::to_string(e.action)
                       : e.kind == BatchError::FAILED ? "failed:" + std::to_string(e.row)
                                                      : "no-decision:" + std::to_string(e.row);
    throw nb::value_error(what.c_str());
  }
}

}  // namespace

void bind_batch(nb::module_& m) {
  nb::class_<VectorBatch>(m, "VectorBatch")
      .def("set_agents",
           [](VectorBatch& b, nb::list seats) {
             std::vector<NativeAgent*> agents;
             for (nb::handle a : seats)
               agents.push_back(a.is_none() ? nullptr : nb::cast<NativeAgent*>(a));
             b.set_agents(agents);
           })
      // the caller's arrays, written by every reset and step (kept alive by the batch)
      .def("bind",
           [](VectorBatch& b, Floats obs, Bools mask, Ints seat, Ints situation, Floats rewards,
              Bools terminated, Bools truncated, Floats final_obs, Bools has_final) {
             size_t n = (size_t)b.size();
             auto rows = [n](size_t got, const char* what) {
               if (got != n) throw nb::value_error((std::string(what) + ": one row per game").c_str());
             };
             rows(obs.shape(0), "obs");
             rows(mask.shape(0), "mask");
             rows(seat.shape(0), "seat");
             rows(situation.shape(0), "situation");
             rows(rewards.shape(0), "rewards");
             rows(terminated.shape(0), "terminated");
             rows(truncated.shape(0), "truncated");
             rows(final_obs.shape(0), "final_obs");
             rows(has_final.shape(0), "has_final");
             b.check_widths(obs.ndim() == 2 ? obs.shape(1) : 0, mask.ndim() == 2 ? mask.shape(1) : 0,
                            rewards.ndim() == 2 ? rewards.shape(1) : 0,
                            final_obs.ndim() == 2 ? final_obs.shape(1) : 0);
             b.bind(BatchOut{obs.data(), mask.data(), seat.data(), situation.data(), rewards.data(),
                             terminated.data(), truncated.data(), final_obs.data(), has_final.data()});
           },
           nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>(), nb::keep_alive<1, 4>(),
           nb::keep_alive<1, 5>(), nb::keep_alive<1, 6>(), nb::keep_alive<1, 7>(),
           nb::keep_alive<1, 8>(), nb::keep_alive<1, 9>(), nb::keep_alive<1, 10>())
      // the token arrays (tokens.py's, a row per game; T rows of tokens each)
      .def("bind_tokens",
           [](VectorBatch& b, I32s names, I8s kinds, I8s buckets, Floats cont, I32s count,
              I32s act_names, I64s act_key, I32s act_count) {
             size_t n = (size_t)b.size(), N = MAX_TOKEN_NAMES, A = (size_t)b.n_actions();
             if (!b.wants_tokens()) throw nb::value_error("the plan asks for no tokens");
             if (names.ndim() != 3 || names.shape(0) != n || names.shape(2) != N)
               throw nb::value_error("names: [n, T, 16]");
             size_t T = names.shape(1);
             bool fits = kinds.ndim() == 2 && kinds.shape(0) == n && kinds.shape(1) == T &&
                         buckets.ndim() == 2 && buckets.shape(0) == n && buckets.shape(1) == T &&
                         cont.ndim() == 3 && cont.shape(0) == n && cont.shape(1) == T && cont.shape(2) == 3 &&
                         count.ndim() == 1 && count.shape(0) == n && act_count.ndim() == 1 &&
                         act_count.shape(0) == n && act_names.ndim() == 3 && act_names.shape(0) == n &&
                         act_names.shape(1) == A && act_names.shape(2) == N && act_key.ndim() == 2 &&
                         act_key.shape(0) == n && act_key.shape(1) == A;
             if (!fits) throw nb::value_error("the token arrays are not the shape of this batch's");
             b.bind_tokens(TokenOut{names.data(), kinds.data(), buckets.data(), cont.data(), count.data(),
                                    act_names.data(), act_key.data(), act_count.data()},
                           (i32)T);
           },
           nb::keep_alive<1, 2>(), nb::keep_alive<1, 3>(), nb::keep_alive<1, 4>(),
           nb::keep_alive<1, 5>(), nb::keep_alive<1, 6>(), nb::keep_alive<1, 7>(),
           nb::keep_alive<1, 8>(), nb::keep_alive<1, 9>())
      .def("rewrite_tokens", &VectorBatch::rewrite_tokens)
      .def("reset", [](VectorBatch& b, std::vector<uint32_t> words) { batch_call(b, [&] { b.reset(words); }); })
      .def("step",
           [](VectorBatch& b, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> actions) {
             if (actions.shape(0) != (size_t)b.size()) throw nb::value_error("one action per game");
             std::vector<i32> finished;
             batch_call(b, [&] { finished = b.step(actions.data()); });
             return finished;
           })
      .def("fork",
           [](VectorBatch& b, i32 src, i32 dst) { b.fork(checked_row(b, src), checked_row(b, dst)); })
      .def("state", [](const VectorBatch& b, i32 i) { return State(b.state(checked_row(b, i))); })
      .def("finished", [](const VectorBatch& b, i32 i) { return State(b.finished(checked_row(b, i))); })
      .def("seed", [](const VectorBatch& b, i32 i) { return b.seed(checked_row(b, i)); })
      .def("finished_seed", [](const VectorBatch& b, i32 i) { return b.finished_seed(checked_row(b, i)); });
}

}  // namespace cardlang
