# warpscope - two commands on a fresh Debian 12 machine:
#   make run    install missing packages, build, run the main job (TinyViT32)
#   make test   install missing packages, build, run every test (plain, then
#               under ASan+UBSan, then a short fuzz run of each parser)
# make bench runs the simulator-speed benchmarks.

JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
BUILD     ?= build
ASAN      ?= build-asan
FUZZ      ?= build-fuzz
FUZZ_SECONDS ?= 25
WERROR    := $(if $(CI),ON,OFF)

.PHONY: all deps build run test test-plain test-asan test-fuzz bench docs viz-images chart-images format clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DWS_WERROR=$(WERROR)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/warpscope run

test: test-plain test-asan test-fuzz

test-plain: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DWS_SANITIZE=ON -DWS_WERROR=$(WERROR)
	cmake --build $(ASAN) -j $(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --output-on-failure -j $(JOBS)

test-fuzz: build
	CC=clang cmake -S . -B $(FUZZ) -DCMAKE_BUILD_TYPE=Debug -DWS_SANITIZE=ON -DWS_FUZZ=ON -DWS_TESTS=OFF -DWS_WERROR=$(WERROR)
	cmake --build $(FUZZ) -j $(JOBS) --target fuzz_asm fuzz_objfile fuzz_safetensors fuzz_ini
	mkdir -p $(FUZZ)/corpus
	cp models/runs/examples/*.wsa tests/isa/data/*.wsa $(FUZZ)/corpus/ 2>/dev/null || true
	./$(FUZZ)/fuzz_asm -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 $(FUZZ)/corpus \
	  2> $(FUZZ)/fuzz_asm.log || { tail -n 60 $(FUZZ)/fuzz_asm.log; exit 1; }
	@echo "fuzz_asm: $(FUZZ_SECONDS) s without a finding"
	mkdir -p $(FUZZ)/corpus-obj
	for f in models/runs/examples/*.wsa; do ./$(BUILD)/warpscope asm $$f -o $(FUZZ)/corpus-obj/$$(basename $$f .wsa).wso; done
	./$(FUZZ)/fuzz_objfile -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 $(FUZZ)/corpus-obj \
	  2> $(FUZZ)/fuzz_objfile.log || { tail -n 60 $(FUZZ)/fuzz_objfile.log; exit 1; }
	@echo "fuzz_objfile: $(FUZZ_SECONDS) s without a finding"
	mkdir -p $(FUZZ)/corpus-st
	cp tests/data/*.safetensors $(FUZZ)/corpus-st/
	./$(FUZZ)/fuzz_safetensors -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 $(FUZZ)/corpus-st \
	  2> $(FUZZ)/fuzz_safetensors.log || { tail -n 60 $(FUZZ)/fuzz_safetensors.log; exit 1; }
	@echo "fuzz_safetensors: $(FUZZ_SECONDS) s without a finding"
	mkdir -p $(FUZZ)/corpus-ini
	cp sim/presets/*.ini $(FUZZ)/corpus-ini/
	./$(FUZZ)/fuzz_ini -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 $(FUZZ)/corpus-ini \
	  2> $(FUZZ)/fuzz_ini.log || { tail -n 60 $(FUZZ)/fuzz_ini.log; exit 1; }
	@echo "fuzz_ini: $(FUZZ_SECONDS) s without a finding"
	cmake --build $(FUZZ) -j $(JOBS) --target fuzz_wst
	mkdir -p $(FUZZ)/corpus-wst
	printf 'launch\tlevel\tsm\twarp\tlanes\tpc\tfirst\tspent\tkernel\tcomponent\n0\t3\t1\t2\t7\t5\t100\t20\tgemm\tslice 3 set 9 (hit)\n' \
	  > $(FUZZ)/corpus-wst/journey.tsv
	cd $(BUILD) && WS_WST_CORPUS=$(abspath $(FUZZ))/corpus-wst ./test_wst --filter 'wst/small_traces_seed_the_fuzzer' >/dev/null
	./$(FUZZ)/fuzz_wst -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -malloc_limit_mb=256 $(FUZZ)/corpus-wst \
	  2> $(FUZZ)/fuzz_wst.log || { tail -n 60 $(FUZZ)/fuzz_wst.log; exit 1; }
	@echo "fuzz_wst: $(FUZZ_SECONDS) s without a finding"
	cmake --build $(FUZZ) -j $(JOBS) --target fuzz_image
	mkdir -p $(FUZZ)/corpus-img
	cp tests/data/image_* tests/data/fuzz_image/* $(FUZZ)/corpus-img/
	./$(FUZZ)/fuzz_image -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -malloc_limit_mb=128 $(FUZZ)/corpus-img \
	  2> $(FUZZ)/fuzz_image.log || { tail -n 60 $(FUZZ)/fuzz_image.log; exit 1; }
	@echo "fuzz_image: $(FUZZ_SECONDS) s without a finding"
	cmake --build $(FUZZ) -j $(JOBS) --target fuzz_csv
	mkdir -p $(FUZZ)/corpus-csv
	cp tests/plot/data/*.csv tests/data/fuzz_csv/*.csv $(FUZZ)/corpus-csv/
	./$(BUILD)/warpscope sweep gemm --gpu classroom --size 64 --variant naive,smem --restart -q -o $(FUZZ)/corpus-csv/sweep.csv
	./$(FUZZ)/fuzz_csv -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -malloc_limit_mb=256 $(FUZZ)/corpus-csv \
	  2> $(FUZZ)/fuzz_csv.log || { tail -n 60 $(FUZZ)/fuzz_csv.log; exit 1; }
	@echo "fuzz_csv: $(FUZZ_SECONDS) s without a finding"
	cmake --build $(FUZZ) -j $(JOBS) --target fuzz_ptx
	mkdir -p $(FUZZ)/corpus-ptx
	cp tests/ptx/data/*.ptx tests/ptx/cuda/*.ptx $(FUZZ)/corpus-ptx/
	./$(FUZZ)/fuzz_ptx -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -malloc_limit_mb=256 $(FUZZ)/corpus-ptx \
	  2> $(FUZZ)/fuzz_ptx.log || { tail -n 60 $(FUZZ)/fuzz_ptx.log; exit 1; }
	@echo "fuzz_ptx: $(FUZZ_SECONDS) s without a finding"

bench: build
	./$(BUILD)/bench_sim functional
	./$(BUILD)/bench_sim timing
	for t in $$(seq 1 $$(nproc)); do ./$(BUILD)/bench_sim timing sgemm-ffma - $$t; done
	./$(BUILD)/bench_vit a100 1
	./$(BUILD)/bench_vit a100 8
	./$(BUILD)/bench_viz h100 600
	./$(BUILD)/bench_sample a100 blocktile2d 1024 1024 1024
	./$(BUILD)/bench_ptx .

docs: build
	./$(BUILD)/ws-docgen --update
	bash tests/layering/check.sh . --update

# the pictures of docs/viz.md, drawn by warpscope viz (the viz_images test checks them)
viz-images: build
	bash scripts/viz-images.sh ./$(BUILD)/warpscope docs/img

# the charts of docs/explore.md, drawn by warpscope with cairo (the chart_images test checks them)
chart-images: build
	bash scripts/chart-images.sh ./$(BUILD)/warpscope docs/img

# formats every C file as .clang-format says (make test checks it)
format: deps
	bash tests/format/check.sh . --fix

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ)
