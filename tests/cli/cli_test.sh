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

saxpy=$src/models/runs/examples/saxpy.wsa

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
check exec-bad-buf 2 "--buf x: expected a f32 value, found 'abc'" -- "$ws" exec "$saxpy" --grid 1 \
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

# GPU presets: the list, one preset's keys with sources and derived peaks, --gpu/--set on runs
check gpus-help 0 "usage: warpscope gpus" -- "$ws" gpus --help
check gpus-list 0 "rtx-a6000  NVIDIA RTX A6000                             8.6    84   1800 MHz" -- "$ws" gpus
check gpus-show-source 0 "max_warps_per_sm               48                       warps      [CUDA] cc 8.6: 48 resident warps" -- \
  "$ws" gpus show rtx-a6000
check gpus-show-peak 0 "peak FP16 tensor (dense)        311.9 TFLOP/s" -- "$ws" gpus show a100
check gpus-show-dram 0 "DRAM bandwidth                  900.0 GB/s  (32 channels x 28125 MB/s)" -- "$ws" gpus show v100
check gpus-show-file 0 "v100: NVIDIA Tesla V100-SXM2-16GB (compute capability 7.0)" -- "$ws" gpus show "$src/sim/presets/v100.ini"
check gpus-show-set 0 "L2 sets per slice          128  (512 KiB / (2 slices x 16 ways x 128 B))" -- \
  "$ws" gpus show classroom --set l2.size_kib=512
check gpus-unknown 2 "unknown GPU preset 'b200' (presets: a100, classroom, h100, rtx-a6000, v100)" -- "$ws" gpus show b200
check gpus-bad-sub 2 "unknown subcommand 'list'" -- "$ws" gpus list
check gpus-bad-set 2 "a100 (after --set): error: key 'l2.size_kib': 4096 KiB / (80 slices x 16 ways x 128 B lines) = 25.6 sets, not a power of two" -- \
  "$ws" gpus show a100 --set l2.size_kib=4096
printf '[gpu]\nname = x\nnum_sm = 2\n' > "$tmp/bad.ini"
check gpus-bad-file 1 "$tmp/bad.ini:3: error: unknown key 'num_sm' in section [gpu]" -- "$ws" gpus show "$tmp/bad.ini"
check example-gpu 0 "PASS" -- "$ws" example saxpy --n 1000 --gpu classroom
check example-bad-gpu 2 "unknown GPU preset 'x100'" -- "$ws" example saxpy --gpu x100
check example-bad-set 2 "--set sm.warps=4: error: unknown key 'sm.warps'" -- "$ws" example saxpy --set sm.warps=4
check exec-gpu-set 0 "executed: 1 CTAs" -- "$ws" exec "$saxpy" --gpu v100 --set sm.scheduler=lrr --grid 1 --block 32 \
  --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1


# timing: the report, the stats JSON (identical bytes on a second run), and
# the option combinations that cannot work
check example-report 0 "theoretical occupancy" -- "$ws" example sgemm --m 64 --n 64 --k 64 --gpu classroom --report
check example-stats-json 0 "PASS" -- "$ws" example reduce --n 5000 --gpu classroom --stats-json "$tmp/s1.json"
check example-stats-json-again 0 "PASS" -- "$ws" example reduce --n 5000 --gpu classroom --stats-json "$tmp/s2.json"
if cmp -s "$tmp/s1.json" "$tmp/s2.json" && grep -q '"sm0.l1.sector_hits"' "$tmp/s1.json"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL: stats JSON missing or not deterministic"
fi
check exec-report 0 "warp states" -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=5 --arg a=2 \
  --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --report
check exec-functional 0 "thread instructions" -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=5 \
  --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --functional
check functional-report 2 "--report and --stats-json need the timing model" -- "$ws" example saxpy --functional --report

# the main job and the kernel printer
for cmd in run kernel; do
  check "$cmd-help" 0 "usage: warpscope $cmd" -- "$ws" "$cmd" --help
  check "$cmd-unknown-flag" 2 "unknown option '--bogus'" -- "$ws" "$cmd" --bogus
done
check run-default 0 "0 outside -> PASS" -- "$ws" run --gpu classroom
check run-naive-batch 0 "images/s" -- "$ws" run --gpu classroom --attn naive --batch 2 --gemm smem --bm 16 --bn 16
check run-bad-attn 2 "--attn expects flash or naive, found 'fast'" -- "$ws" run --attn fast
check run-bad-batch 2 "--batch expects an integer >= 1, found '0'" -- "$ws" run --batch 0
check run-bad-variant 2 "unknown GEMM variant" -- "$ws" run --gemm turbo
check run-bad-tiles 2 "must be a power of two" -- "$ws" run --bm 3
check run-bad-flash 2 "head_dim must be a power of two" -- "$ws" run --dim 48 --heads 4
check run-bad-heads 2 "heads" -- "$ws" run --dim 64 --heads 5

check run-bad-tiles 2 "must be a power of two" -- "$ws" run --bm 3
check run-bad-flash 2 "head_dim must be a power of two" -- "$ws" run --dim 48 --heads 4
check run-bad-heads 2 "heads" -- "$ws" run --dim 64 --heads 5
check run-missing-image 1 "$tmp/none.png" -- "$ws" run --image "$tmp/none.png"
printf 'not an image' > "$tmp/text.png"
check run-bad-image 1 "text.png" -- "$ws" run --image "$tmp/text.png"
check run-save-weights 0 "PASS" -- "$ws" run --gpu classroom --save-weights "$tmp/w.safetensors"
check run-load-weights 0 "weights from $tmp/w.safetensors" -- "$ws" run --gpu classroom --weights "$tmp/w.safetensors"
check run-wrong-weights 1 "tensor 'patch_embed.weight' has shape [64, 48], expected [32, 48]" -- "$ws" run --weights "$tmp/w.safetensors" --dim 32
head -c 20 "$tmp/w.safetensors" > "$tmp/cut.safetensors"
check run-truncated-weights 1 "cut.safetensors" -- "$ws" run --weights "$tmp/cut.safetensors"
check kernel-gemm 0 ".kernel gemm_smem" -- "$ws" kernel gemm --variant smem --bm 16 --bn 16 --epilogue bias,gelu
check kernel-gemm-refused 2 "must be a power of two" -- "$ws" kernel gemm --variant mma --bm 3
check kernel-flash 0 ".kernel flash_attention" -- "$ws" kernel flash --head-dim 16
check kernel-unknown 2 "unknown kernel kind 'nope'" -- "$ws" kernel nope
check kernel-add-reads-ntid 0 "S2R R3, SR_NTID.X" -- "$ws" kernel add
check kernel-add-no-threads 2 "--threads applies to gemm and gelu only, not to add" -- "$ws" kernel add --threads 128
check kernel-softmax-no-warps 2 "--warps applies to layernorm only, not to softmax" -- "$ws" kernel softmax --warps 8
check kernel-gelu-threads 0 "IMAD R2, R0, 128, R1" -- "$ws" kernel gelu --threads 128
check kernel-bad-epilogue 2 "--epilogue expects bias, gelu or residual, found 'relu'" -- "$ws" kernel gemm --epilogue relu
"$ws" kernel gemm --variant warptile -o "$tmp/g.wsa" >/dev/null 2>&1
check kernel-out-assembles 0 "kernel gemm_warptile" -- "$ws" asm "$tmp/g.wsa"

# work is bounded before it starts: hostile headers, endless files and unrunnable run flags fail at once
printf 'GIF89a\001\000\001\000\200\000\000\000\000\000\377\377\377!\371\004\000\000\000\000\000,\000\000\000\000\377\377\377\377\000\002\002D\001\000;' > "$tmp/big.gif"
check bound-gif-size 0 "43" -- stat -c %s "$tmp/big.gif"
check bound-gif 1 "big.gif: GIF image is 65535x65535; each side must be in [1, 16384] and the pixel count at most 16777216 (4096x4096)" -- "$ws" run --image "$tmp/big.gif"
printf '\211PNG\r\n\032\n\000\000\000\rIHDR\000\001\000\000\000\001\000\000\010\002\000\000\000\000\000\000\000\000\000\000\000IEND\256B`\202' > "$tmp/big.png"
check bound-png 1 "big.png: PNG image is 65536x65536; each side must be in [1, 16384]" -- "$ws" run --image "$tmp/big.png"
printf '\000\000\001\000\001\000\020\020\000\000\001\000\040\000\050\000\000\000\026\000\000\000' > "$tmp/icon.ico"
check bound-ico 1 "icon.ico: ICO images are not accepted: their size cannot be checked before decoding" -- "$ws" run --image "$tmp/icon.ico"
check bound-asm-zero 1 "/dev/zero: larger than the 64 MiB limit for assembly source" -- "$ws" asm /dev/zero
check bound-image-zero 1 "/dev/zero: larger than the 128 MiB limit for images" -- "$ws" run --image /dev/zero
# weights are judged from their first bytes: /dev/zero is refused at once, not after its 1 GiB cap
check bound-weights-zero 1 "/dev/zero: header length is 0" -- "$ws" run --weights /dev/zero
check bound-gpu-zero 1 "/dev/zero: larger than the 1 MiB limit for GPU presets" -- "$ws" run --gpu /dev/zero
check bound-batch 2 "--batch must be 1..1024 on a100 with these tiles (got 4096): M = 64*batch must be <= 65536" -- "$ws" run --batch 4096
check bound-batch-huge 2 "--batch must be 1..1024 on a100 with these tiles (got 100000)" -- "$ws" run --batch 100000
check bound-batch-grid 2 "--batch must be 1..1023 on a100 with these tiles (got 1024): M = 64*batch must be <= bm*65535" -- "$ws" run --batch 1024 --gemm naive --bm 1 --bn 32
check bound-flash-registers 2 "--attn flash with --dim 1024 --heads 16 (head_dim 64), --br 64 --bc 64 on a100: flash attention: Bc=64 with dh=64 needs 292 registers" -- "$ws" run --dim 1024 --heads 16 --depth 32
check bound-device-memory 2 "--batch 1 --dim 1024 --depth 32 needs 1029 MiB of device memory; classroom has 1024 MiB" -- "$ws" run --gpu classroom --dim 1024 --heads 16 --depth 32 --attn naive
check bound-gemm-registers 2 "warptile needs 272 registers per thread, more than the 255 allowed" -- "$ws" run --gemm warptile --bm 128 --bn 128 --bk 32 --tm 8 --tn 8 --wm 64 --wn 64

