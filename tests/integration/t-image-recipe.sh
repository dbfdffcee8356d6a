#!/bin/bash
# Image recipes (docs/image.md, RECIPES): a user's recipe in a directory of
# its own is what "mmlab image build --recipe" builds and what a job's
# "image: { recipe: ... }" boots; --dry-run shows the resolved recipe and
# its cache key without building; a bad recipe is exit 2 with its
# FILE:LINE:COLUMN. Only initramfs images are built (seconds); the disk
# recipe is checked with --dry-run.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
export MMLAB_CACHE=$T/cache
mkdir -p "$MMLAB_CACHE"
cp "$MMLAB_SRCDIR/build/cache/accel.json" "$MMLAB_CACHE/" 2>/dev/null || true

# the default recipes, by kind
"$MMLAB" image build --dry-run --json >"$T/def.json" || fail "dry run of the default failed"
assert_jq "$T/def.json" '.kind == "initramfs" and .name == "initramfs" and .cached == false'
"$MMLAB" image build --kind debootstrap --dry-run --json >"$T/defdisk.json" ||
	fail "dry run of the default disk failed"
assert_jq "$T/defdisk.json" '.suite == "bookworm" and .variant == "minbase" and .size == 4294967296'
[ ! -d "$MMLAB_CACHE/images" ] || [ -z "$(ls "$MMLAB_CACHE/images")" ] ||
	fail "a dry run wrote to the cache: $(ls "$MMLAB_CACHE/images")"

# a user's initramfs recipe: one more file
mkdir -p "$T/recipes"
echo "hello from a recipe" >"$T/recipes/motd"
cat >"$T/recipes/motd.yaml" <<'EOF'
kind: initramfs
dirs: [/dev, /proc, /sys, /tmp, /run, /root, /mmlab, /mmlab/workloads]
devices:
  - { path: /dev/console, type: char, major: 5, minor: 1, mode: "0600" }
  - { path: /dev/null, type: char, major: 1, minor: 3, mode: "0666" }
files:
  - { path: /etc/motd, src: motd }
EOF
"$MMLAB" image build --recipe "$T/recipes/motd.yaml" --dry-run --json >"$T/my.json" ||
	fail "dry run of the user's recipe failed"
assert_jq "$T/my.json" ".kind == \"initramfs\" and .name == \"motd\" and .hash != \"$(jq -r .hash "$T/def.json")\""
# the job runs on it: the run builds the recipe's image (the path the dry run named)
j=$(job recipe-noop "{ name: noop }" "" "image: { recipe: recipes/motd.yaml }")
"$MMLAB" run "$j" 2>"$T/run.err" || fail "noop on the user's initramfs failed: $(tail -5 "$T/run.err")"
grep -q "built the guest image $(jq -r .path "$T/my.json")" "$T/run.err" ||
	fail "the run did not build the recipe's image: $(grep 'guest image' "$T/run.err")"
"$MMLAB" results show --json >"$T/r.json"
assert_jq "$T/r.json" '.variants[0].iterations[0].status == "ok"'
zcat "$(jq -r .path "$T/my.json")" | cpio -it --quiet 2>/dev/null >"$T/names" ||
	fail "cannot list $(jq -r .path "$T/my.json")"
grep -qx "etc/motd" "$T/names" || fail "etc/motd is not in the image: $(cat "$T/names")"
grep -qx "etc" "$T/names" || fail "the parent etc/ is not in the image"
# built once: now cached, and listed with its recipe
"$MMLAB" image build --recipe "$T/recipes/motd.yaml" --json >"$T/b.json"
assert_jq "$T/b.json" ".built == false and .path == \"$(jq -r .path "$T/my.json")\""
"$MMLAB" image list --json >"$T/list.json"
assert_jq "$T/list.json" '[.[] | select(.recipe == "motd")] | length == 1'

# a user's disk recipe by name from MMLAB_IMAGES_DIR: its own cache key,
# changed by --suite; --kind must agree with it
cp "$MMLAB_SRCDIR/images/"*.yaml "$T/recipes/"
sed 's/^packages: \[\]/packages: [stress-ng]/' "$MMLAB_SRCDIR/images/debootstrap.yaml" \
	>"$T/recipes/stress.yaml"
MMLAB_IMAGES_DIR=$T/recipes "$MMLAB" image build --recipe stress --dry-run --json >"$T/s.json" ||
	fail "dry run of the disk recipe failed"
assert_jq "$T/s.json" ".kind == \"debootstrap\" and .packages == [\"stress-ng\"] and .hash != \"$(jq -r .hash "$T/defdisk.json")\""
MMLAB_IMAGES_DIR=$T/recipes "$MMLAB" image build --recipe stress --suite trixie --dry-run --json \
	>"$T/s2.json" || fail "dry run with --suite failed"
assert_jq "$T/s2.json" ".suite == \"trixie\" and .hash != \"$(jq -r .hash "$T/s.json")\""
rc=0; MMLAB_IMAGES_DIR=$T/recipes "$MMLAB" image build --recipe stress --kind initramfs 2>"$T/e" || rc=$?
[ $rc = 2 ] && grep -q "is of kind debootstrap, not initramfs" "$T/e" ||
	fail "--kind against the recipe: exit $rc $(cat "$T/e")"

# a bad recipe: exit 2, located
printf 'kind: initramfs\nfiles: [{ path: /etc/x, txt: a }]\n' >"$T/recipes/bad.yaml"
rc=0; "$MMLAB" image build --recipe "$T/recipes/bad.yaml" 2>"$T/e" || rc=$?
[ $rc = 2 ] || fail "bad recipe: exit $rc"
grep -q "bad.yaml:2:25: error: files\[0\].txt: unknown key 'txt' (did you mean 'text'?)" "$T/e" ||
	fail "bad recipe: $(cat "$T/e")"
rc=0; "$MMLAB" image build --recipe no-such-recipe 2>"$T/e" || rc=$?
[ $rc = 2 ] && grep -q "no image recipe 'no-such-recipe'" "$T/e" || fail "missing recipe: $rc $(cat "$T/e")"
j=$(job recipe-bad "{ name: noop }" "" "image: { recipe: recipes/bad.yaml }")
rc=0; "$MMLAB" run "$j" 2>"$T/e" || rc=$?
[ $rc = 2 ] && grep -q "recipe-bad.yaml:8:18: error: image.recipe: cannot use the image recipe" "$T/e" ||
	fail "job with a bad recipe: $rc $(cat "$T/e")"
no_leftover_domains
echo ok
