# The HTML report renders in headless Chromium. Two runs, written into a
# results store without booting anything: tests/unit/compare/demo.json (a
# real `make demo` run: nothing significant, constants, 1 Hz series on two
# nodes) and tests/unit/compare/run1.json (three variants, seven
# significant changes). For each: the DOM Chromium built holds the summary
# (as many rows as `compare --format json` has significant cells, or the
# "no significant change" sentence with a detectable change), the forest
# plot, one box plot per metric that varies and none for constants, one
# time-series panel per series that moves; nothing is fetched; the first
# screen is not blank and shows the header, the summary and the plots.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps)"
command -v identify >/dev/null && command -v stream >/dev/null ||
	fail "ImageMagick is not installed (scripts/install-deps)"

# the run's iterations as the store keeps them: run.json + iteration.json each
store_run() {
	local fix=$1 run v n i
	run=$(jq -r .run "$fix")
	mkdir -p "$MMLAB_RESULTS/$run"
	jq '.variants |= map(del(.iterations))' "$fix" >"$MMLAB_RESULTS/$run/run.json"
	for v in $(jq -r '.variants[].name' "$fix"); do
		n=$(jq --arg v "$v" '.variants[] | select(.name == $v) | .iterations | length' "$fix")
		for ((i = 0; i < n; i++)); do
			mkdir -p "$MMLAB_RESULTS/$run/$v/$i"
			jq --arg v "$v" --argjson i "$i" \
				'.variants[] | select(.name == $v) | .iterations[$i]' "$fix" \
				>"$MMLAB_RESULTS/$run/$v/$i/iteration.json"
		done
	done
	echo "$run"
}

chrome() {
	local html=$1 size=$2 profile
	shift 2
	profile=$(mktemp -d "$T/chrome.XXXXXX")
	timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" --window-size="$size" "$@" \
		"file://$html" 2>>"$T/chrome.log"
}

# pixels of one colour (hex "rr gg bb") in a screenshot
pixels() {
	stream -map rgb -storage-type char "$1" - | od -An -v -tx1 -w3 | grep -c " $2" || true
}

