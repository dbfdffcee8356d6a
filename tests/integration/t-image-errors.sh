#!/bin/bash
# Failures of the debootstrap image build are clear errors and leave no
# image (and no leftovers) in the cache: a package that does not exist, an
# unreachable archive, a full disk. Bad options and jobs are exit 2.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
export MMLAB_CACHE=$T/cache
mkdir -p "$MMLAB_CACHE"
cp "$MMLAB_SRCDIR/build/cache/accel.json" "$MMLAB_CACHE/" 2>/dev/null || true

no_images() {
	local left
	left=$(ls "$MMLAB_CACHE/images" 2>/dev/null | grep '^debootstrap-' || true)
	[ -z "$left" ] || fail "the cache holds $left after a failed build"
}

# usage errors
rc=0; "$MMLAB" image build --kind debootstrap --packages 'Bad!' 2>"$T/e" || rc=$?
[ $rc = 2 ] || fail "bad package name: exit $rc"
grep -q "is not a Debian package name" "$T/e" || fail "bad package name: $(cat "$T/e")"
rc=0; "$MMLAB" image build --kind debootstrap --size 1M 2>"$T/e" || rc=$?
[ $rc = 2 ] || fail "bad size: exit $rc"
j=$(job bad "{ name: noop }" "" "collect_files: [/var/log/../x]")
rc=0; "$MMLAB" run "$j" 2>"$T/e" || rc=$?
[ $rc = 2 ] && grep -q "collect_files\[0\]: '/var/log/../x' is not a usable path" "$T/e" ||
	fail "collect_files with '..': $rc $(cat "$T/e")"

# unreachable archive
rc=0; MMLAB_DEBIAN_MIRROR=http://127.0.0.1:9/debian \
	"$MMLAB" image build --kind debootstrap 2>"$T/e" || rc=$?
[ $rc = 1 ] || fail "unreachable mirror: exit $rc"
grep -q "cannot download from the package archive http://127.0.0.1:9/debian" "$T/e" ||
	fail "unreachable mirror: $(tail -5 "$T/e")"
no_images

# a package that does not exist
rc=0; "$MMLAB" image build --kind debootstrap --packages no-such-package-mmlab 2>"$T/e" || rc=$?
[ $rc = 1 ] || fail "unknown package: exit $rc"
grep -q "has no package(s).*no-such-package-mmlab" "$T/e" || fail "unknown package: $(tail -5 "$T/e")"
no_images

# a full disk: the cache on a 32 MiB tmpfs (needs root to mount)
if mkdir -p "$T/small" && mount -t tmpfs -o size=32m tmpfs "$T/small" 2>/dev/null; then
	rc=0; MMLAB_CACHE=$T/small "$MMLAB" image build --kind debootstrap 2>"$T/e" || rc=$?
	left=$(ls "$T/small/images" 2>/dev/null | grep '^debootstrap-' || true)
	umount "$T/small"
	[ $rc = 1 ] || fail "full disk: exit $rc"
	grep -q "the disk is full" "$T/e" || fail "full disk: $(tail -5 "$T/e")"
	[ -z "$left" ] || fail "full disk left $left"
else
	echo "skipped the full-disk case: cannot mount a tmpfs here"
fi
echo ok
