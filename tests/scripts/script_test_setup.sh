# Sourced by the script tests of this folder (after `src` and `py` are set from their arguments): a
# temporary directory `tmp` removed at exit, `status` 0, and fail MESSAGE, which prints it and sets
# status 1. Each test ends with `exit $status`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
