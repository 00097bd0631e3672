#!/usr/bin/env bash
# Shows a waveform (FST) of a Verilated top in GTKWave with the project's saved view of that top.
#
#   scripts/waves.sh open [FST] [options]          GTKWave window (needs a DISPLAY)
#   scripts/waves.sh png  [FST] [OUT.png] [options] the same view rendered headless (Xvfb) to a PNG,
#                                                  default build/waves/<FST basename>.png
# FST defaults to the newest *.fst under build/. Options:
#   --cycles N        time window: N fabric clock cycles from 2 cycles before the first message
#                     enters the fabric (default 20: message names stay readable)
#   --from T --to T   time window, T like 250ns, 1.5us, 120000ps (plain numbers are ps)
#   --full            the whole trace
#   --size WxH        window / PNG size in pixels (png default 1920x1080; open: the view's size)
#   --out OUT.png     png mode: where to write (same as the OUT.png argument)
# Environment: WAVES_TIMEOUT seconds GTKWave may take in png mode (default 60).
#
# The view is waves/<top>.gtkw, <top> being the FST's top module (the scope under the model's root
# scope; fabric_top for every simulator trace). Without such a file GTKWave opens with no view.
# The view is not loaded as it is: a copy adapted to this FST goes to build/waves/<FST basename>.gtkw
# (GTKWave's File > Write Save File writes there, never into waves/):
#   - a view line `[*] adapt: root R NumCn C NumPorts P` says for which shape its signal paths are
#     written; the copy renames root scope R to the FST's, moves port C (g_port[C], "p C", "port C")
#     to the FST's NumCn (the first MN port) and gives the top-level per-port vectors [P-1:0] the
#     FST's width;
#   - translate filter paths (build/gen/*.gtkwfilter, relative in the view) become absolute, so the
#     copy works from any directory. The filters are regenerated first from rtl/include/messages.toml
#     (scripts/gen_gtkw_filter.py), which also checks the views' flit bit positions.
# In png mode the script fails (exit 1, one line saying why) when there is no FST, when the view's
# signals are not all in the FST, when GTKWave fails or hangs, or when the PNG is missing or blank.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$(pwd)

die() { echo "waves.sh: $*" >&2; exit 1; }
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# ---- arguments ----
[ $# -ge 1 ] || usage
mode=$1; shift
case "$mode" in open|png) ;; -h|--help) usage ;; *) echo "waves.sh: unknown mode '$mode'" >&2; usage ;; esac
fst="" out="" cycles=20 from="" to="" full=0 size=1920x1080 size_given=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cycles) cycles=${2:?--cycles needs a number}; shift 2 ;;
    --from)   from=${2:?--from needs a time}; shift 2 ;;
    --to)     to=${2:?--to needs a time}; shift 2 ;;
    --full)   full=1; shift ;;
    --size)   size=${2:?--size needs WxH}; size_given=1; shift 2 ;;
    --out)    out=${2:?--out needs a file name}; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "waves.sh: unknown option '$1'" >&2; usage ;;
    *) if [ -z "$fst" ]; then fst=$1; elif [ "$mode" = png ] && [ -z "$out" ]; then out=$1
       else echo "waves.sh: unexpected argument '$1'" >&2; usage; fi; shift ;;
  esac
done
[[ "$cycles" =~ ^[1-9][0-9]*$ ]] || die "--cycles: '$cycles' is not a positive number"
[[ "$size" =~ ^([1-9][0-9]{2,4})x([1-9][0-9]{2,4})$ ]] || die "--size: '$size' is not WxH (e.g. 1600x900)"
width=${BASH_REMATCH[1]} height=${BASH_REMATCH[2]}
[ "${from:+x}" = "${to:+x}" ] || die "--from and --to go together"

for tool in gtkwave fst2vcd; do
  command -v "$tool" >/dev/null || die "$tool not found (make setup installs it)"
done
if [ "$mode" = png ]; then
  for tool in Xvfb identify; do
    command -v "$tool" >/dev/null || die "$tool not found (make setup installs it)"
  done
