# Distribution kernels (docs/kernels.md, "Distribution kernels"): one job
# boots two real Debian kernel packages on a 2-node guest; compare works on
# the run and run.json names both packages; a second run takes the cached
# package without apt; an .rpm built here around a Debian vmlinuz boots;
# an unknown package, a truncated .deb and an .rpm without a kernel are
# refused with exit 2 and leave nothing in the cache.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
for p in apt-get apt-cache rpmbuild dpkg-deb depmod; do
	command -v $p >/dev/null || { echo "needs $p (scripts/install-deps test)"; exit 77; }
done
P61=linux-image-6.1.0-47-amd64
P612=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | awk '{print $1}' | sort -V | tail -n 1)
[ -n "$P612" ] || { echo "apt knows no linux-image-6.12.*+deb12-amd64 (apt-get update?)"; exit 77; }
apt-cache policy "$P61" | grep 'Candidate: [0-9]' >/dev/null || { echo "apt knows no $P61"; exit 77; }
export MMLAB_CACHE="$T/cache"
PK="$MMLAB_CACHE/kernels/packages"
wl='{ name: usemem, params: { threads: 1, size: 16M } }'
topo='{ nodes: 2, cpus_per_node: 1, memory_per_node: 256M }'
pkgjob() { # pkgjob NAME VARIANT-LINES...
	local name=$1
	shift
	{
		echo "name: $name"
		echo "variants:"
		printf '%s\n' "$@"
		echo "topology: $topo"
		echo "workload: $wl"
		echo "iterations: 1"
		echo "timeouts: { boot: 120s, iteration: 300s }"
	} >"$T/$name.yaml"
	echo "$T/$name.yaml"
}
entries() { find "$PK" -mindepth 1 -maxdepth 1 -name '*[0-9a-f]' 2>/dev/null | wc -l; }

# 1. two packages, one job
j=$(pkgjob two "  - { name: k61, kernel: { package: $P61 } }" \
	"  - { name: k612, kernel: { package: $P612 } }")
"$MMLAB" run "$j" 2>&1 | tee "$T/run1.log"
grep -q "apt-get download $P61=" "$T/run1.log" || fail "the first run did not fetch $P61"
"$MMLAB" results show --json >"$T/r1.json"
assert_jq "$T/r1.json" '.status == "complete"'
for i in 0 1; do
	it=".variants[$i].iterations[0]"
	assert_jq "$T/r1.json" "$it.status == \"ok\""
	assert_jq "$T/r1.json" "($it.guest.nodes | length) == 2"
	assert_jq "$T/r1.json" ".variants[$i].kernel.release == $it.guest.kernel_release"
	assert_jq "$T/r1.json" ".variants[$i].kernel.source == \"package\""
	assert_jq "$T/r1.json" ".variants[$i].kernel.package.architecture == \"amd64\""
	assert_jq "$T/r1.json" "(.variants[$i].kernel.package.sha256 | length) == 64"
	echo "variant $i booted $(jq -r "$it.guest.kernel_release" "$T/r1.json")"
done
assert_jq "$T/r1.json" ".variants[0].kernel.package.name == \"$P61\""
assert_jq "$T/r1.json" ".variants[1].kernel.package.name == \"$P612\""
assert_jq "$T/r1.json" '.variants[0].iterations[0].guest.kernel_release == "6.1.0-47-amd64"'
run1=$(jq -r .run "$T/r1.json")
"$MMLAB" compare "$run1" >"$T/cmp.txt" || fail "compare failed on the package run"
grep -q k612 "$T/cmp.txt" || fail "compare does not show the variant k612"
"$MMLAB" kernel list >"$T/list.txt"
grep "$P61" "$T/list.txt" | grep -q "$run1" || fail "kernel list lacks $P61 used by $run1"
[ "$(entries)" = 2 ] || fail "expected 2 cached packages, got $(entries)"

