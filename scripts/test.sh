#!/usr/bin/env bash
# README's test command: install what a fresh machine lacks (scripts/setup.sh: libclang for
# cyclors' build, the ROS 2 virtualenv for the DDS tests; a no-op once done), then the tests.
#
# Why a script and not bare `cargo test --workspace`: cyclors' build script needs libclang
# before any code of ours runs (cargo builds dependencies first, and no build script of ours
# is ordered before cyclors'), so the install has to happen before cargo starts. The venv
# alone could be made by the tests; they do call setup.sh themselves too, so `cargo test`
# works on its own wherever libclang is present.
# --no-fail-fast: one flaky or failing test binary must not hide the results of the others.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec cargo test --workspace --no-fail-fast "$@"
