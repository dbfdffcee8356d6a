# The HTML report renders in headless Chromium: the screenshot is not blank,
# the box plots and the significant cells are painted, and the DOM Chromium
# built holds one <svg class="box"> per compared metric and one
# <svg class="ts"> per time series. No VM: the run is the unit tests'
# fixture (tests/unit/compare/run1.json) written into a results store.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps)"
command -v identify >/dev/null && command -v stream >/dev/null ||
	fail "ImageMagick is not installed (scripts/install-deps)"

fix="$MMLAB_SRCDIR/tests/unit/compare/run1.json"
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

"$MMLAB" report "$run" -o "$T/report.html" 2>"$T/err" || fail "mmlab report: $(cat "$T/err")"
"$MMLAB" compare "$run" --format json >"$T/cmp.json" 2>/dev/null
metrics=$(jq '.metrics | length' "$T/cmp.json")
series=$(jq '[.variants[].iterations[] | select(.status == "ok") | .timeseries |
	select(.) | (.series // .) | keys[]] | unique | length' "$fix")
[ "$metrics" -ge 10 ] || fail "the fixture compares only $metrics metrics"
[ "$series" -ge 1 ] || fail "the fixture has no time series"
[ "$series" -le 16 ] || series=16
sig=$(jq '[.metrics[].variants[] | select(.significant)] | length' "$T/cmp.json")
[ "$sig" -ge 1 ] || fail "the fixture has no significant cell"

chrome() {
	local profile
	profile=$(mktemp -d "$T/chrome.XXXXXX")
	timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" --window-size=1200,2000 "$@" \
		"file://$T/report.html" 2>>"$T/chrome.log"
}
chrome --dump-dom >"$T/dom.html" || fail "chromium --dump-dom: $(tail -5 "$T/chrome.log")"
boxes=$(grep -o '<svg[^>]*class="box"' "$T/dom.html" | wc -l)
ts=$(grep -o '<svg[^>]*class="ts"' "$T/dom.html" | wc -l)
[ "$boxes" = "$metrics" ] || fail "DOM has $boxes box plots for $metrics metrics"
[ "$ts" = "$series" ] || fail "DOM has $ts time-series plots for $series series"
# the one page really is self-contained: no script, nothing fetched
! grep -qiE '<script|<link|src="http|href="http' "$T/dom.html" || fail "external assets"

(cd "$T" && chrome --screenshot="$T/shot.png") || fail "chromium --screenshot: $(tail -5 "$T/chrome.log")"
[ -s "$T/shot.png" ] || fail "no screenshot"
read -r w h colours < <(identify -format '%w %h %k\n' "$T/shot.png")
[ "$w" = 1200 ] && [ "$h" = 2000 ] || fail "screenshot is ${w}x$h, not 1200x2000"
[ "$colours" -ge 32 ] || fail "screenshot has $colours colours: blank or unstyled"
# count pixels of the painted colours: the first variant's box fill
# (#1f77b4 at 25 % on white), the second's (#d62728), the significant cell
stream -map rgb -storage-type char "$T/shot.png" - | od -An -v -tx1 -w3 >"$T/pixels"
blue=$(grep -c ' c7 dd ec' "$T/pixels" || true)
red=$(grep -c ' f5 c9 c9' "$T/pixels" || true)
green=$(grep -c ' e6 f4 e6' "$T/pixels" || true)
echo "box plots $boxes, time series $ts, colours $colours, pixels blue $blue red $red green $green"
[ "$blue" -ge 2000 ] || fail "the first variant's boxes are not painted ($blue pixels)"
[ "$red" -ge 2000 ] || fail "the second variant's boxes are not painted ($red pixels)"
[ "$green" -ge 500 ] || fail "significant cells are not highlighted ($green pixels)"
[ -n "${MMLAB_KEEP_SCREENSHOT:-}" ] && cp "$T/shot.png" "$MMLAB_KEEP_SCREENSHOT"
echo ok