# the watchdog: a runaway kernel stops promptly, with where and how to raise the limit
printf '.kernel spin\nL:  BRA L\n    EXIT\n' > "$tmp/spin.wsa"
printf '.kernel count\nL:  IADD R1, R1, 1\n    BRA L\n' > "$tmp/count.wsa"
check watch-spin 1 "kernel 'spin' can never finish: 1 warp spins" -- "$ws" exec "$tmp/spin.wsa" --grid 1 --block 32
check watch-spin-where 1 "CTA (0,0,0) warp 0 at pc 0 (line 2): BRA L" -- "$ws" exec "$tmp/spin.wsa" --grid 1 --block 32 --functional
check watch-per-warp 1 "raise it with --max-warp-insns N" -- "$ws" exec "$tmp/count.wsa" --grid 1 --block 32 --functional --max-warp-insns 1000
check watch-max-cycles 1 "reached the limit of 5000 cycles" -- "$ws" exec "$tmp/count.wsa" --grid 1 --block 32 --max-cycles 5000
check watch-timeout 1 "ran for the --timeout limit of 0.2 s" -- "$ws" exec "$tmp/count.wsa" --grid 1 --block 32 --functional --max-warp-insns 1000000000000 --timeout 0.2
check watch-bad-timeout 2 "--timeout expects seconds, a number in (0, 1e9], found 'soon'" -- "$ws" exec "$tmp/count.wsa" --grid 1 --block 32 --timeout soon
check watch-bad-limit 2 "--max-warp-insns expects a positive whole number, found '0'" -- "$ws" example saxpy --max-warp-insns 0
check sim-threads-zero 2 "--sim-threads expects a whole number from 1 to 64, found '0'" -- "$ws" example saxpy --sim-threads 0
check sim-threads-many 2 "--sim-threads expects a whole number from 1 to 64, found '65'" -- "$ws" gemm --variant naive --size 64 --sim-threads 65
check sim-threads-sweep 2 "--sim-threads expects a whole number from 1 to 64, found 'two'" -- "$ws" sweep gemm --size 64 --variant naive --sim-threads two
check sim-threads-same 0 "" -- sh -c "'$ws' example sgemm --gpu a100 --sim-threads 1 >'$tmp/t1.txt' && '$ws' example sgemm --gpu a100 --sim-threads 3 >'$tmp/t3.txt' && cmp '$tmp/t1.txt' '$tmp/t3.txt'"
check watch-cycles-functional 2 "--max-cycles needs the timing model" -- "$ws" exec "$tmp/count.wsa" --grid 1 --block 32 --functional --max-cycles 10
check watch-run-flag 1 "reached the limit of 1000 cycles" -- "$ws" run --max-cycles 1000
"$ws" exec "$tmp/count.wsa" --grid 1 --block 32 --functional --max-warp-insns 1000000000000 >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL watch-sigint: rc=$rc (want 130)"; fi

# objects: asm refuses an object as input and its own input as output; disasm names a damaged or old object
cp "$saxpy" "$tmp/sx.wsa"
ln -s sx.wsa "$tmp/sx-link.wsa"
"$ws" asm "$tmp/sx.wsa" -o "$tmp/sx.wso" >/dev/null 2>&1
check asm-given-object 1 "$tmp/sx.wso is a warpscope object file, not assembly; use 'warpscope disasm $tmp/sx.wso' to read it" -- "$ws" asm "$tmp/sx.wso"
check asm-onto-input 2 "-o '$tmp/sx.wsa' is the input file" -- "$ws" asm "$tmp/sx.wsa" -o "$tmp/sx.wsa"
check asm-onto-input-spelled 2 "is the input file" -- "$ws" asm "$tmp/sx.wsa" -o "$tmp/./sx.wsa"
check asm-onto-input-link 2 "is the input file" -- "$ws" asm "$tmp/sx.wsa" -o "$tmp/sx-link.wsa"
if cmp -s "$saxpy" "$tmp/sx.wsa"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: sx.wsa was overwritten"; fi
cp "$tmp/sx.wso" "$tmp/flip.wso"
printf '\x7f' | dd of="$tmp/flip.wso" bs=1 seek=500 conv=notrunc status=none
check disasm-corrupt 1 "flip.wso: corrupt object: checksum mismatch" -- "$ws" disasm "$tmp/flip.wso"
cp "$tmp/sx.wso" "$tmp/v1.wso"
printf '\x01' | dd of="$tmp/v1.wso" bs=1 seek=4 conv=notrunc status=none
check disasm-old-version 1 "v1.wso: object format version 1, this warpscope reads 4; reassemble the .wsa" -- "$ws" disasm "$tmp/v1.wso"

