#!/usr/bin/env bash
# Issue 12's measurement: a generated Firebase Dynamic Links export of ROWS rows (mixed-case codes, 5% archived,
# unicode titles and names, 1% bad `isi`, 0.1% `javascript:` links) imported into a fresh SQLite store by the release
# binary, twice (the second must change nothing), then every imported link checked against FDL's rules by the planner
# (`relink verify`) and by a running release server over HTTP (`relink verify --url`, clicks not counted).
# Prints the time and the peak memory (max RSS) of each step.
#
#   ROWS=100000 Benchmarks/import.sh          # the acceptance's 100,000 rows
#   ROWS=1000000 VERIFY=0 Benchmarks/import.sh  # the memory ceiling at a million rows, import only
source "$(dirname "$0")/lib.sh"
ROWS=${ROWS:-100000}
VERIFY=${VERIFY:-1}
PORT=${PORT:-18491}
build_release

# The project as FDL had it: routes.json without Relink's own defaults.
python3 - "$ROOT/routes.json" "$WORK/routes.json" <<'PY'
import json, sys
routes = json.load(open(sys.argv[1]))
routes["projects"][0].pop("defaults", None)
json.dump(routes, open(sys.argv[2], "w"))
PY

python3 - "$ROWS" "$WORK/export.csv" <<'PY'
import csv, random, sys
rows, path = int(sys.argv[1]), sys.argv[2]
random.seed(20261124)
alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
header = ["short_link", "link", "apn", "afl", "amv", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl",
          "st", "sd", "si", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "at", "ct", "mt", "pt",
          "archived", "name", "creation_timestamp"]
titles = ["Título", "Été", "東京の春", "Ünïcödé ☀️", "Скидки", "summer \"sale\", now"]
seen = set()
with open(path, "w", newline="", encoding="utf-8") as out:
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    for index in range(rows):
        while True:
            code = "".join(random.choice(alphabet) for _ in range(random.choice((7, 8))))
            if code not in seen:
                seen.add(code)
                break
        row = dict.fromkeys(header, "")
        row["short_link"] = f"https://go.pictlink.com/{code}"
        row["link"] = f"https://pictlink.com/p/{index}?from=mail&x={random.randint(0, 9)}"
        kind = index % 7
        if kind in (0, 1, 2, 3):
            row["apn"] = "jp.furyu.pictlink.android"
        if kind in (0, 1, 2, 4):
            row["ibi"] = "jp.furyu.pictlink.ios"
            row["isi"] = "000000001"
        if kind == 1:
            row["afl"] = f"https://pictlink.com/android/{index}"
            row["ifl"] = f"https://pictlink.com/ios/{index}"
        if kind == 2:
            row["ipfl"] = f"https://pictlink.com/ipad/{index}"
            row["at"], row["ct"] = "1l3", f"camp {index}"
        if index % 3 == 0:
            row["efr"] = "1"
        if index % 4 == 0:
            row["ofl"] = f"https://pictlink.com/desktop/{index}"
        if index % 5 == 0:
            row["st"] = f"{random.choice(titles)} {index}"
            row["sd"] = "Ünïcödé description, with a comma"
        row["utm_source"] = "newsletter"
        row["archived"] = "true" if index % 20 == 0 else "false"
        row["name"] = f"Campaña {index}, ☀️"
        row["creation_timestamp"] = str(1_500_000_000 + index)
        if index % 100 == 50:
            row["ibi"], row["isi"] = "jp.furyu.pictlink.ios", "notanumber"
        if index % 1000 == 500:
            row["link"] = "javascript:alert(1)"
        writer.writerow(row[name] for name in header)
PY
echo "export: $ROWS rows, $(du -h "$WORK/export.csv" | cut -f1)"

measure() {
    # measure LABEL COMMAND...: runs it, prints its last output lines, the time and the max RSS.
    local label=$1; shift
    local status=0
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err" || status=$?
    read -r seconds kilobytes < <(tail -1 "$WORK/time")
    head -1 "$WORK/out"
    tail -1 "$WORK/err"
    printf '%-28s %8.1f s  max RSS %6.1f MB  exit %d\n' "$label" "$seconds" "$(awk "BEGIN{print $kilobytes/1024}")" "$status"
}

COMMON=(--project pictlink --config "$WORK/routes.json" --db "$WORK/relink.sqlite")
measure "import" "$RELINK" import firebase "$WORK/export.csv" --continue-on-error "${COMMON[@]}"
measure "import again" "$RELINK" import firebase "$WORK/export.csv" --continue-on-error "${COMMON[@]}"
[ "$VERIFY" = 1 ] || exit 0

measure "verify (planner)" "$RELINK" verify "${COMMON[@]}"
KEY=$("$RELINK" keys create --project pictlink --config "$WORK/routes.json" --db "$WORK/relink.sqlite" 2>/dev/null)
"$RELINK" serve --port "$PORT" --config "$WORK/routes.json" --db "$WORK/relink.sqlite" --log-level error > "$WORK/serve.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$PORT/healthz"
measure "verify --url (HTTP)" "$RELINK" verify "${COMMON[@]}" --url "http://127.0.0.1:$PORT" --key "$KEY" --concurrency 16
echo "server max RSS: $(grep VmHWM /proc/"${PIDS[-1]}"/status | awk '{printf "%.1f MB", $2/1024}')"
