run_bench() {
	$SHELLPACK_INCLUDE/shellpack-bench-thp --size $THP_SIZE
}