# outputs: devices and pipes are written in place, links keep pointing, stdout errors are failures
sxargs=(exec "$saxpy" --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1)
check out-dev-null 0 "executed: 1 CTAs" -- "$ws" "${sxargs[@]}" --out y=/dev/null
if [ -c /dev/null ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: /dev/null replaced"; fi
echo old > "$tmp/target.bin"
ln -s target.bin "$tmp/link.bin"
check out-through-link 0 "executed: 1 CTAs" -- "$ws" "${sxargs[@]}" --out y="$tmp/link.bin"
if [ -L "$tmp/link.bin" ] && [ "$(wc -c < "$tmp/target.bin")" -eq 20 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: link replaced or target not written"; fi
check out-directory 1 "it is a directory, not a regular file, device or pipe" -- "$ws" "${sxargs[@]}" --out y="$tmp"
if [ -w /dev/full ]; then
  check stdout-full-disasm 1 "writing standard output: No space left on device" -- bash -c "\"$ws\" disasm \"$saxpy\" > /dev/full"
  check stdout-full-kernel 1 "writing standard output: No space left on device" -- bash -c "\"$ws\" kernel gemm > /dev/full"
fi

# exec's flags are checked before anything runs: malformed, duplicate or out-of-range values exit 2
check exec-dup-arg 2 "--arg n given twice" -- "$ws" "${sxargs[@]}" --arg n=6
check exec-dup-out-path 2 "is already the output of --out y=" -- "$ws" "${sxargs[@]}" --out y="$tmp/o1" --out x="$tmp/o1"
check exec-dup-out-name 2 "--out y given twice" -- "$ws" "${sxargs[@]}" --out y="$tmp/o1" --out y="$tmp/o2"
check exec-print-count 2 "--print y:f32:100: COUNT must be 0..5 (the buffer's size)" -- "$ws" "${sxargs[@]}" --print y:f32:100
check exec-print-type 2 "TYPE must be f32, u32, s32, f16 or x32" -- "$ws" "${sxargs[@]}" --print y:f64
check exec-out-no-path 2 "--out expects NAME=PATH, found 'y'" -- "$ws" "${sxargs[@]}" --out y
check exec-arg-no-value 2 "--arg expects NAME=VALUE, found 'n'" -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg n
check exec-buf-type 2 "expected f32:, u32:, s32:, f16:, zeros: or file:, found 'f64:1'" -- "$ws" "${sxargs[@]}" --buf q=f64:1
check exec-zeros-cap 2 "zeros: expects a byte count in 1..2^40 (1 TiB)" -- "$ws" "${sxargs[@]}" --buf w=zeros:99999999999999
echo keep > "$tmp/keep.bin"
check exec-outputs-all-or-none 1 "cannot create '$tmp/nodir/x.bin'" -- "$ws" "${sxargs[@]}" --out y="$tmp/keep.bin" --out x="$tmp/nodir/x.bin"
if [ "$(cat "$tmp/keep.bin")" = keep ] && ! ls "$tmp" | grep -q '\.tmp\.'; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: a failed command changed keep.bin or left a temporary"; fi

# ---- presets the timing model cannot run, INI details, microbenchmarks that cannot measure ----
check set-warp-slots 2 "warpscope run: a100 (after --set): error: key 'sm.max_warps_per_sm': 64 resident warps exceed sm.subpartitions (1) x 32" -- "$ws" run --set sm.subpartitions=1
check set-warp-slots-show 2 "classroom (after --set): error: key 'sm.max_warps_per_sm'" -- "$ws" gpus show classroom --set sm.subpartitions=1
check set-warp-slots-functional 2 "classroom (after --set): error: key 'sm.max_warps_per_sm'" -- \
  "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --gpu classroom --set sm.subpartitions=1 --functional
check set-l1-sectors 2 "warpscope exec: classroom (after --set): error: key 'l1.line_bytes': 1024 B lines hold 32 sectors of 32 B; at most 8 sectors per line" -- \
  "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --gpu classroom --set l1.line_bytes=1024 --set l1.size_kib=128 --set l1.assoc=32
check asm-one-error-label 1 "warpscope: $tmp/bad.wsa:2:5: error: unknown mnemonic" -- "$ws" asm "$tmp/bad.wsa"
sed '16s/.*/[sm/' "$src/sim/presets/classroom.ini" > "$tmp/open.ini"
check ini-unterminated-section 1 "warpscope: $tmp/open.ini:16: error: unterminated section header '[sm' (expected ']')" -- "$ws" gpus show "$tmp/open.ini"
sed '12s/^num_sms = 2 /num_sms = 2\x00junk/' "$src/sim/presets/classroom.ini" > "$tmp/nul.ini"
check ini-nul-byte 1 "warpscope: $tmp/nul.ini:12:12: error: NUL byte (a preset is text)" -- "$ws" gpus show "$tmp/nul.ini"
printf '\220\376=\001\n' > "$tmp/noise.ini"
check ini-escaped-bytes 1 "$tmp/noise.ini:1: error: key '\\x90\\xFE' is outside any [section]" -- "$ws" gpus show "$tmp/noise.ini"
head -c 4096 "$ws" > "$tmp/binary.ini"
check ini-binary 1 "error: NUL byte (a preset is text)" -- "$ws" gpus show "$tmp/binary.ini"
for f in noise binary; do # messages about garbage files are printable text
  if "$ws" gpus show "$tmp/$f.ini" 2>&1 | LC_ALL=C grep -q '[^[:print:]]'; then
    failed=$((failed + 1)) && echo "FAIL ini-$f-printable: raw bytes in the message"
  else passed=$((passed + 1)); fi
done
check bench-l2-too-small 0 "L2 hit, near       (cannot be measured on this preset: the L2 holds 16 lines, and a chain that misses L1 needs more than its 32 ways of one set)" -- \
  "$ws" microbench latency --gpu classroom --set l2.size_kib=2 --set l2.slices=1 --set l2.assoc=1
check bench-l2-1kib 0 "DRAM, closed bank      32     16    456.00" -- "$ws" microbench latency --gpu classroom --set l2.size_kib=1 --set l2.slices=1 --set l2.assoc=1
# the command's former name still runs it
check bench-gpu-former-name 0 "DRAM, closed bank      32     16    456.00" -- "$ws" bench-gpu latency --gpu classroom --set l2.size_kib=1 --set l2.slices=1 --set l2.assoc=1
check bench-l2-copy-one-sm 0 "L2 (copy, passes 3-6)    (cannot be measured on this preset: passes 3-6 found only 2272 of their 3476 sectors read in L2 (1204 hit L1, 0 missed L2))" -- "$ws" microbench bandwidth --gpu classroom --set gpu.num_sms=1

# one rule for exit codes: anything wrong on the command line is 2, before anything runs
check dup-gpu 2 "--gpu given twice (one value is allowed; the last would silently win)" -- "$ws" example saxpy --gpu a100 --gpu v100
check dup-output 2 "--output given twice" -- "$ws" asm "$saxpy" -o "$tmp/a.wso" -o "$tmp/b.wso"
check asm-empty-output 2 "-o needs a file name" -- "$ws" asm "$saxpy" -o ""
check set-malformed 2 "--set noequals: error: expected SECTION.KEY=VALUE" -- "$ws" example saxpy --set noequals
check set-bad-value 2 "expects an unsigned integer, found 'abc'" -- "$ws" example saxpy --set l2.size_kib=abc
check kernel-bad-variant 2 "--variant: unknown GEMM variant 'bogus'" -- "$ws" kernel gemm --variant bogus
check run-flag-not-for-variant 2 "--wn does not apply to the blocktile2d GEMM" -- "$ws" run --wn 3
check kernel-flag-not-for-variant 2 "--bk does not apply to the naive GEMM" -- "$ws" kernel gemm --variant naive --bk 8
check epilogue-twice 2 "--epilogue names bias twice" -- "$ws" kernel gemm --epilogue bias,bias
check example-flag-not-for-it 2 "saxpy takes --n only, not --m" -- "$ws" example saxpy --m 5
check example-n-range 2 "saxpy: n must be 1..8388608" -- "$ws" example saxpy --n 0
check example-mma-shape 2 "mma: the m16n8k16 kernel needs M % 16 == 0" -- "$ws" example mma --m 17
check disasm-onto-input 2 "-o '$tmp/sx.wsa' is the input file; the canonical text would replace it" -- "$ws" disasm "$tmp/sx.wsa" -o "$tmp/sx.wsa"
check exec-stats-and-out-all-or-none 1 "cannot create '$tmp/nodir/y.bin'" -- "$ws" "${sxargs[@]}" --stats-json "$tmp/none.json" --out y="$tmp/nodir/y.bin"
if [ ! -e "$tmp/none.json" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: stats JSON written though an --out failed"; fi
check run-dup-batch 2 "--batch given twice" -- "$ws" run --batch 2 --batch 3
check run-dup-save-weights 2 "--save-weights given twice" -- "$ws" run --save-weights "$tmp/a" --save-weights "$tmp/b"
echo old > "$tmp/keep.safetensors"
check run-refused-keeps-weights-file 1 "nonexistent" -- "$ws" run --save-weights "$tmp/keep.safetensors" --image /nonexistent.png
if [ "$(cat "$tmp/keep.safetensors")" = old ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: a failed run overwrote --save-weights"; fi
check gpus-show-unknown 2 "unknown GPU preset 'nosuch'" -- "$ws" gpus show nosuch

# --check: a race is reported and exits 1, a clean run prints nothing extra, unknown names are usage errors
race=(exec "$src/tests/data/race.wsa" --grid 1 --block 64 --buf out=zeros:256)
check check-race 1 "race check: write-after-read hazard on shared memory at 0x80" -- "$ws" "${race[@]}" --functional --check race
check check-race-timing 1 "    in kernel 'neighbour' CTA (0,0,0) warp 0 lane 31 pc 7: LDS.32 R4, [R3]" -- "$ws" "${race[@]}" --check sync,race
check check-race-off 0 "executed: 1 CTAs" -- "$ws" "${race[@]}"
check check-init 1 "init check: read of shared memory at 0x80, never written by this CTA, at line 15" -- "$ws" "${race[@]}" --functional --check init
check check-clean 0 "executed: 1 CTAs" -- "$ws" "${sxargs[@]}" --check race,init --check sync
if [ "$("$ws" "${sxargs[@]}" 2>&1)" = "$("$ws" "${sxargs[@]}" --check race,init,sync 2>&1)" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: --check changed a clean run's output"; fi
check check-unknown 2 "--check expects race, init or sync (comma-separated), found 'rice'" -- "$ws" "${race[@]}" --check race,rice
check check-example 0 "-> PASS" -- "$ws" example saxpy --functional --check race,init,sync
check check-run 0 "-> PASS" -- "$ws" run --gpu classroom --check race,init,sync
check check-run-unknown 2 "--check expects race, init or sync (comma-separated), found ''" -- "$ws" run --check race,

# --follow-pixel X,Y[,C]: strict syntax, ranges judged before anything runs (2), a table after the usual output
fp="--follow-pixel expects X,Y or X,Y,C (pixel 0..31, channel 0..2), found"
check follow-pixel-one-field 2 "$fp '12'" -- "$ws" run --follow-pixel 12
check follow-pixel-four-fields 2 "$fp '1,2,0,1'" -- "$ws" run --follow-pixel 1,2,0,1
check follow-pixel-sign 2 "$fp '-1,7'" -- "$ws" run --follow-pixel=-1,7
check follow-pixel-empty-field 2 "$fp '12,,7'" -- "$ws" run --follow-pixel 12,,7
check follow-pixel-trailing-comma 2 "$fp '12,7,'" -- "$ws" run --follow-pixel 12,7,
check follow-pixel-hex 2 "$fp '0x1,2'" -- "$ws" run --follow-pixel 0x1,2
check follow-pixel-x 2 "--follow-pixel X,Y[,C]: X and Y must be 0..31 (the image is 32x32), got 32,7" -- "$ws" run --follow-pixel 32,7
check follow-pixel-y 2 "X and Y must be 0..31 (the image is 32x32), got 0,99" -- "$ws" run --follow-pixel 0,99
check follow-pixel-channel 2 "--follow-pixel X,Y[,C]: C must be 0..2 (R, G, B), got 3" -- "$ws" run --follow-pixel 1,2,3
check follow-pixel-twice 2 "--follow-pixel given twice" -- "$ws" run --follow-pixel 1,2 --follow-pixel 3,4
table="pixel (12,7) reached:
  layer                      elements     out of
  patch                             3       3072
  patch_embed                      64       4096
  blocks.0.qkv                    192      12288"
check follow-pixel-table 0 "$table" -- "$ws" run --gpu classroom --follow-pixel 12,7
check follow-pixel-probability 0 "  probability                       1          1" -- "$ws" run --gpu classroom --follow-pixel 12,7,2
check follow-pixel-channel-head 0 "pixel (0,31) channel 2 reached:" -- "$ws" run --gpu classroom --follow-pixel 0,31,2
plain=$("$ws" run --gpu classroom 2>&1 | grep -v "preprocessing")
followed=$("$ws" run --gpu classroom --follow-pixel 12,7 2>&1 | grep -v "preprocessing")
if [ "${followed#"$plain"}" != "$followed" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: --follow-pixel changed the usual output of run"; fi

# --trace FILE.wst: flags judged before anything runs (2); the file appears only after a good run;
# the same run gives the same bytes; recording changes nothing run prints
check trace-needs-file 2 "--trace-kernels, --trace-sms, --trace-cycles and --trace-follow-only need --trace FILE" -- "$ws" example saxpy --trace-sms 0
check trace-functional 2 "--trace needs the timing model" -- "$ws" example saxpy --functional --trace "$tmp/f.wst"
check trace-sms-syntax 2 "--trace-sms expects SM numbers and ranges" -- "$ws" example saxpy --trace "$tmp/f.wst" --trace-sms 3-1
check trace-sms-gpu 2 "--trace-sms: SM 200 does not exist on a100 (SMs 0-107)" -- "$ws" example saxpy --gpu a100 --trace "$tmp/f.wst" --trace-sms 200
check trace-cycles-order 2 "--trace-cycles expects A:B with A < B (or A:), found '9:3'" -- "$ws" run --trace "$tmp/f.wst" --trace-cycles 9:3
check trace-follow-only-alone 2 "--trace-follow-only needs a followed pixel" -- "$ws" run --trace "$tmp/f.wst" --trace-follow-only
check trace-kernels-empty 2 "--trace-kernels expects kernel names separated by commas" -- "$ws" example saxpy --trace "$tmp/f.wst" --trace-kernels a,,b
[ -e "$tmp/f.wst" ] && { failed=$((failed + 1)); echo "FAIL: a refused run wrote its trace"; } || passed=$((passed + 1))
check trace-fault 1 "" -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=64 --arg a=2 --buf x=f32:1 --buf y=f32:1 --trace "$tmp/fault.wst"
[ -e "$tmp/fault.wst" ] && { failed=$((failed + 1)); echo "FAIL: a faulting run wrote its trace"; } || passed=$((passed + 1))
check trace-run 0 "micro-ops recorded" -- "$ws" run --gpu classroom --trace "$tmp/r1.wst"
"$ws" run --gpu classroom --trace "$tmp/r2.wst" > /dev/null 2>&1
if cmp -s "$tmp/r1.wst" "$tmp/r2.wst"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: two runs gave two traces"; fi
traced=$("$ws" run --gpu classroom --follow-pixel 12,7 --trace "$tmp/r3.wst" 2>/dev/null | grep -v "preprocessing")
untraced=$("$ws" run --gpu classroom --follow-pixel 12,7 2>/dev/null | grep -v "preprocessing")
if [ "$traced" = "$untraced" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: --trace changed what run prints"; fi
check trace-follow-only 0 "micro-ops recorded" -- "$ws" run --gpu classroom --follow-pixel 12,7 --trace "$tmp/r4.wst" --trace-follow-only
check trace-filters 0 "micro-ops recorded" -- "$ws" example sgemm --gpu classroom --trace "$tmp/s.wst" --trace-sms 0-1 --trace-cycles 100:2000 --trace-kernels sgemm
check journey-ends 0 "host RAM      host buffer, byte 0 of the copy" -- "$ws" run --gpu classroom --follow-pixel 12,7
# trace: reading a .wst file (docs/traces.md)
check trace-record 0 "-> PASS" -- "$ws" example saxpy --gpu classroom --n 4096 --trace "$tmp/t.wst"
check trace-info 0 "  0   saxpy" -- "$ws" trace info "$tmp/t.wst"
check trace-info-gpu 0 "gpu:      classroom: 2 SMs at 1000 MHz" -- "$ws" trace info "$tmp/t.wst"
check trace-info-ranges 0 "  other       y                              0x700000014000-0x700000018000      16384 B" -- "$ws" trace info "$tmp/t.wst"
check trace-info-run-ranges 0 "  weights     blocks.0.attn.qkv.weight" -- "$ws" trace info "$tmp/r1.wst"
check trace-info-run-scores 0 "  scores      scores " -- "$ws" trace info "$tmp/r1.wst"
check trace-info-v1 0 ".wst version 1, 1 chunks" -- "$ws" trace info "$src/tests/traces/data/v1_saxpy.wst"
check trace-exec-ranges 0 "micro-ops recorded" -- "$ws" exec "$saxpy" --grid 1 --block 64 --arg n=64 --arg a=2 --buf x=zeros:256 --buf y=zeros:256 --trace "$tmp/e.wst"
check trace-info-exec-ranges 0 "  other       y                              0x" -- "$ws" trace info "$tmp/e.wst"
if [ "$("$ws" trace dump "$tmp/t.wst" --kind dram --limit 3 | wc -l)" -eq 4 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: trace dump --kind dram --limit 3 is not a header and 3 lines"; fi
check trace-dump-header 0 "launch kind     begin" -- "$ws" trace dump "$tmp/t.wst" --kind dram --limit 3
if ! "$ws" trace dump "$tmp/t.wst" --kind l1,l2 --sm 1 --cycles 100:300 | tail -n +2 | awk '$2 != "l1" && $2 != "l2" || $5 != 1 || $3 < 100 || $3 >= 300 { bad = 1 } END { exit bad }'; then failed=$((failed + 1)); echo "FAIL: trace dump filters"; else passed=$((passed + 1)); fi
check trace-dump-uop 0 "l1_fill" -- "$ws" trace dump "$tmp/t.wst" --uop 5
check trace-stats 0 "  gpu.warp_insns                           2176" -- "$ws" trace stats "$tmp/t.wst"
check trace-stats-json 0 "" -- "$ws" trace stats "$tmp/t.wst" --json "$tmp/ts.json"
check trace-stats-json-content 0 '"sm1.stall.long_scoreboard": ' -- cat "$tmp/ts.json"
check trace-export-perfetto 0 "" -- "$ws" trace export "$tmp/t.wst" --format perfetto -o "$tmp/t.json"
check trace-export-perfetto-content 0 '"process_name","args":{"name":"SM 0"}' -- cat "$tmp/t.json"
check trace-export-csv 0 "launch,kind,begin,end" -- "$ws" trace export "$tmp/t.wst" --format csv
head -c 20000 "$tmp/t.wst" > "$tmp/cut.wst"
check trace-truncated 1 "cut.wst: byte 20000: " -- "$ws" trace info "$tmp/cut.wst"
check trace-truncated-export 1 "nothing exported from a damaged trace" -- "$ws" trace export "$tmp/cut.wst" --format csv -o "$tmp/cut.csv"
[ -e "$tmp/cut.csv" ] && { failed=$((failed + 1)); echo "FAIL: cut.csv was written"; } || passed=$((passed + 1))
check trace-missing-file 1 "cannot open '$tmp/none.wst'" -- "$ws" trace info "$tmp/none.wst"
check trace-unknown-subcommand 2 "unknown subcommand 'show'" -- "$ws" trace show "$tmp/t.wst"
check trace-no-subcommand 2 "expected a subcommand" -- "$ws" trace
check trace-no-file 2 "'trace dump' expects one FILE.wst" -- "$ws" trace dump
check trace-unknown-kind 2 "--kind: unknown kind 'l3'" -- "$ws" trace dump "$tmp/t.wst" --kind l1,l3
check trace-flag-not-for-sub 2 "--limit does not apply to 'trace stats'" -- "$ws" trace stats "$tmp/t.wst" --limit 3
check trace-export-no-format 2 "needs --format perfetto or --format csv" -- "$ws" trace export "$tmp/t.wst"
check trace-bad-launch 2 "--launch 4: $tmp/t.wst holds launches 0-0" -- "$ws" trace dump "$tmp/t.wst" --launch 4
check trace-bad-cycles 2 "--cycles expects A:B with A < B" -- "$ws" trace dump "$tmp/t.wst" --cycles 9:3
check trace-help 0 "usage: warpscope trace info FILE.wst" -- "$ws" trace --help

# viz: headless pictures of a trace; flags checked (2), the trace's limits checked before a file is written
"$ws" example saxpy --gpu classroom --trace "$tmp/v.wst" > /dev/null 2>&1
check viz-help 0 "warpscope viz FILE.wst --screenshot OUT.png" -- "$ws" viz --help
check viz-every-alone 2 "--frames needs --every N" -- "$ws" viz "$tmp/v.wst" --frames "$tmp/fr"
check viz-size 2 "--size expects WxH from 320x200 to 8192x8192, found '10x10'" -- "$ws" viz "$tmp/v.wst" --screenshot "$tmp/a.png" --size 10x10
check viz-zoom 2 "view 'sm:9': classroom has 2 SMs (0..1)" -- "$ws" viz "$tmp/v.wst" --screenshot "$tmp/a.png" --zoom sm:9
check viz-kernel 2 "--kernel gemm: the trace holds no launch of it" -- "$ws" viz "$tmp/v.wst" --screenshot "$tmp/a.png" --kernel gemm
check viz-cycle 2 "--at-cycle 99999999: launch 0 (saxpy) ends at cycle" -- "$ws" viz "$tmp/v.wst" --screenshot "$tmp/a.png" --at-cycle 99999999
[ -e "$tmp/a.png" ] && { failed=$((failed + 1)); echo "FAIL: a refused viz wrote its picture"; } || passed=$((passed + 1))
check viz-missing 1 "" -- "$ws" viz "$tmp/none.wst" --screenshot "$tmp/a.png"
head -c 3000 "$tmp/v.wst" > "$tmp/cut.wst"
check viz-truncated 1 "byte" -- "$ws" viz "$tmp/cut.wst" --screenshot "$tmp/a.png" --at-cycle 10
check viz-shot 0 "" -- "$ws" viz "$tmp/v.wst" --screenshot "$tmp/a.png" --at-cycle 300
check viz-shot-png 0 "PNG" -- head -c 4 "$tmp/a.png"
"$ws" viz "$tmp/v.wst" --screenshot "$tmp/b.png" --at-cycle 300 > /dev/null 2>&1
if cmp -s "$tmp/a.png" "$tmp/b.png"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: two screenshots of one cycle differ"; fi
check viz-frames 0 "" -- "$ws" viz "$tmp/v.wst" --frames "$tmp/fr" --every 400 --zoom sm:1 --size 640x400
check viz-frames-count 0 "frame_000000.png" -- ls "$tmp/fr"
# viz without --screenshot/--frames opens a window: without a display it says so and exits 1
check viz-no-display 1 "cannot open a window" -- env DISPLAY= WAYLAND_DISPLAY= SDL_VIDEODRIVER=x11 "$ws" viz "$tmp/v.wst"
check viz-no-display-hint 1 "--screenshot draws without one" -- env DISPLAY= WAYLAND_DISPLAY= SDL_VIDEODRIVER=x11 "$ws" viz "$tmp/v.wst"
check viz-window-cycle 2 "--at-cycle 99999999: launch 0 (saxpy) ends at cycle" -- env DISPLAY= SDL_VIDEODRIVER=x11 "$ws" viz "$tmp/v.wst" --at-cycle 99999999

# with no display SDL would fall back to a driver that shows nothing: refused, never a window no one can close
check viz-offscreen-refused 1 "no display (SDL found only its offscreen video driver)" -- env -u SDL_VIDEODRIVER DISPLAY= WAYLAND_DISPLAY= "$ws" viz "$tmp/v.wst"
before=$(ls /tmp/warpscope-run-* 2>/dev/null | wc -l)
check run-viz-no-display 1 "cannot open a window" -- env -u SDL_VIDEODRIVER DISPLAY= WAYLAND_DISPLAY= "$ws" run --gpu classroom --viz
after=$(ls /tmp/warpscope-run-* 2>/dev/null | wc -l)
if [ "$before" = "$after" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: run --viz left its temporary trace"; fi

# lessons: the list, one run to its verdict, and the refusals
check lesson-list 0 "bank-conflicts   seed 001" -- "$ws" lesson list
check lesson-threads 0 "6 of 6 numbers agree with their prediction -> PASS" -- "$ws" lesson threads
check lesson-unknown 2 "no lesson 'warps' (expected list or one of: threads, coalescing" -- "$ws" lesson warps
check lesson-none 2 "expected 'list' or a lesson's name" -- "$ws" lesson
check lesson-list-flags 2 "'list' takes no options" -- "$ws" lesson list --viz
check lesson-bad-flag 2 "unknown option '--fast'" -- "$ws" lesson threads --fast
check lesson-shot 0 "PASS" -- "$ws" lesson threads --screenshot "$tmp"
check lesson-shot-file 0 "" -- test -s "$tmp/threads.png"
check lesson-shot-bad-dir 1 "cannot create '$tmp/none/d'" -- "$ws" lesson threads --screenshot "$tmp/none/d"

# occupancy: the calculator's numbers (hand-computed in tests/sim/common/test_occupancy.c) and its refusals
check occ-a100 0 "occupancy: 4 CTAs per SM, 32 of 64 warps active: 50.0 %, limited by registers" -- "$ws" occupancy --gpu a100 --threads 256 --regs 64
check occ-curve 0 "33-40                6     48     75.0 %  registers" -- "$ws" occupancy --gpu a100 --threads 256 --regs 64
check occ-smem-k 0 "49152 B shared memory (50176 B allocated" -- "$ws" occupancy --gpu a100 --threads 256 --smem 48K
check occ-no-fit 0 "occupancy: 0 CTAs per SM: too many resources requested for launch" -- "$ws" occupancy --gpu v100 --threads 256 --smem 200K
check occ-gemm 0 "generated GEMM" -- "$ws" occupancy --gpu classroom --gemm blocktile2d
check occ-no-threads 2 "--threads T is needed (or --gemm VARIANT)" -- "$ws" occupancy --gpu a100 --regs 64
check occ-regs-gemm 2 "--regs comes from the kernel with --gemm" -- "$ws" occupancy --gemm mma --regs 40
check occ-bad-smem 2 "--smem expects bytes or KiB with K (49152, 48K), found '4Q'" -- "$ws" occupancy --threads 128 --smem 4Q
check occ-tiles-alone 2 "tile flags need --gemm VARIANT" -- "$ws" occupancy --threads 128 --bm 64
check occ-chart-ext 2 "a .png or .svg file name expected, '.txt' found" -- "$ws" occupancy --threads 128 -o "$tmp/occ.txt"
[ -e "$tmp/occ.txt" ] && { failed=$((failed + 1)); echo "FAIL: a refused chart was written"; } || passed=$((passed + 1))
check occ-chart-png 0 "wrote $tmp/occ.png" -- "$ws" occupancy --threads 128 -o "$tmp/occ.png"
check occ-chart-is-png 0 "PNG" -- head -c 4 "$tmp/occ.png"
check occ-chart-svg 0 "" -- "$ws" occupancy --threads 128 -o "$tmp/occ.svg"
check occ-chart-is-svg 0 "<svg" -- head -c 200 "$tmp/occ.svg"
"$ws" occupancy --threads 128 -o "$tmp/occ2.svg" > /dev/null 2>&1
if cmp -s "$tmp/occ.svg" "$tmp/occ2.svg"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: two charts of one CTA differ"; fi
printf '.kernel k\n.shared buf 4096 16\n  EXIT\n' > "$tmp/k.wsa"
check occ-kernel 0 "4096 B shared memory" -- "$ws" occupancy --threads 64 --kernel "$tmp/k.wsa"
check occ-kernel-name 1 "" -- "$ws" occupancy --threads 64 --kernel "$tmp/k.wsa:nosuch"

# viz pixel mode: --walk / --hop need a trace with a journey; a hop past its end and a trace
# without one are usage errors before any file is written; one frame per hop, the same bytes twice
"$ws" run --gpu classroom --follow-pixel 12,7 --trace "$tmp/px.wst" > /dev/null 2>&1
check viz-walk-no-journey 2 "holds no journey: pixel mode needs a trace recorded with" -- "$ws" viz "$tmp/v.wst" --screenshot "$tmp/w.png" --hop 1
check viz-walk-no-journey-frames 2 "holds no journey" -- "$ws" viz "$tmp/v.wst" --frames "$tmp/wfr" --walk
check viz-walk-no-journey-window 2 "holds no journey" -- env DISPLAY= SDL_VIDEODRIVER=x11 "$ws" viz "$tmp/v.wst" --walk
check viz-hop-range 2 "--hop 999: the journey has 64 hops (1..64)" -- "$ws" viz "$tmp/px.wst" --screenshot "$tmp/w.png" --hop 999
check viz-hop-zero 2 "--hop expects an integer from 1" -- "$ws" viz "$tmp/px.wst" --screenshot "$tmp/w.png" --hop 0
check viz-walk-at-cycle 2 "--walk and --hop pick the launch, cycle and view of each hop" -- "$ws" viz "$tmp/px.wst" --screenshot "$tmp/w.png" --hop 3 --at-cycle 5
check viz-walk-every 2 "draws one frame per hop: leave out --every" -- "$ws" viz "$tmp/px.wst" --frames "$tmp/wfr" --walk --every 10
check viz-hop-frames 2 "--hop goes with --screenshot or the window" -- "$ws" viz "$tmp/px.wst" --frames "$tmp/wfr" --hop 3
[ -e "$tmp/w.png" ] || [ -e "$tmp/wfr" ] && { failed=$((failed + 1)); echo "FAIL: a refused pixel walk wrote a file"; } || passed=$((passed + 1))
check viz-hop-shot 0 "" -- "$ws" viz "$tmp/px.wst" --screenshot "$tmp/w.png" --hop 7
"$ws" viz "$tmp/px.wst" --screenshot "$tmp/w2.png" --hop 7 > /dev/null 2>&1
if cmp -s "$tmp/w.png" "$tmp/w2.png"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: two pictures of one hop differ"; fi
check viz-walk-frames 0 "" -- "$ws" viz "$tmp/px.wst" --frames "$tmp/wfr" --walk --size 640x400
check viz-walk-frames-count 0 "64" -- sh -c "ls '$tmp/wfr' | wc -l"

# plot: a sweep's CSV read by column name; usage errors (2) before any file, bad CSV content (1) with
# FILE:LINE:COLUMN, no rows (1), nothing written on failure; the same bytes twice
csv="$src/tests/plot/data/sweep.csv"
check plot-heat 0 "2 not valid or failing their check" -- "$ws" plot "$csv" --kind heatmap --x bm --y bn --metric gflops -o "$tmp/heat.png"
check plot-heat-is-png 0 "PNG" -- head -c 4 "$tmp/heat.png"
"$ws" plot "$csv" --kind heatmap --x bm --y bn --metric gflops -o "$tmp/heat2.png" > /dev/null 2>&1
if cmp -s "$tmp/heat.png" "$tmp/heat2.png"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: two heatmaps of one CSV differ"; fi
check plot-roof-svg 0 "wrote $tmp/roof.svg" -- "$ws" plot "$csv" --kind roofline --label variant -o "$tmp/roof.svg"
"$ws" plot "$csv" --kind roofline --label variant -o "$tmp/roof2.svg" > /dev/null 2>&1
if cmp -s "$tmp/roof.svg" "$tmp/roof2.svg"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: two rooflines of one CSV differ"; fi
check plot-occ 0 "" -- "$ws" plot "$csv" --kind occupancy -o "$tmp/pocc.png"
check plot-stalls 0 "" -- "$ws" plot "$csv" --kind stalls -o "$tmp/pst.svg"
check plot-kind 2 "--kind expects heatmap, roofline, occupancy or stalls, found 'pie'" -- "$ws" plot "$csv" --kind pie -o "$tmp/p.png"
check plot-column 2 "has no column 'bq'; its columns: kind, gpu, sets" -- "$ws" plot "$csv" --kind heatmap --x bq --y bn --metric gflops -o "$tmp/p.png"
check plot-needs-x 2 "--kind heatmap needs --x COL, --y COL and --metric COL" -- "$ws" plot "$csv" --kind heatmap -o "$tmp/p.png"
check plot-ext 2 "a .png or .svg file name expected, '.jpg' found" -- "$ws" plot "$csv" --kind roofline -o "$tmp/p.jpg"
check plot-no-out 2 "-o OUT.png|.svg is needed" -- "$ws" plot "$csv" --kind roofline
printf 'gpu,valid,check,arith_intensity,gflops\na100,yes,pass,2,100\nh100,yes,pass,4,200\n' > "$tmp/two.csv"
check plot-two-gpus 2 "holds rows of several gpus (a100, h100, ...): --gpu NAME picks one" -- "$ws" plot "$tmp/two.csv" --kind roofline -o "$tmp/p.png"
check plot-gpu-picks 0 "1 of another gpu than h100" -- "$ws" plot "$tmp/two.csv" --kind roofline --gpu h100 -o "$tmp/p2.png"
printf 'bm,bn,gflops\n32,32,1\n64,"6x",2\n' > "$tmp/bad.csv"
check plot-bad-number 1 "bad.csv:3:4: error: column 'bn': a number expected, '6x' found" -- "$ws" plot "$tmp/bad.csv" --kind heatmap --x bm --y bn --metric gflops -o "$tmp/p.png"
printf 'bm,bn,gflops\n32,32,1,9\n' > "$tmp/wide.csv"
check plot-wide-row 1 "wide.csv:2:9: error: a row of more fields than the header's 3 (4)" -- "$ws" plot "$tmp/wide.csv" --kind heatmap --x bm --y bn --metric gflops -o "$tmp/p.png"
printf 'bm,bn,gflops,valid\n32,32,1,no\n' > "$tmp/none.csv"
check plot-no-rows 1 "no rows to plot" -- "$ws" plot "$tmp/none.csv" --kind heatmap --x bm --y bn --metric gflops -o "$tmp/p.png"
: > "$tmp/empty.csv"
check plot-empty 1 "no header row" -- "$ws" plot "$tmp/empty.csv" --kind stalls -o "$tmp/p.png"
[ -e "$tmp/p.png" ] && { failed=$((failed + 1)); echo "FAIL: a refused plot wrote a file"; } || passed=$((passed + 1))
# gemm and attention: one explore point, its report and summary; usage errors and refused
# configurations exit 2 with the reason, before anything runs
check gemm-help 0 "usage: warpscope gemm" -- "$ws" gemm --help
check gemm-run 0 "gemm M=64 N=48 K=32 blocktile2d bm=128 bn=128 bk=8 tm=8 tn=8 threads=256 on classroom: " -- "$ws" gemm --gpu classroom --m 64 --n 48 --k 32 --variant blocktile2d
check gemm-report 0 "kernel 'gemm_smem' on classroom: grid (2,2,1) block (256,1,1), 4 CTAs" -- "$ws" gemm --gpu classroom --size 32 --variant smem --bm 16 --bn 16
check gemm-check 0 "check passed" -- "$ws" gemm --gpu classroom --size 32 --variant mma
check gemm-no-variant 2 "--variant V is needed" -- "$ws" gemm --size 64
check gemm-bad-variant 2 "--variant: unknown GEMM variant 'bogus'" -- "$ws" gemm --size 64 --variant bogus
check gemm-unused-tile 2 "--wm does not apply to the blocktile2d GEMM" -- "$ws" gemm --size 64 --variant blocktile2d --wm 32
check gemm-too-big 2 "--m expects a whole number from 1 to 65536, found '70000'" -- "$ws" gemm --m 70000 --n 1 --k 1 --variant naive
check gemm-no-k 2 "--k is needed (or --size)" -- "$ws" gemm --m 8 --n 8 --variant naive
check gemm-indices 2 "must stay below 2^31 elements" -- "$ws" gemm --size 65536 --variant naive
# sampling: 16 waves are sampled and say so; too few waves and too short a loop are timed in full and say so; bad counts are usage errors
check gemm-sample 0 "sampled: estimated from 42.2% of the warp instructions timed (108 of 256 CTAs timed)" -- "$ws" gemm --gpu classroom --m 512 --n 512 --k 32 --variant smem --sample
check gemm-sample-report 0 "estimated by sampling, +-" -- "$ws" gemm --gpu classroom --m 512 --n 512 --k 32 --variant smem --sample-waves 2
check gemm-sample-few 0 "not sampled: too few waves to skip and no main loop long enough" -- "$ws" gemm --gpu classroom --size 64 --variant smem --sample
check gemm-sample-loop 0 "sampled: estimated from 30.6% of the warp instructions timed (4 of 4 CTAs timed)" -- "$ws" gemm --gpu classroom --size 64 --variant coalesced --sample
check gemm-sample-rounds 2 "--sample-rounds expects 2 to 32, found '1'" -- "$ws" gemm --size 64 --variant naive --sample-rounds 1
check gemm-sample-waves 2 "--sample-waves expects 2 to 64, found '1'" -- "$ws" gemm --size 64 --variant naive --sample-waves 1
check gemm-sample-what 2 "--sample= expects exact (or nothing: --sample), found 'fast'" -- "$ws" gemm --size 64 --variant naive --sample=fast
check sweep-sample-what 2 "--sample= expects exact" -- "$ws" sweep gemm --size 64 --variant naive --sample= -o "$tmp/never.csv"
check gemm-sample-sliced 0 "checked 16384 of 65536 outputs: those of the 16 of 64 CTAs computed in full" -- "$ws" gemm --gpu classroom --m 256 --n 256 --k 32 --variant naive --sample
check sweep-sample-coverage 0 "2 sampled points checked only the outputs of the CTAs computed in full: 32768 of 131072 outputs" -- "$ws" sweep gemm --gpu classroom --m 256 --n 256 --k 32 --variant naive,smem --sample --restart -o "$tmp/coverage.csv"
check gemm-sample-exact 0 "check passed" -- "$ws" gemm --gpu classroom --m 256 --n 256 --k 32 --variant naive --sample=exact
check attention-sample-waves 2 "--sample-waves expects 2 to 64, found '65'" -- "$ws" attention --sample-waves 65
check gemm-memory 2 "more than classroom's 1073741824 bytes of memory" -- "$ws" gemm --gpu classroom --size 40000 --variant naive
check gemm-refused 2 "bm=24 must be a power of two" -- "$ws" gemm --size 64 --variant blocktile2d --bm 24
check gemm-bad-set 2 "unknown key 'l2.bogus'" -- "$ws" gemm --size 64 --variant naive --set l2.bogus=3
check attention-help 0 "usage: warpscope attention" -- "$ws" attention --help
check attention-naive 0 "attention naive seq=32 heads=2 dhead=8 on classroom: 3 launches" -- "$ws" attention --gpu classroom --attn naive --seq 32 --heads 2 --dhead 8
check attention-flash 0 "attention flash br=32 bc=8 seq=32 heads=1 dhead=8 on classroom: 1 launch, " -- "$ws" attention --gpu classroom --seq 32 --heads 1 --dhead 8 --br 32 --bc 8
check attention-bad-attn 2 "--attn expects naive or flash, found 'slow'" -- "$ws" attention --attn slow
check attention-naive-tiles 2 "naive attention takes none" -- "$ws" attention --attn naive --br 32
check attention-dhead 2 "head_dim must be a power of two from 4 to 64" -- "$ws" attention --dhead 24
check attention-br 2 "Br must be a positive multiple of 32" -- "$ws" attention --br 48
check attention-huge 2 "must fit in 32 bits" -- "$ws" attention --attn naive --seq 4294967295 --heads 4294967295 --dhead 4294967295

# sweep: lists and ranges expand into points; refused points are listed with their reasons; the CSV
# resumes; usage errors before anything runs; an MPI job writes the bytes one process writes
sw=(gemm --gpu classroom --size 128 --variant smem,mma --bm 32,64)
check sweep-run 0 "4 points: 3 passed, 0 failed the check, 1 refused" -- "$ws" sweep "${sw[@]}" -j 2 -o "$tmp/sw.csv" --json "$tmp/sw.json"
check sweep-refused 0 "smem bm=64 bn=32 bk=32 threads=2048: bm, bn, bk and threads must be at most 1024" -- "$ws" sweep "${sw[@]}" -o "$tmp/sw2.csv"
check sweep-csv-rows 0 "5" -- bash -c "wc -l < '$tmp/sw.csv'"
check sweep-json 0 '"kind":"gemm"' -- head -c 400 "$tmp/sw.json"
check sweep-resume 0 "resuming $tmp/sw.csv: 4 of its 4 records are points of this sweep" -- "$ws" sweep "${sw[@]}" -o "$tmp/sw.csv"
cp "$tmp/sw.csv" "$tmp/sw.before"
check sweep-resume-same 0 "" -- "$ws" sweep "${sw[@]}" -o "$tmp/sw.csv" -q
if cmp -s "$tmp/sw.csv" "$tmp/sw.before"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: a resumed sweep changed its output"; fi
check sweep-bad-gpu 2 "unknown GPU preset 'nosuch'" -- "$ws" sweep gemm --gpu classroom,nosuch -o "$tmp/never.csv"
[ -e "$tmp/never.csv" ] && { failed=$((failed + 1)); echo "FAIL: a refused sweep wrote its output"; } || passed=$((passed + 1))
check sweep-no-kind 2 "a kind is needed: gemm, attention or kernel" -- "$ws" sweep
check sweep-bad-kind 2 "unknown kind 'conv' (expected gemm, attention or kernel)" -- "$ws" sweep conv
check sweep-bad-range 2 "--tm 4:8:0: a step of 0" -- "$ws" sweep gemm --tm 4:8:0
check sweep-wrong-param 2 "--seq is not a parameter of a gemm sweep" -- "$ws" sweep gemm --seq 64
check sweep-size-and-m 2 "--size and --m/--n/--k exclude each other" -- "$ws" sweep gemm --size 128 --m 64
check sweep-jobs 2 "--jobs expects 1 to 4096, found '0'" -- "$ws" sweep gemm -j 0
check sweep-too-many 2 "more than the 100000 points a sweep may have" -- "$ws" sweep gemm --bm 1:1000 --bn 1:1000
check sweep-attention 0 "2 points: 2 passed" -- "$ws" sweep attention --gpu classroom --seq 32 -o "$tmp/att.csv"
if command -v mpirun > /dev/null 2>&1; then
  # Open MPI's own components keep allocations to the end: leak checks off for the job (sanitized builds)
  check sweep-mpi 0 "" -- env ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 mpirun -np 2 --oversubscribe --allow-run-as-root "$ws" sweep "${sw[@]}" -j 1 -o "$tmp/mpi.csv" --json "$tmp/mpi.json" -q
  if cmp -s "$tmp/mpi.csv" "$tmp/sw.csv" && cmp -s "$tmp/mpi.json" "$tmp/sw.json"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: mpirun -np 2 wrote other bytes than one process"; fi
  # ranks that hold other points stop the job with exit 1 naming the rank, and nothing is written (D3)
  check sweep-mpi-ranks-differ 1 "rank 1 holds other points or GPU configuration than rank 0" -- \
    env ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 mpirun --oversubscribe --allow-run-as-root \
    -np 1 "$ws" sweep gemm --gpu classroom --size 32,64 --variant naive -j 1 -o "$tmp/mm.csv" -q : \
    -np 1 "$ws" sweep gemm --gpu classroom --size 32,64 --variant naive -j 1 -o "$tmp/mm.csv" -q --seed 2
  [ -e "$tmp/mm.csv" ] && { failed=$((failed + 1)); echo "FAIL: ranks that differ wrote a sweep"; } || passed=$((passed + 1))
fi
check sweep-plot 0 "" -- "$ws" plot "$tmp/sw.csv" --kind stalls -o "$tmp/sw-stalls.png"
# a sampled sweep records its waves, the CTAs it timed and the interval; it is another sweep than the full one
check sweep-sample 0 "(sampled: cycles +- " -- "$ws" sweep gemm --gpu classroom --m 512 --n 512 --k 32 --variant smem --sample -o "$tmp/samp.csv"
check sweep-sample-row 0 "1,3,3,yes,,pass" -- cat "$tmp/samp.csv"
check sweep-sample-flag 0 ",sampled,108," -- cat "$tmp/samp.csv"
check sweep-sample-waves 2 "--sample-waves expects 2 to 64, found 'x'" -- "$ws" sweep gemm --sample-waves x

# one rule for outputs (base/outputs.h): no output may be an input, nor two outputs one file;
# refused before anything is read or written, the input left as it was
"$ws" example saxpy --gpu classroom --trace "$tmp/in.wst" >/dev/null 2>&1
cp "$tmp/in.wst" "$tmp/keep.wst"
ln -s keep.wst "$tmp/keep-link.wst"
check viz-shot-onto-trace 2 "--screenshot '$tmp/keep.wst' is the trace: the output would replace what it reads" -- "$ws" viz "$tmp/keep.wst" --screenshot "$tmp/keep.wst"
check trace-export-onto-trace 2 "-o '$tmp/keep.wst' is the trace" -- "$ws" trace export "$tmp/keep.wst" --format csv -o "$tmp/keep.wst"
check trace-stats-json-onto-trace 2 "--json '$tmp/keep.wst' is the trace" -- "$ws" trace stats "$tmp/keep.wst" --json "$tmp/keep.wst"
check trace-export-onto-trace-link 2 "-o '$tmp/keep.wst' is the trace '$tmp/keep-link.wst' under another name" -- "$ws" trace export "$tmp/keep-link.wst" --format perfetto -o "$tmp/keep.wst"
check trace-export-onto-trace-spelled 2 "is the trace '$tmp/keep.wst' under another name" -- "$ws" trace export "$tmp/keep.wst" --format csv -o "$tmp/./keep.wst"
if cmp -s "$tmp/in.wst" "$tmp/keep.wst"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: a trace was overwritten by its own output"; fi
cp "$saxpy" "$tmp/k.wsa"
check exec-trace-onto-kernel 2 "--trace '$tmp/k.wsa' is the kernel file" -- "$ws" exec "$tmp/k.wsa" --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --trace "$tmp/k.wsa"
check exec-json-onto-kernel 2 "--stats-json '$tmp/k.wsa' is the kernel file" -- "$ws" exec "$tmp/k.wsa" --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --stats-json "$tmp/k.wsa"
check exec-out-onto-kernel 2 "--out '$tmp/k.wsa' is the kernel file" -- "$ws" exec "$tmp/k.wsa" --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --out y="$tmp/k.wsa"
if cmp -s "$saxpy" "$tmp/k.wsa"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: a kernel file was overwritten by its own run"; fi
check sweep-csv-and-json-one-file 2 "-o '$tmp/one.csv' and --json '$tmp/one.csv' are one file" -- "$ws" sweep gemm --gpu classroom --size 32 --variant naive -o "$tmp/one.csv" --json "$tmp/one.csv"
[ -e "$tmp/one.csv" ] && { failed=$((failed + 1)); echo "FAIL: a refused sweep wrote its CSV"; } || passed=$((passed + 1))
cp "$tmp/sw.csv" "$tmp/sw-copy.svg"
check plot-onto-table 2 "-o '$tmp/sw-copy.svg' is the table" -- "$ws" plot "$tmp/sw-copy.svg" --kind stalls -o "$tmp/sw-copy.svg"
check run-save-weights-onto-weights 2 "--save-weights '$tmp/keep.safetensors' is --weights" -- "$ws" run --weights "$tmp/keep.safetensors" --save-weights "$tmp/keep.safetensors"
check trace-export-empty-name 2 "-o needs a file name" -- "$ws" trace export "$tmp/keep.wst" --format csv -o ""
# a device given as the sweep's output is written, never read back as a resume file
check sweep-to-device 0 "1 point" -- "$ws" sweep gemm --gpu classroom --size 32 --variant naive -o /dev/null

# an invalid combination of --set values is a usage error (2) in every command, sweep included;
# a sweep flag given twice is refused like any other (hostile-inputs-2 D6, D8)
for c in "run" "example saxpy" "kernel gemm" "occupancy --threads 256" "microbench latency" "demo persistent"; do
  # shellcheck disable=SC2086
  check "set-combination-$c" 2 "(after --set): error: key 'l1.size_kib'" -- "$ws" $c --gpu classroom --set l1.size_kib=30
done
check set-combination-sweep 2 "classroom (after --set): error: key 'l1.size_kib'" -- "$ws" sweep gemm --gpu classroom --size 32 --variant naive -o "$tmp/setc.csv" --set l1.size_kib=30
[ -e "$tmp/setc.csv" ] && { failed=$((failed + 1)); echo "FAIL: a sweep refused up front wrote its CSV"; } || passed=$((passed + 1))
check sweep-size-twice 2 "--size given twice" -- "$ws" sweep gemm --gpu classroom --size 32 --size 64 --variant naive -o "$tmp/twice.csv"
check sweep-m-twice 2 "--m given twice" -- "$ws" sweep gemm --gpu classroom --m 32 --m 64 --variant naive -o "$tmp/twice.csv"
check viz-size-twice 2 "--size given twice" -- "$ws" viz "$tmp/keep.wst" --size 320x200 --size 640x400 --screenshot "$tmp/twice.png"
# lesson outputs checked before the lesson runs (D7): a file where the folder goes, empty names
check lesson-shot-onto-file 2 "--screenshot '$tmp/keep.wst' is a file; it names the folder the picture goes in" -- "$ws" lesson threads --screenshot "$tmp/keep.wst"
check lesson-shot-empty 2 "--screenshot needs a file name" -- "$ws" lesson threads --screenshot ""
check lesson-trace-empty 2 "--trace needs a file name" -- "$ws" lesson threads --trace ""
# Ctrl-C or SIGTERM during a streaming export: no temporary file left, exit 130 (D4); an export
# that finished before the signal (a very fast machine) must have left its whole output instead
"$ws" run --gpu classroom --trace "$tmp/big.wst" >/dev/null 2>&1
for sig in INT TERM; do
  mkdir -p "$tmp/sig$sig"
  "$ws" trace export "$tmp/big.wst" --format perfetto -o "$tmp/sig$sig/big.json" >/dev/null 2>&1 &
  pid=$!
  sleep 0.2
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
  left=$(ls "$tmp/sig$sig")
  if { [ "$rc" -eq 130 ] && [ -z "$left" ]; } || { [ "$rc" -eq 0 ] && [ "$left" = big.json ]; }; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL: export interrupted by SIG$sig: rc=$rc, left: $left"
  fi
done
rm -rf "$tmp/sigINT" "$tmp/sigTERM" "$tmp/big.wst"
# Ctrl-C during run, launches or the checks after them, is never swallowed (D16): a run still
# alive when signalled exits 130 and prints nothing; one that had already ended exits 0
for delay in 0.3 0.8; do
  "$ws" run --gpu classroom --batch 64 >"$tmp/int.out" 2>/dev/null &
  pid=$!
  sleep "$delay"
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo gone)
  signalled=0
  if [ "$state" != Z ] && [ "$state" != gone ]; then kill -s INT "$pid" 2>/dev/null && signalled=1; fi
  wait "$pid"
  rc=$?
  if { [ "$signalled" -eq 1 ] && [ "$rc" -eq 130 ] && [ ! -s "$tmp/int.out" ]; } ||
     { [ "$signalled" -eq 0 ] && [ "$rc" -eq 0 ]; }; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL: run interrupted after ${delay}s: rc=$rc, signalled=$signalled, $(wc -c <"$tmp/int.out") bytes out"
  fi
done
# messages (D15): a full disk named once, with its reason; a left-out row's real cause; no blanks
# in numbers; a check named twice
if [ -w /dev/full ]; then
  out=$("$ws" trace export "$tmp/keep.wst" --format csv 2>&1 > /dev/full)
  if [ "$out" = "warpscope: error: writing the export failed: No space left on device" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL: trace export to a full disk said: $out"; fi
fi
printf 'gpu,arith_intensity,gflops\nclassroom,-1,2\nclassroom,1,-3\nclassroom,,4\nclassroom,2,8\n' > "$tmp/neg.csv"
check plot-unplottable 0 "3 of 4 rows left out: 1 with an empty field (arith_intensity, ...); 2 with a value the chart cannot draw (0 or less on a log axis, a negative share)" -- "$ws" plot "$tmp/neg.csv" --kind roofline -o "$tmp/neg.png"
check viz-size-blank 2 "--size expects WxH from 320x200 to 8192x8192, found ' 320x200'" -- "$ws" viz "$tmp/keep.wst" --size " 320x200" --screenshot "$tmp/b.png"
check viz-size-inner-blank 2 "found '320x 200'" -- "$ws" viz "$tmp/keep.wst" --size "320x 200" --screenshot "$tmp/b.png"
check run-check-twice 2 "--check names race twice" -- "$ws" run --check race,race
# viz --frames bounds frames x size, not the frame count alone (D14)
check viz-frames-pixels 2 "over the 16-gigapixel limit: a larger --every or a smaller --size" -- "$ws" viz "$tmp/keep.wst" --frames "$tmp/fr-pixels" --every 20 --size 8192x8192
[ -e "$tmp/fr-pixels" ] && { failed=$((failed + 1)); echo "FAIL: refused frames made their folder"; } || passed=$((passed + 1))
# run's memory check counts the simulator's own state for the preset (D13):
# every size key at its maximum takes about 3.5 GB before any image
big=(--gpu classroom --set gpu.num_sms=1024 --set l2.size_kib=1048576 --set l2.slices=1024 --set hbm.channels=1024
  --set l1.size_kib=1024 --set l1.assoc=64 --set l1.mshr_entries=4096 --set l2.mshr_entries_per_slice=4096
  --set hbm.queue_depth=4096)
check run-sim-state 2 "the simulator's state for this GPU: 35" -- "$ws" run "${big[@]}" --batch 1024 --dim 128 --depth 8
# ptx: PTX and CUDA C in, located refusals, usage errors
check ptx-saxpy 0 "// kernel saxpy (saxpy): 18 instructions, 8 registers/thread" -- "$ws" ptx "$src/tests/ptx/cuda/saxpy.ptx"
check ptx-no-file 2 "expected a .ptx or .cu file" -- "$ws" ptx
check ptx-not-ptx 2 "a .ptx or .cu file expected" -- "$ws" ptx "$src/README.md"
check ptx-define-on-ptx 2 "-D and --instantiate apply to a .cu file" -- "$ws" ptx "$src/tests/ptx/cuda/saxpy.ptx" -D X=1
check ptx-max-regs 2 "--max-regs must be 1..255, got '0'" -- "$ws" ptx "$src/tests/ptx/cuda/saxpy.ptx" --max-regs 0
check ptx-onto-itself 2 "" -- "$ws" ptx "$src/tests/ptx/cuda/saxpy.ptx" -o "$src/tests/ptx/cuda/saxpy.ptx"
check ptx-too-few-regs 1 "kernel 'saxpy': does not fit in 1 registers even with spilling" -- "$ws" ptx "$src/tests/ptx/cuda/saxpy.ptx" --max-regs 1
check ptx-recursion 1 "recursion.ptx:23: error: 'call.uni down': recursion: 'down' calls itself through 'back'" -- "$ws" ptx "$src/tests/ptx/data/recursion.ptx"
check exec-device-funcs 0 "  5 11 21 3.5" -- "$ws" exec "$src/tests/ptx/cuda/device_funcs.cu" --grid 1 --block 32 --arg n=4 --buf x=f32:1,-2,3,-0.5 --buf y=zeros:16 --buf z=zeros:16 --buf w=zeros:16 --arg s=0.5 --print z:f32:4
check ptx-spills 0 "// kernel saxpy (saxpy): 35 instructions, 4 registers/thread, 32 bytes spilled" -- "$ws" ptx "$src/tests/ptx/cuda/saxpy.ptx" --max-regs 4
check exec-max-regs 0 "3 5 7 9 11" -- "$ws" exec "$src/tests/ptx/cuda/saxpy.cu" --max-regs 4 --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --print y
check ptx-half-stores 0 "STG.16 [R4+0], R0" -- "$ws" ptx "$src/tests/ptx/cuda/half_axpy.ptx"
check ptx-missing 1 "nope.ptx" -- "$ws" ptx "$tmp/nope.ptx"
printf '__global__ void k(int *p) { p[0] = oops; }\n' > "$tmp/bad.cu"
check ptx-cu-error 1 "bad.cu:1:36: error: use of undeclared identifier 'oops'" -- "$ws" ptx "$tmp/bad.cu"
check ptx-template-none 1 "a template kernel is compiled only for the instances asked for" -- "$ws" ptx "$src/tests/ptx/cuda/sgemm_reg.cu"
check exec-cu-kernel 0 "3 5 7 9 11" -- "$ws" exec "$src/tests/ptx/cuda/saxpy.cu" --kernel saxpy --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --print y --functional
# a struct passed by value: one param per field, named from the struct's definition in the .cu
check exec-struct-fields 0 "2.5 4.5 6.5 8.5 0" -- "$ws" exec "$src/tests/ptx/cuda/struct_params.cu" --kernel affine --grid 1 --block 32 --arg p.scale=2 --arg p.shift=0.5 --arg p.n=4 --buf p.src=f32:1,2,3,4,5 --buf out=zeros:20 --print out:f32:5 --functional
check exec-struct-unknown-field 1 "unknown param 'p.scal' (kernel 'affine' has: p.scale, p.shift, p.n, p.src, out)" -- "$ws" exec "$src/tests/ptx/cuda/struct_params.cu" --kernel affine --grid 1 --block 32 --arg p.scal=2 --buf out=zeros:20 --functional
check ptx-struct-fields 0 ".param .s32 p.n                         // bytes 8..11 of a 24-byte struct" -- "$ws" ptx "$src/tests/ptx/cuda/struct_params.cu"
check gemm-source-cuda 0 "smem bm=32 bn=32 bk=32 threads=1024 source cuda on a100" -- "$ws" gemm --source cuda --variant smem --size 64
check gemm-source-bad 2 "--source expects generated or cuda, found 'ptx'" -- "$ws" gemm --source ptx --variant smem --size 64
# sweep kernel: an expression that does not parse is refused with its column, a name that is not a -D
# with the names there are, both before any point runs (exit 2)
check sweep-kernel-bad-expr 2 "--grid 'cdiv(SIZE,TILE': column 15: expected ')'" -- "$ws" sweep kernel "$src/tests/ptx/cuda/sgemm_tiled.cu" -D TILE=8,16 -D SIZE=64 --grid 'cdiv(SIZE,TILE' --block TILE,TILE -o "$tmp/swk.csv"
check sweep-kernel-not-a-define 2 "--block 'TILE,ROWS': column 6: 'ROWS' is not a -D name (TILE, SIZE)" -- "$ws" sweep kernel "$src/tests/ptx/cuda/sgemm_tiled.cu" -D TILE=8,16 -D SIZE=64 --grid 1 --block TILE,ROWS -o "$tmp/swk.csv"
check sweep-kernel-ptx-no-d 2 "compiled already: it takes no -D" -- "$ws" sweep kernel "$src/tests/ptx/data/saxpy_const.ptx" -D TILE=8 --grid 1 --block 32 -o "$tmp/swk.csv"
check sweep-kernel-not-cu 2 "a kernel sweep takes a CUDA C (.cu) or PTX (.ptx) file" -- "$ws" sweep kernel "$src/README.md" --grid 1 --block 32 -o "$tmp/swk.csv"
check exec-cu-constant 0 "3.5 5 2 6 4 7 1 9" -- "$ws" exec "$src/tests/ptx/data/const_init.cu" --grid 1 --block 8 --buf x=f32:1,1,1,1,2,2,2,2 --buf y=zeros:32 --print y
# --const fills a __constant__ variable as a host's cudaMemcpyToSymbol would
check exec-const 0 "1.5 5.59790993 1.72431934 12.4146357" -- "$ws" exec "$src/tests/ptx/cuda/host_program.cu" --grid 1 --block 32 --buf x=f32:0,1,-1,2 --buf y=zeros:16 --arg n=4 --const coef=f32:0.25 --print y
check exec-const-unknown 1 "--const nope: the program has no __constant__ variable of that name" -- "$ws" exec "$src/tests/ptx/cuda/host_program.cu" --grid 1 --block 32 --buf x=f32:0 --buf y=zeros:16 --arg n=1 --const nope=f32:1
check exec-const-too-big 1 "--const coef: 20 bytes given; the variable holds 16" -- "$ws" exec "$src/tests/ptx/cuda/host_program.cu" --grid 1 --block 32 --buf x=f32:0 --buf y=zeros:16 --arg n=1 --const coef=f32:1,2,3,4,5
check exec-const-bad-spec 2 "--const coef: expected f32:, u32:, s32:, f16:, zeros: or file:, found 'q32:1'" -- "$ws" exec "$src/tests/ptx/cuda/host_program.cu" --grid 1 --block 32 --const coef=q32:1
check exec-source-view 0 "saxpy.wsa:" -- "$ws" exec "$src/models/runs/examples/saxpy.wsa" --grid 1 --block 32 --arg n=32 --arg a=2 --buf x=zeros:128 --buf y=zeros:128 --source-view=2
check exec-source-view-count 2 "--source-view=N expects a line count from 1 to 100000, found '0'" -- "$ws" exec "$src/models/runs/examples/saxpy.wsa" --grid 1 --block 32 --arg n=32 --arg a=2 --buf x=zeros:128 --buf y=zeros:128 --source-view=0
check exec-source-view-functional 2 "--source-view needs the timing model; drop --functional" -- "$ws" exec "$src/models/runs/examples/saxpy.wsa" --grid 1 --block 32 --arg n=32 --arg a=2 --buf x=zeros:128 --buf y=zeros:128 --source-view --functional
check example-no-source-view 2 "source-view" -- "$ws" example saxpy --source-view
# a launch stopped by a limit reports what it simulated: the report's duration is the cycle the stop names
check_stopped_report() { # NAME command...
  local name=$1 out rc report_cycles stop_cycle
  shift
  out=$("$@" 2>&1)
  rc=$?
  report_cycles=$(sed -n 's/^  duration \[cycles\] *\([0-9]*\)$/\1/p' <<<"$out")
  stop_cycle=$(sed -n 's/.*stopped: .*(at cycle \([0-9]*\),.*/\1/p' <<<"$out")
  if [ "$rc" -eq 1 ] && [ "${report_cycles:-0}" -gt 0 ] && [ "$report_cycles" = "$stop_cycle" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: rc=%s, report %s cycles, stopped at %s\n%s\n' "$name" "$rc" "$report_cycles" "$stop_cycle" "$out"
  fi
}
check_stopped_report gemm-timeout-report "$ws" gemm --gpu a100 --size 1024 --variant naive --timeout 1
check_stopped_report exec-max-cycles-report "$ws" exec "$tmp/count.wsa" --grid 1 --block 32 --max-cycles 5000 --report

# occupancy: one warp is "1 warp"; a share of 4 of 64 warps is 6.25 %, not rounded to 6.2
check occupancy-one-warp 0 "CTA: 32 threads (1 warp), 32 registers" -- "$ws" occupancy --gpu a100 --threads 32 --regs 32
check occupancy-two-decimals 0 "     4      4     6.25 %  shared memory" -- "$ws" occupancy --gpu a100 --threads 32 --regs 32

# every --help that names its exit codes names 130, the exit of a command stopped by Ctrl-C
for cmd in run asm disasm ptx exec kernel example microbench trace viz occupancy gemm attention sweep plot \
  lesson demo gpus; do
  out=$("$ws" "$cmd" --help 2>&1)
  if [[ "$out" != *"Exit status"* || "$out" == *"130"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); echo "FAIL $cmd-help-exit-130: its exit codes do not name 130"
  fi
done
check sweep-help-interrupt 0 "130 when interrupted (Ctrl-C: what finished is" -- "$ws" sweep --help
check attention-l2-keep 0 "  L2 kept between the launches: DRAM 24576 B read, 40960 B written" -- "$ws" attention --gpu classroom --attn naive --seq 64 --heads 2 --dhead 16 --l2 keep
check gemm-l2-bad 2 "--l2 expects keep or flush, found 'warm'" -- "$ws" gemm --gpu classroom --size 64 --l2 warm
# the simulation cost: on stderr after each single-point report, the sweep's total and slowest points, and
# with sweep --cost three columns after the stall columns; a file written with them resumes only with them
check gemm-cost 0 "simulation cost: " -- "$ws" gemm --gpu classroom --size 64 --variant naive
check gemm-cost-full 0 " warp instructions, " -- "$ws" gemm --gpu classroom --size 64 --variant naive
check gemm-cost-sampled 0 "(sampled run)" -- "$ws" gemm --gpu classroom --m 512 --n 512 --k 32 --variant smem --sample
check gemm-cost-stdout-clean 0 "" -- bash -c "'$ws' gemm --gpu classroom --size 64 --variant naive 2>/dev/null | grep -c 'simulation cost' | grep -qx 0"
check attention-cost 0 "(full run)" -- "$ws" attention --gpu classroom --attn flash --seq 32
check exec-report-cost 0 "simulation cost: " -- "$ws" exec "$saxpy" --grid 1 --block 32 --arg n=5 --arg a=2 \
  --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 --report
check exec-no-report-no-cost 0 "" -- bash -c "'$ws' exec '$saxpy' --grid 1 --block 32 --arg n=5 --arg a=2 --buf x=f32:1,2,3,4,5 --buf y=f32:1,1,1,1,1 2>&1 | grep -c 'simulation cost' | grep -qx 0"
check sweep-cost-summary 0 "slowest to simulate:" -- "$ws" sweep "${sw[@]}" --restart -o "$tmp/cost0.csv"
check sweep-cost 0 "simulation cost of 4 points: " -- "$ws" sweep "${sw[@]}" --cost -o "$tmp/cost.csv"
check sweep-cost-columns 0 ",stall_no_instruction,sim_wall_s,sim_cpu_s,sim_warp_insns_per_s" -- head -1 "$tmp/cost.csv"
check sweep-cost-json 0 "" -- "$ws" sweep "${sw[@]}" --cost --restart -o "$tmp/cost2.csv" --json "$tmp/cost2.json" -q
check sweep-cost-json-key 0 '"sim_wall_s":' -- cat "$tmp/cost2.json"
check sweep-cost-quiet 0 "" -- bash -c "'$ws' sweep ${sw[*]} --cost -o '$tmp/cost.csv' -q 2>&1 | grep -c . | grep -qx 0"
check sweep-cost-resume-without 1 "$tmp/cost.csv holds the cost columns (sim_wall_s, sim_cpu_s, sim_warp_insns_per_s)" -- "$ws" sweep "${sw[@]}" -o "$tmp/cost.csv"
check sweep-cost-resume-plain 0 "resuming $tmp/cost0.csv: 4 of its 4 records" -- "$ws" sweep "${sw[@]}" --cost -o "$tmp/cost0.csv"
check sweep-cost-resumed-empty 0 ",sim_wall_s,sim_cpu_s,sim_warp_insns_per_s" -- head -1 "$tmp/cost0.csv"
check sweep-cost-resumed-empty-row 0 "" -- bash -c "grep ',yes,,pass,' '$tmp/cost0.csv' | head -1 | grep -q ',,,\$'"
check sweep-help-cost 0 "  --cost              add what simulating each point cost" -- "$ws" sweep --help
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