fi

if [ -z "$fst" ]; then
  fst=$(find build -name '*.fst' -type f -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -n 1 | cut -d' ' -f2-)
  [ -n "$fst" ] || die "no *.fst under build/: 'make waves-png' makes one, or run" \
    "bash scripts/run_sim.sh --config sim_configs/small.ini --seed 1 --trace build/waves/small.fst --quiet"
fi
[ -f "$fst" ] || die "$fst: no such file"
base=$(basename "$fst" .fst)
mkdir -p build/waves
[ "$mode" = png ] && [ -z "$out" ] && out=build/waves/$base.png

# ---- what is in the FST: scopes, shape, first message, clock period (one pass over its start) ----
# fst2vcd streams the header, then the values; awk stops reading as soon as it knows enough.
info=$(fst2vcd "$fst" 2>/dev/null | awk '
  function bin(s,   i, v) {
    v = 0; for (i = 1; i <= length(s); i++) v = v * 2 + (substr(s, i, 1) == "1"); return v
  }
  function show(x) { return x == "" ? "-" : x }
  /^\$timescale.*\$end/ { unit = $2; next }
  /^\$timescale/ { ts = 1; next }
  ts && /\$end/ { ts = 0; next }
  ts { gsub(/[ \t]/, ""); unit = $0; next }
  /^\$scope/ {
    d++; sc[d] = $3
    if (d == 1 && root == "") root = $3
    if (d == 2 && top == "") top = $3
    if (d >= 3 && sc[2] == top && $3 ~ /^g_port\[[0-9]+\]$/) {
      n = $3; gsub(/[^0-9]/, "", n); if (n + 1 > np) np = n + 1
    }
    next
  }
  /^\$upscope/ { d--; next }
  /^\$var/ {
    if (d == 2 && sc[2] == top) {
      if ($5 == "NumCn") idcn = $4
      if ($5 == "rx_valid_i") idrx = $4
      if ($5 == "clk_i") idclk = $4
    }
    next
  }
  /^\$enddefinitions/ { body = 1; next }
  !body { next }
  /^#/ {
    t = substr($0, 2) + 0; if (t0 == "") t0 = t
    if (++steps > 200000 || (numcn != "" && rx != "" && period != "")) exit
    next
  }
  /^b/ {
    split($0, f, " ")
    # ids compare as strings: awk would compare "5" and "5." as the number 5
    if ((f[2] "") == (idcn "") && numcn == "") numcn = bin(substr(f[1], 2))
    if ((f[2] "") == (idrx "") && rx == "" && f[1] ~ /1/) rx = t
    next
  }
  {
    v = substr($0, 1, 1); id = substr($0, 2)
    if ((id "") == (idrx "") && rx == "" && v == "1") rx = t
    if ((id "") == (idclk "") && v == "1") { if (rise != "" && period == "") period = t - rise; rise = t }
  }
  END {
    print show(root), show(top), show(numcn), show(np), show(t0), show(rx), show(period), (unit == "" ? "1ps" : unit)
  }
') || true
read -r f_root f_top f_numcn f_nports f_t0 f_rx f_period f_unit <<<"${info:-- - - - - - - -}"
[ "$f_root" != "-" ] || die "$fst: fst2vcd cannot read it (not an FST, or empty)"
[ "$f_top" != "-" ] || f_top=$f_root

to_ticks() {  # 250ns | 1.5us | 120000ps | 120000 -> ticks of the trace's timescale ($f_unit, e.g. 1ps)
  [[ "$1" =~ ^([0-9]+(\.[0-9]+)?)(fs|ps|ns|us|ms)?$ ]] || die "time '$1': expected a number with fs/ps/ns/us/ms"
  awk -v v="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]:-ps}" -v ts="$f_unit" '
    function ps(u) { return u == "fs" ? 0.001 : u == "ps" ? 1 : u == "ns" ? 1e3 : u == "us" ? 1e6 : u == "ms" ? 1e9 : 1e12 }
    BEGIN { n = ts + 0; if (n <= 0) n = 1; tu = ts; sub(/^[0-9.]+/, "", tu); if (tu == "") tu = "ps"
            printf "%.0f\n", v * ps(u) / (n * ps(tu)) }'
}

