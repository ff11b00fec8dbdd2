#!/usr/bin/env bash
# Regenerates the app icons: a white shield with a split round hatch (the
# airlock) on a blue rounded square. Needs ImageMagick 6 (`apt-get install imagemagick`).
set -euo pipefail
cd "$(dirname "$0")"
C=/usr/bin/convert
master=$(mktemp --suffix=.png)
trap 'rm -f "$master"' EXIT

$C -size 1024x1024 xc:none \
  \( -size 1024x1024 gradient:'#3b82f6-#1e40af' \) \
  \( -size 1024x1024 xc:none -fill white -draw 'roundrectangle 32,32 991,991 200,200' \) \
  -delete 0 -compose CopyOpacity -composite -compose Over \
  -fill white -draw "path 'M 512 170 L 262 262 L 262 482 C 262 660 370 806 512 864 C 654 806 762 660 762 482 L 762 262 Z'" \
  -fill '#1e40af' -draw 'circle 512,500 512,340' \
  -fill white -draw 'rectangle 500,350 524,650' \
  "PNG32:$master"

# Tauri requires RGBA PNGs: PNG32 forces the alpha channel even where all is opaque.
# No date chunks, so a second run gives the same bytes.
png() { $C "$master" -resize "$1x$1" -define png:exclude-chunks=date,time "PNG32:$2"; }
png 512 icon.png
png 256 128x128@2x.png
png 128 128x128.png
png 32 32x32.png
# The other sizes of the hicolor theme the Linux packages install (with 32, 128
# and 512 = icon.png above; /usr/share/icons/hicolor/NxN/apps/, see tauri.conf.json).
for n in 16 22 24 48 64 256; do png "$n" "${n}x${n}.png"; done
$C "$master" -define icon:auto-resize=256,128,64,48,32,16 icon.ico
