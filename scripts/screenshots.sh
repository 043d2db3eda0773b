#!/bin/bash
# Re-takes the README's screenshots under Xvfb, each from a fresh configuration (the defaults,
# plus the settings a picture names), at the window's default size on a 1920x1080 screen.
# Needs: a build (build/app/gui/histoscope), xvfb-run, GStreamer's videotestsrc, and OpenCV's
# sample media (Debian's opencv-doc: baboon.jpg, fruits.jpg, Megamind.avi).
# Usage: scripts/screenshots.sh [OUT_DIR]   (default docs/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/screenshots}
app=build/app/gui/histoscope
data=/usr/share/doc/opencv-doc/examples/data
for need in "$app" "$data/baboon.jpg" "$data/fruits.jpg" "$data/Megamind.avi"; do
    [[ -e $need ]] || { echo "screenshots.sh: $need is missing" >&2; exit 1; }
done
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
live720="videotestsrc ! video/x-raw,width=1280,height=720,framerate=30/1"
smpte="videotestsrc pattern=smpte ! video/x-raw,width=1280,height=720,framerate=30/1"

# shot NAME [ini lines]... -- app arguments...: a fresh settings file holding the ini lines.
shot() {
    local name=$1; shift
    local cfg="$work/$name"
    mkdir -p "$cfg/HistoScope"
    : > "$cfg/HistoScope/HistoScope.conf"
    while [[ $1 != -- ]]; do printf '%s\n' "$1" >> "$cfg/HistoScope/HistoScope.conf"; shift; done
    shift
    echo "== $name"
    XDG_CONFIG_HOME=$cfg QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1920x1080x24" \
        "$app" "$@" --screenshot "$out/$name.png" >"$work/$name.log" 2>&1 \
        || { cat "$work/$name.log" >&2; echo "screenshots.sh: $name failed" >&2; exit 1; }
}

shot main-window -- resources/samples/sample.png
shot video-timeline -- "$data/Megamind.avi" --seek 120 --scan
shot live '[histogram]' 'logCounts=true' -- --live "$live720" --delay 3000
shot compare-region -- --reference "$data/fruits.jpg" --roi 150,150,200,200 "$data/baboon.jpg"
shot equalize -- --reference "$data/fruits.jpg" --match "$data/baboon.jpg"
shot compare-strategies -- --compare resources/samples/sample.png
# The scopes of a photo: the window with the waveform in front, and every scope in a grid.
shot scopes -- --scopes "$data/baboon.jpg"
# A live SMPTE source as a broadcast engineer sets the scopes up: IRE, legal range, 100 % bars.
shot scopes-live '[scopes]' 'waveform/scale=percent' 'waveform/range=legal' 'parade/scale=percent' \
    'parade/range=legal' 'vectorscope/targets=100' 'tab=parade' -- --live "$smpte" --scopes --delay 4000
# Megamind playing at its rate with the histogram and the waveform: the status line's counters.
shot playback -- "$data/Megamind.avi" --play --scopes --delay 8000
echo "written under $out"
