# Bad input fails fast with exit 2 and a located message; an unreachable
# libvirtd is one clear message and exit 1.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
printf 'name: bad\nvariants:\n  - { name: a, kernel: distro, colour: red }\n' >"$T/bad.yaml"
set +e
"$MMLAB" run "$T/bad.yaml" 2>"$T/err"; rc=$?
set -e
[ $rc = 2 ] || fail "bad job gave exit $rc"
grep -q "bad.yaml:3:" "$T/err" || { cat "$T/err"; fail "no file:line in the message"; }

j=$(job nokernel '{ name: noop }')
sed -i 's|kernel: distro|kernel: /nonexistent/bzImage|' "$j"
set +e
"$MMLAB" run "$j" 2>"$T/err"; rc=$?
set -e
[ $rc = 2 ] || fail "missing kernel gave exit $rc"
grep -q "/nonexistent/bzImage" "$T/err" || fail "missing kernel not named"

j=$(job unreach '{ name: noop }')
set +e
"$MMLAB" --connect 'qemu+unix:///system?socket=/nonexistent/sock' run "$j" 2>"$T/err"; rc=$?
set -e
[ $rc = 1 ] || fail "unreachable libvirt gave exit $rc"
grep -qi "libvirtd" "$T/err" || { cat "$T/err"; fail "no hint about libvirtd"; }
[ "$(grep -c 'error' "$T/err")" -le 2 ] || { cat "$T/err"; fail "more than one error message"; }
echo ok
