#!/usr/bin/env bash
# cli_test.sh - the warpscope command line as a user meets it: exit codes
# (0 ok, 1 failed run, 2 usage), messages, printed results, and that outputs
# are written whole or not at all.
# usage: cli_test.sh PATH/TO/warpscope SOURCE_DIR
set -u
ws=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

check() { # check NAME EXPECTED_RC EXPECTED_SUBSTRING -- command...
  local name=$1 want_rc=$2 want_text=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -eq "$want_rc" ] && [[ "$out" == *"$want_text"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: rc=%s (want %s)\n--- output ---\n%s\n--- wanted substring ---\n%s\n' \
      "$name" "$rc" "$want_rc" "$out" "$want_text"
  fi
}

saxpy=$src/models/examples/saxpy.wsa

check version 0 "warpscope 0.1.0" -- "$ws" --version
check help 0 "usage: warpscope COMMAND" -- "$ws" --help
check no-command 2 "usage: warpscope COMMAND" -- "$ws"
check unknown-command 2 "unknown command 'frobnicate'" -- "$ws" frobnicate
for cmd in asm disasm exec example; do
  check "$cmd-help" 0 "usage: warpscope $cmd" -- "$ws" "$cmd" --help
  check "$cmd-unknown-flag" 2 "unknown option '--bogus'" -- "$ws" "$cmd" --bogus
done

check asm-summary 0 "kernel saxpy: 17 instructions, 15 registers/thread, 0 bytes static shared, 4 params (24 bytes)" -- "$ws" asm "$saxpy"
check asm-missing 1 "cannot open '$tmp/none.wsa'" -- "$ws" asm "$tmp/none.wsa"
printf '.kernel k\n    FADDD R1, R2, R3\n' > "$tmp/bad.wsa"
check asm-error-location 1 "bad.wsa:2:5: error: unknown mnemonic 'FADDD'" -- "$ws" asm "$tmp/bad.wsa"
check asm-no-output-on-error 1 "error" -- "$ws" asm "$tmp/bad.wsa" -o "$tmp/bad.wso"
[ -e "$tmp/bad.wso" ] && { failed=$((failed + 1)); echo "FAIL: bad.wso was written"; } || passed=$((passed + 1))

# asm -> object -> disasm -> asm gives the same object, byte for byte
check asm-object 0 "" -- "$ws" asm "$saxpy" -o "$tmp/s.wso"
check disasm-object 0 "" -- "$ws" disasm "$tmp/s.wso" -o "$tmp/s2.wsa"
check disasm-content 0 ".kernel saxpy" -- cat "$tmp/s2.wsa"
check asm-again 0 "" -- "$ws" asm "$tmp/s2.wsa" -o "$tmp/s2.wso"
"$ws" disasm "$tmp/s2.wso" > "$tmp/s3.wsa"
if cmp -s "$tmp/s2.wsa" "$tmp/s3.wsa"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: disasm not stable"; fi
head -c 40 "$tmp/s.wso" > "$tmp/trunc.wso"
check disasm-truncated 1 "truncated or corrupt object" -- "$ws" disasm "$tmp/trunc.wso"

# exec: SAXPY with a = 2 over 5 elements, y = 2x + y
check exec-saxpy 0 "y (f32[5]):
  3 5 7 9 11" -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=5 --arg a=2 \
  --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --print y
check exec-out 0 "executed: 1 CTAs" -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=5 --arg a=2 \
  --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --out "y=$tmp/y.bin"
if [ "$(od -An -tf4 -w20 "$tmp/y.bin" | tr -s ' ')" = " 3 5 7 9 11" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: y.bin content"; fi
check exec-missing-grid 2 "--grid and --block are required" -- "$ws" exec "$saxpy" --block 32
check exec-bad-dim 2 "--grid expects X[,Y[,Z]] with positive integers, found '0'" -- "$ws" exec "$saxpy" --grid 0 --block 32
check exec-bad-arg-type 1 "param 'n' (.u32): expected an unsigned integer, found '1.5'" -- \
  "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=1.5
check exec-unknown-param 1 "unknown param 'm'" -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg m=1
check exec-unset-param 1 "param 'y' was not set" -- "$ws" exec "$saxpy" --grid 1 --block 32 \
  --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5
check exec-block-limit 1 "2048 threads" -- "$ws" exec "$saxpy" --grid 1 --block 2048 --arg n=5 \
  --arg a=2 --buf x=f32:1 --buf y=f32:1
check exec-bad-buf 1 "--buf x: expected a f32 value, found 'abc'" -- "$ws" exec "$saxpy" --grid 1 \
  --block 32 --buf x=f32:1,abc
# n = 8 over 5-element buffers: lane 5 reads past the end; no output file appears
rm -f "$tmp/fault.bin"
check exec-fault 1 "invalid global read of size 4" -- "$ws" exec "$saxpy" --grid 1 --block 32 \
  --arg n=8 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --out "y=$tmp/fault.bin"
[ -e "$tmp/fault.bin" ] && { failed=$((failed + 1)); echo "FAIL: fault.bin was written"; } || passed=$((passed + 1))

check example-list 0 "sgemm" -- "$ws" example --list
check example-saxpy 0 "PASS" -- "$ws" example saxpy --n 1000
check example-sgemm-odd 0 "PASS" -- "$ws" example sgemm --m 33 --n 65 --k 17
check example-unknown 2 "unknown example 'nope'" -- "$ws" example nope
check example-bad-size 2 "--m expects a non-negative integer, found 'x'" -- "$ws" example sgemm --m x

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
