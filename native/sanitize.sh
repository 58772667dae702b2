#!/usr/bin/env bash
# The native engine under AddressSanitizer and UndefinedBehaviorSanitizer.
#
# Builds cardlang._native with -fsanitize=address,undefined into a scratch folder (the
# installed extension is left alone), then runs the native engine's tests against that
# build: every game file under both engines, hypothesis choosing files and moves, the
# rule errors, the agents and the search inside the engine, hypothesis's generated
# programs on both engines (tests/test_fuzz_programs.py), the work budget and the
# network's tensor kernels (skipped without torch).  Any report fails the run.  The long fuzzing run, with CARDLANG_FUZZ_PROGRAMS=N programs:
#
#   CARDLANG_FUZZ_PROGRAMS=3000 bash native/sanitize.sh -k both_engines_long
#
#   bash native/sanitize.sh            # from the repository root; about 3 minutes
#   bash native/sanitize.sh -k bots    # more pytest arguments narrow the tests
#
# tests/test_native.py runs it (test_the_native_tests_pass_under_the_sanitizers), so CI
# does too.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${CARDLANG_SANITIZE_DIR:-build/sanitize}"
python3 -c "import nanobind" 2>/dev/null || python3 -m pip install -q nanobind
generator="Unix Makefiles"
command -v ninja > /dev/null && generator=Ninja
if [ -f "$out/CMakeCache.txt" ] && ! grep -q "CMAKE_GENERATOR:INTERNAL=$generator" "$out/CMakeCache.txt"; then
  rm -rf "$out"   # made with another generator
fi
cmake -S . -B "$out" -G "$generator" -DCARDLANG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
      -DPython_EXECUTABLE="$(command -v python3)" > "$out.log"
cmake --build "$out" >> "$out.log"
module="$(ls "$out"/_native*.so)"
# Python itself is not built with the sanitizers: load their runtimes first, and leave
# the interpreter's own allocations out of the leak check.
export LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export CARDLANG_NATIVE_MODULE="$module"   # engine/native.py loads this build instead
# -m "": the long checks too where the arguments name them (a later -m narrows again)
python3 -m pytest -q -p no:cacheprovider -m "" tests/test_native.py tests/test_native_fast_paths.py \
  tests/test_search_in_engine.py tests/test_native_simultaneous.py tests/test_simultaneous.py \
  tests/test_fuzz_programs.py tests/test_work_budget.py \
  tests/test_neural.py::test_the_native_kernels_are_torchs_functions \
  tests/test_neural.py::test_the_native_kernels_refuse_what_is_out_of_bounds "$@"
