#!/usr/bin/env bash
# Seeds the parse_line corpus with every line of the real CLI transcripts,
# one file per line. Run once before `cargo fuzz run parse_line`:
#   bash fuzz/seed_corpus.sh
#   RUSTC_BOOTSTRAP=1 cargo fuzz run parse_line -- -max_total_time=600
# (RUSTC_BOOTSTRAP lets the stable toolchain build with the sanitizer flags.)
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../testdata/claude-code-2.1.332
[ -d "$fixtures" ] || { echo "error: $fixtures not found" >&2; exit 1; }
mkdir -p corpus/parse_line
i=0
for f in "$fixtures"/*/stdout.ndjson "$fixtures"/*/stdin.ndjson; do
    while IFS= read -r line || [ -n "$line" ]; do
        [ -n "$line" ] || continue
        i=$((i + 1))
        printf '%s' "$line" > "corpus/parse_line/fixture_$i"
    done < "$f"
done
echo "seeded $i lines into fuzz/corpus/parse_line"