# 2. a second run: the package from the cache (no apt-get download, same
# mtime), beside an .rpm built here around the Debian vmlinuz
e61="$PK/$(jq -r '.variants[0].kernel.package.sha256' "$T/r1.json")"
m0=$(stat -c %Y "$e61/meta.json")
rel=$(jq -r .release "$e61/meta.json")
mkrpm() { # mkrpm NAME FILE-IN-BUILDROOT SOURCE
	mkdir -p "$T/rpm/$1"
	cat >"$T/rpm/$1.spec" <<SPEC
Name: $1
Version: 6.1.170
Release: 3
Summary: test kernel
License: GPL-2.0
BuildArch: x86_64
%description
test
%install
mkdir -p %{buildroot}$(dirname "$2")
cp $3 %{buildroot}$2
%files
$2
SPEC
	rpmbuild -bb --quiet --define "_topdir $T/rpm/$1" --define "_build_id_links none" \
		"$T/rpm/$1.spec" >"$T/rpm/$1.log" 2>&1 || { cat "$T/rpm/$1.log"; fail "rpmbuild $1"; }
	find "$T/rpm/$1/RPMS" -name '*.rpm' | head -n 1
}
krpm=$(mkrpm kernel-core "/usr/lib/modules/$rel/vmlinuz" "$e61/vmlinuz")
j=$(pkgjob again "  - { name: k61, kernel: { package: $P61 } }" \
	"  - { name: rpm, kernel: { rpm: $krpm } }")
"$MMLAB" run "$j" 2>&1 | tee "$T/run2.log"
! grep -q "apt-get download" "$T/run2.log" || fail "the second run downloaded again"
[ "$(stat -c %Y "$e61/meta.json")" = "$m0" ] || fail "the cached package was written again"
"$MMLAB" results show --json >"$T/r2.json"
assert_jq "$T/r2.json" '.status == "complete"'
assert_jq "$T/r2.json" '.variants[0].kernel.package.cache_hit == true'
assert_jq "$T/r2.json" '.variants[1].kernel.package.format == "rpm"'
assert_jq "$T/r2.json" '.variants[1].kernel.package.architecture == "x86_64"'
assert_jq "$T/r2.json" ".variants[1].iterations[0].guest.kernel_release == \"$rel\""
echo "rpm variant booted $(jq -r '.variants[1].iterations[0].guest.kernel_release' "$T/r2.json")"
n0=$(entries)

# 3. refusals: exit 2, the job's place, nothing stored
refuse() { # refuse NAME VARIANT-LINE PATTERN
	local j rc=0
	j=$(pkgjob "$1" "$2")
	"$MMLAB" run "$j" >"$T/$1.out" 2>&1 || rc=$?
	cat "$T/$1.out"
	[ "$rc" = 2 ] || fail "$1: exit $rc, want 2"
	grep -q "$j:3:[0-9]*: .*$3" "$T/$1.out" || fail "$1: no located error matching '$3'"
	[ "$(entries)" = "$n0" ] || fail "$1: something was stored"
	[ -z "$(find "$PK" -maxdepth 1 -name '.*-*')" ] || fail "$1: scratch left in $PK"
}
refuse unknown "  - { name: u, kernel: { package: linux-image-6.1.0-99-amd64 } }" \
	"apt knows no package 'linux-image-6.1.0-99-amd64'; the nearest are: linux-image-6.1.0"
mkdir -p "$T/deb/boot" "$T/deb/DEBIAN"
cp "$e61/vmlinuz" "$T/deb/boot/vmlinuz-$rel"
printf 'Package: linux-image-test\nVersion: 1.0-1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' >"$T/deb/DEBIAN/control"
dpkg-deb -Zxz --build "$T/deb" "$T/whole.deb" >/dev/null
head -c $(($(stat -c %s "$T/whole.deb") / 2)) "$T/whole.deb" >"$T/trunc.deb"
refuse truncated "  - { name: t, kernel: { deb: $T/trunc.deb } }" "truncated or corrupt"
norpm=$(mkrpm kernel-doc /usr/share/doc/kernel-doc/README "$T/two.yaml")
refuse nokernel "  - { name: n, kernel: { rpm: $norpm } }" "holds no kernel image"
no_leftover_domains
echo ok
