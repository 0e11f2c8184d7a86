#!/bin/sh
# expect.sh [--skip-if-exists PATH] [--one-line] STATUS STREAM REGEX -- COMMAND [ARG...]
#
# Runs COMMAND and passes (exit 0) when it exits with STATUS and its STREAM
# (stdout or stderr) matches the extended regular expression REGEX; with
# --one-line that stream must also be exactly one line. Prints both streams
# either way. --skip-if-exists: exit 77 (ctest: skipped) when PATH exists.
# Used by tests/CMakeLists.txt for the cuzk command line (cli/*).
set -u
one_line=0
while :; do
  case "$1" in
    --skip-if-exists)
      if [ -e "$2" ]; then echo "skipped: $2 exists"; exit 77; fi
      shift 2 ;;
    --one-line) one_line=1; shift ;;
    *) break ;;
  esac
done
want_status=$1 stream=$2 regex=$3
shift 3
[ "$1" = "--" ] && shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$@" >"$dir/stdout" 2>"$dir/stderr"
status=$?
echo "--- stdout"; cat "$dir/stdout"
echo "--- stderr"; cat "$dir/stderr"
echo "--- exit status $status (expected $want_status)"
fail=0
if [ "$status" != "$want_status" ]; then echo "FAIL: exit status"; fail=1; fi
if ! grep -Eq -- "$regex" "$dir/$stream"; then echo "FAIL: $stream does not match /$regex/"; fail=1; fi
if [ $one_line = 1 ] && [ "$(wc -l < "$dir/$stream")" != 1 ]; then
  echo "FAIL: $stream is not one line"; fail=1
fi
exit $fail
