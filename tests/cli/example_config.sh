#!/bin/sh
# example_config.sh CUZK EXAMPLE: dist/cuzk.example.toml is what
# `cuzk daemon --example-config` writes from the table of keys (so its
# meanings and defaults cannot drift from the code); it is a configuration
# the daemon reads; its commented values are the true defaults (uncommenting
# all of them changes no effective value); every key --print-config shows is
# in it.
set -eu
cuzk=$1 example=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$cuzk" daemon --example-config > "$dir/generated"
if ! diff "$dir/generated" "$example"; then
  echo "FAIL: $example differs from \`cuzk daemon --example-config\` (regenerate it)"; exit 1
fi
"$cuzk" daemon --config "$example" --print-config > "$dir/as-shipped"
sed -E 's/^#([a-z0-9_]+ = )/\1/' "$example" > "$dir/uncommented.toml"
"$cuzk" daemon --config "$dir/uncommented.toml" --print-config > "$dir/uncommented"
if ! diff "$dir/as-shipped" "$dir/uncommented"; then
  echo "FAIL: a commented value in $example is not the default"; exit 1
fi
missing=0
for key in $(sed -nE 's/^([a-z0-9_]+) = .*/\1/p' "$dir/as-shipped"); do
  grep -Eq "^#?$key = " "$example" || { echo "FAIL: $key is not in $example"; missing=1; }
done
[ $missing = 0 ] || exit 1
echo "example configuration: parses, defaults true, $(grep -cE '^#?[a-z0-9_]+ = ' "$example") keys"
