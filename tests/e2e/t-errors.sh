# A patch that does not apply and a fragment option Kconfig cannot set are
# clear errors (variant, patch, files; the dropped options): the patch is
# found not to apply without a checkout (the lab worktree is as it was),
# and Kconfig's failure leaves the lab worktree clean.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

# c7's patch needs c5's line in kcompactd(): it does not apply to e2e-c4
git -C "$REPO" format-patch -q --stdout e2e-c6..e2e-c7 >"$T/c7.mbox"
wt0=$(worktree_state)
rc=0
"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --apply "$T/c7.mbox" \
	--fragment "$LAB_CONFIG" --name nopatch 2>"$T/err" || rc=$?
cat "$T/err"
[ "$rc" = 1 ] || fail "exit $rc; expected 1"
grep -q "variant 'nopatch': apply $T/c7.mbox failed in mm/compaction.c" "$T/err" ||
	fail "the error does not name the variant, the patch and the file"
[ "$(worktree_state)" = "$wt0" ] || fail "the patch that does not apply changed the lab worktree"

# NFS_FS depends on INET, and networking is off (tinyconfig, lab.config)
printf 'CONFIG_NFS_FS=y\nCONFIG_COMPACTION=y\n' >"$T/bad.config"
rc=0
"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" \
	--fragment "$T/bad.config" --name badcfg 2>"$T/err" || rc=$?
cat "$T/err"
[ "$rc" = 1 ] || fail "exit $rc; expected 1"
grep -q "variant 'badcfg': Kconfig dropped 1 option.*CONFIG_NFS_FS=y (got: is not set)" "$T/err" ||
	fail "the error does not list CONFIG_NFS_FS"
assert_worktree_clean

# a commit that is not there
rc=0
"$MMLAB" kernel build --tree "$REPO" --ref e2e-nosuch --name noref 2>"$T/err" || rc=$?
[ "$rc" = 1 ] || fail "exit $rc; expected 1"
grep -q "'e2e-nosuch' is not a commit" "$T/err" || fail "unclear error for a missing ref"
echo ok
