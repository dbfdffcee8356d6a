run_bench() {
	$SHELLPACK_INCLUDE/shellpack-bench-rawget
}