check_report() {
	local name=$1 run=$2 dir="$T/$1"
	mkdir -p "$dir"
	"$MMLAB" report "$run" -o "$dir/report.html" 2>"$T/err" || fail "mmlab report: $(cat "$T/err")"
	"$MMLAB" compare "$run" --format json >"$dir/cmp.json" 2>/dev/null
	"$MMLAB" compare "$run" >"$dir/cmp.txt" 2>/dev/null
	sig=$(jq '[.metrics[].variants[] | select(.significant)] | length' "$dir/cmp.json")
	varying=$(jq '[.metrics[] | select(.constant | not)] | length' "$dir/cmp.json")
	constant=$(jq '[.metrics[] | select(.constant)] | length' "$dir/cmp.json")
	# a series is drawn when it moves: a level (nr_*) changes, a counter grows
	moving=$(jq '[.variants[].iterations[] | select(.status == "ok") | .timeseries |
		select(.) | (.series // .) | to_entries[]] | group_by(.key) |
		map(select((.[0].key | test("(^|\\.)nr_[^.]*$")) as $level |
			[.[].value | if $level then .[] else (.[0] as $f | .[] - $f) end] |
			unique | length > 1)) | length' "$MMLAB_SRCDIR/tests/unit/compare/$name.json")
	[ "$moving" -le 12 ] || moving=12

	chrome "$dir/report.html" 1280,900 --dump-dom >"$dir/dom.html" ||
		fail "chromium --dump-dom: $(tail -5 "$T/chrome.log")"
	boxes=$(grep -o '<svg[^>]*class="box"' "$dir/dom.html" | wc -l)
	ts=$(grep -o '<svg[^>]*class="ts"' "$dir/dom.html" | wc -l)
	forest=$(grep -o '<svg[^>]*class="forest"' "$dir/dom.html" | wc -l)
	# summary rows: the <tr>s of table.sum but its header
	sumrows=$(tr -d '\n' <"$dir/dom.html" | grep -o '<table class="sum">.*</table>' |
		sed 's#</table>.*##' | grep -o '<tr class=' | wc -l || true)
	textrows=$(sed '/^$/q' "$dir/cmp.txt" | grep -c '^  [^ ]' || true)
	echo "$name: significant $sig, summary rows html $sumrows text $((textrows - (sig > 0))), box plots $boxes for $varying varying metrics ($constant constant), series $ts of $moving, forest $forest"
	[ "$sumrows" = "$sig" ] || fail "$name: the summary has $sumrows rows, json $sig significant cells"
	[ "$((textrows - (sig > 0)))" = "$sig" ] || fail "$name: the text summary has $textrows lines for $sig cells"
	[ "$boxes" = "$varying" ] || fail "$name: $boxes box plots for $varying metrics that vary"
	[ "$ts" = "$moving" ] || fail "$name: $ts time-series panels for $moving moving series"
	[ "$forest" = 1 ] || fail "$name: no forest plot"
	if [ "$sig" = 0 ]; then
		grep -q 'class="verdict">No significant change in .* could detect changes of [0-9.]*% or more' \
			"$dir/dom.html" || fail "$name: no 'no significant change' sentence with a detectable change"
		head -3 "$dir/cmp.txt" | tr '\n' ' ' | grep -q '^Summary: no significant change in .*could detect changes of [0-9.]*% or more' ||
			fail "$name: the text summary does not say so"
	fi
	for m in $(jq -r '.metrics[] | select(.constant) | .name' "$dir/cmp.json"); do
		! grep -q "class=\"box\"[^>]*data-metric=\"$m\"" "$dir/dom.html" ||
			fail "$name: constant $m has a box plot"
	done
	# the one page really is self-contained: no script, nothing fetched
	! grep -qiE '<script|<link|src="http|href="http' "$dir/dom.html" || fail "$name: external assets"

	(cd "$dir" && chrome "$dir/report.html" 1280,900 --screenshot="$dir/first.png") ||
		fail "chromium --screenshot: $(tail -5 "$T/chrome.log")"
	[ -s "$dir/first.png" ] || fail "$name: no screenshot"
	read -r w h colours < <(identify -format '%w %h %k\n' "$dir/first.png")
	[ "$w" = 1280 ] && [ "$h" = 900 ] || fail "$name: screenshot is ${w}x$h, not 1280x900"
	[ "$colours" -ge 64 ] || fail "$name: first screen has $colours colours: blank or unstyled"
	white=$(pixels "$dir/first.png" 'ff ff ff')
	[ "$white" -le $((1280 * 900 * 97 / 100)) ] || fail "$name: first screen is $white white pixels of $((1280 * 900))"
	warn=$(pixels "$dir/first.png" 'ff f3 dc')
	echo "$name: first screen colours $colours, white $white, warning box $warn"
	[ "$warn" -ge 2000 ] || fail "$name: the comparability warning is not on the first screen ($warn pixels)"
	(cd "$dir" && chrome "$dir/report.html" 1280,7000 --screenshot="$dir/all.png") ||
		fail "chromium --screenshot: $(tail -5 "$T/chrome.log")"
	# the first two variants' box fills (#1f77b4, #d62728 at 25 % on white)
	blue=$(pixels "$dir/all.png" 'c7 dd ec')
	red=$(pixels "$dir/all.png" 'f5 c9 c9')
	echo "$name: page pixels blue $blue red $red"
	[ "$blue" -ge 2000 ] || fail "$name: the first variant's boxes are not painted ($blue pixels)"
	[ "$red" -ge 2000 ] || fail "$name: the second variant's boxes are not painted ($red pixels)"
	[ -n "${MMLAB_KEEP_SCREENSHOT:-}" ] && cp "$dir/first.png" "$MMLAB_KEEP_SCREENSHOT.$name.png"
	return 0
}

check_report demo "$(store_run "$MMLAB_SRCDIR/tests/unit/compare/demo.json")"
# the significant cells are green (#e6f4e6) and on the first screen
run1=$(store_run "$MMLAB_SRCDIR/tests/unit/compare/run1.json")
check_report run1 "$run1"
green=$(pixels "$T/run1/first.png" 'e6 f4 e6')
better=$(pixels "$T/run1/first.png" '1a 7f 37')
echo "run1: first screen green (forest bars, better) $better"
[ "$better" -ge 500 ] || fail "run1: the forest plot's green bars are not on the first screen ($better pixels)"
green=$(pixels "$T/run1/all.png" 'e6 f4 e6')
[ "$green" -ge 500 ] || fail "run1: significant cells are not highlighted ($green pixels)"
echo ok
