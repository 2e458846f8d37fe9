# shellcheck shell=bash
# Sourced by the bench scripts after `set`: $src (the checkout) set; sets
# FABSWEEP and FABGEN, absolute (the tools run from other directories):
# the environment's, else build/ (built by hand), else build/release/ (where
# scripts/test.sh builds).
bin_dir=$src/build
[[ -x $bin_dir/fabsweep ]] || bin_dir=$src/build/release
FABSWEEP=$(realpath -m -- "${FABSWEEP:-$bin_dir/fabsweep}")
FABGEN=$(realpath -m -- "${FABGEN:-$bin_dir/fabgen}")