# ---- the view: waves/<top>.gtkw, adapted to this FST ----
shopt -s nullglob
python3 scripts/gen_gtkw_filter.py rtl/include/messages.toml build/gen waves/*.gtkw
shopt -u nullglob
view_src=""
for cand in "waves/$f_top.gtkw" "waves/$f_root.gtkw"; do
  [ -f "$cand" ] && { view_src=$cand; break; }
done
view=""
expected=0
if [ -n "$view_src" ]; then
  view=build/waves/$base.gtkw
  read -r _ _ _ v_root _ v_numcn _ v_nports _ <<<"$(grep -m1 '^\[\*\] adapt:' "$view_src" || echo '- - - - - - - - -')"
  sst=$([ "$mode" = png ] && echo 0 || echo 1)
  sed_args=(-e "s|^\^\([1-9][0-9]*\) build/gen/|^\1 $ROOT_DIR/build/gen/|"
            -e "s|^\[sst_expanded\] .*|[sst_expanded] $sst|")
  if [ "$mode" = png ] || [ "$size_given" = 1 ]; then
    sed_args+=(-e "s|^\[size\] .*|[size] $width $height|")
  fi
  if [ "$v_root" != "-" ] && [ "$v_root" != "$f_root" ]; then
    sed_args+=(-e "s/\([ )]\|^\)$v_root\./\1$f_root./g")
  fi
  if [ "$v_numcn" != "-" ] && [ "$f_numcn" != "-" ] && [ "$v_numcn" != "$f_numcn" ]; then
    sed_args+=(-e "s/\.g_port\[$v_numcn\]\./.g_port[$f_numcn]./g" -e "s/{p$v_numcn /{p$f_numcn /g"
               -e "s/^-port $v_numcn /-port $f_numcn /")
  fi
  if [ "$v_nports" != "-" ] && [ "$f_nports" != "-" ] && [ "$v_nports" != "$f_nports" ]; then
    sed_args+=(-e "s/\(\b$f_root\.$f_top\.[A-Za-z0-9_]*\)\[$((v_nports - 1)):0\]/\1[$((f_nports - 1)):0]/g")
  fi
  if [ "$v_numcn" != "-" ] && [ "$f_numcn" != "-" ] && [ "$v_numcn" != "$f_numcn" ]; then
    # failure detection: vectors of one bit per CN ([C-1:0]) and CN numbers (log2 C bits; no range
    # when that is one bit), through a placeholder so that the two renamings do not chain
    clog2() { local n=$1 b=0; while [ $((1 << b)) -lt "$n" ]; do b=$((b + 1)); done; echo "$b"; }
    v_lg=$(clog2 "$v_numcn") f_lg=$(clog2 "$f_numcn")
    f_cnrange=$([ "$f_lg" -gt 1 ] && echo "[$((f_lg - 1)):0]" || true)
    sed_args+=(-e "/\.u_viral\./s/\[$((v_numcn - 1)):0\]/[@NUMCN@]/g"
               -e "/\.u_viral\./s/\[$((v_lg - 1)):0\]/$f_cnrange/g"
               -e "/\.u_viral\./s/\[@NUMCN@\]/[$((f_numcn - 1)):0]/g")
  fi
  sed "${sed_args[@]}" "$view_src" > "$view.tmp" && mv "$view.tmp" "$view"
  # traces GTKWave should make: every line that names signals or is a comment/group line
  expected=$(grep -c -E '^[^][@^*!?]' "$view" || true)
elif [ "$mode" = png ]; then
  view=build/waves/$base.gtkw  # no signals, only the window size
  printf '[size] %s %s\n[sst_expanded] 1\n' "$width" "$height" > "$view"
fi

# ---- time window ----
zoom_tcl=""
if [ "$full" = 1 ]; then
  zoom_tcl="gtkwave::/Time/Zoom/Zoom_Full"
elif [ -n "$from" ]; then
  zoom_tcl="gtkwave::setZoomRangeTimes $(to_ticks "$from") $(to_ticks "$to")"
elif [ "$f_t0" != "-" ]; then
  period=$([ "$f_period" != "-" ] && echo "$f_period" || echo 1000)
  start=$([ "$f_rx" != "-" ] && echo $((f_rx - 2 * period)) || echo "$f_t0")
  [ "$start" -ge "$f_t0" ] || start=$f_t0
  zoom_tcl="gtkwave::setZoomRangeTimes $start $((start + cycles * period))"
fi

shape=$([ "$f_numcn" != "-" ] && echo ", NumCn $f_numcn of $f_nports ports" || true)
echo "waves.sh: $fst (top $f_top$shape), view ${view_src:-none (no waves/$f_top.gtkw: GTKWave shows no signals)}"

# ---- open ----
if [ "$mode" = open ]; then
  [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || die "no DISPLAY: use 'make waves-png' (or scripts/waves.sh png) for a picture instead"
  tcl=build/waves/$base.open.tcl
  printf '%s\n' "gtkwave::nop" "$zoom_tcl" > "$tcl"
  exec gtkwave -S "$tcl" "$fst" ${view:+"$view"}
fi

# ---- png: GTKWave on a private Xvfb display, grab the window, quit ----
out_abs=$(realpath -m "$out")
mkdir -p "$(dirname "$out_abs")"
rm -f "$out_abs"
tmp=$(mktemp -d)
log=build/waves/$base.gtkwave.log
tcl=build/waves/$base.png.tcl
xvfb_pid=""
cleanup() {
  [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

Xvfb -displayfd 3 -screen 0 "$((width + 64))x$((height + 64))x24" -nolisten tcp 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do
  [ -s "$tmp/display" ] && break
  kill -0 "$xvfb_pid" 2>/dev/null || die "Xvfb failed to start: $(tail -n 3 "$tmp/xvfb.log" | tr '\n' ' ')"
  sleep 0.1
done
[ -s "$tmp/display" ] || die "Xvfb did not start within 10 s"
display=:$(head -n 1 "$tmp/display")

{
  echo "gtkwave::nop"
  echo "$zoom_tcl"
  echo "gtkwave::nop"
  echo "puts \"waves.sh: traces [gtkwave::getTotalNumTraces]\""
  echo "gtkwave::/File/Grab_To_File {$out_abs}"
  echo "gtkwave::/File/Quit"
} > "$tcl"

timeout_s=${WAVES_TIMEOUT:-60}
rc=0
DISPLAY=$display timeout -k 5 "$timeout_s" gtkwave -S "$tcl" "$fst" ${view:+"$view"} >"$log" 2>&1 || rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || die "gtkwave did not finish within ${timeout_s} s (log: $log)"
[ "$rc" -eq 0 ] || die "gtkwave failed (exit $rc; log: $log): $(grep -v '^ *$' "$log" | tail -n 2 | tr '\n' ' ')"
[ -s "$out_abs" ] || die "gtkwave wrote no PNG (log: $log)"
got=$(sed -n 's/^waves.sh: traces \([0-9]*\)$/\1/p' "$log")
if [ -n "$view" ] && [ "${got:-0}" -lt "$expected" ]; then
  die "only ${got:-0} of the $expected traces of $view_src are in $fst: the view names signals this FST lacks (log: $log)"
fi
read -r w h sd <<<"$(identify -format '%w %h %[fx:standard_deviation]\n' "$out_abs" 2>/dev/null | head -n 1)" || true
[ -n "${w:-}" ] || die "$out: not a readable image"
awk -v sd="$sd" 'BEGIN { exit !(sd > 0.02) }' || die "$out: the picture is blank"
echo "waves.sh: wrote $out (${w}x${h}, ${got:-0} traces)"
