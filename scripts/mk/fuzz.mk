# make fuzz: the libFuzzer harnesses of tb/fuzz/ (fuzz_<parser>.c), each built with clang
# -fsanitize=fuzzer,address,undefined against the C sources it exercises, run by scripts/fuzz.py for
# FUZZ_SECONDS each (default 60) from its committed seed corpus tb/fuzz/corpus/<harness>/; what a
# run adds to the corpus goes to build/fuzz/corpus/<harness>/, crashes to build/fuzz/artifacts/.
# Only this target needs clang: it installs it first (scripts/setup.sh --fuzz). Included by the
# Makefile.
#   FUZZ_SECONDS=N  seconds per harness (default 60)
#   FUZZ_RUNS=N     N inputs per harness instead of a time: with the fixed seed, the same inputs,
#                   coverage and features on every machine
#   FUZZ_SEED=N     libFuzzer's seed (default 1)
#   FUZZ_KEEP=1     start from the corpus earlier runs grew in build/fuzz/corpus/ (default: from the
#                   committed seeds only, so that a run's numbers reproduce)
#   FUZZ=NAMES      only these harnesses (e.g. FUZZ="fuzz_ini fuzz_set")
FUZZ_DIR   := $(B)/fuzz
FUZZ_SETUP := $(B)/.setup-fuzz-done
FUZZ_CC    := clang
FUZZ_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -O1 -fno-omit-frame-pointer \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I$(GEN) -Icsim
FUZZ_ALL   := $(sort $(basename $(notdir $(wildcard tb/fuzz/fuzz_*.c))))
FUZZ       ?= $(FUZZ_ALL)
# The sources each harness exercises (instrumented with it, so that its coverage counts them).
FUZZ_SRCS_fuzz_ini  := csim/base/config.c
FUZZ_SRCS_fuzz_set  := csim/base/config.c
FUZZ_SRCS_fuzz_fail := csim/base/cli.c csim/base/config.c
FUZZ_SRCS_fuzz_msg  := $(GEN)/msg_defs.c

$(FUZZ_SETUP): scripts/setup.sh | $(SETUP)
	@bash scripts/setup.sh --fuzz
	@mkdir -p $(@D) && touch $@

$(FUZZ_DIR)/bin/%: tb/fuzz/%.c tb/fuzz/fuzz_check.h $$(FUZZ_SRCS_$$*) $(wildcard csim/base/*.h) $(GEN_HDRS) | $(FUZZ_SETUP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(CFLAGS_INIH) -o $@ $< $(FUZZ_SRCS_$*) $(LDLIBS_SIM)

# The same harness with clang's source-based coverage instead of the sanitizers: scripts/fuzz.py
# runs it once over the corpus a run ended with, and llvm-cov reports the lines and branches of the
# parser's functions it reached.
FUZZ_COV_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(FUZZ_CFLAGS)) -fsanitize=fuzzer \
                   -fprofile-instr-generate -fcoverage-mapping
$(FUZZ_DIR)/cov/%: tb/fuzz/%.c tb/fuzz/fuzz_check.h $$(FUZZ_SRCS_$$*) $(wildcard csim/base/*.h) $(GEN_HDRS) | $(FUZZ_SETUP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_COV_CFLAGS) $(CFLAGS_INIH) -o $@ $< $(FUZZ_SRCS_$*) $(LDLIBS_SIM)

.PHONY: fuzz
fuzz: $$(addprefix $(FUZZ_DIR)/bin/,$$(FUZZ)) $$(addprefix $(FUZZ_DIR)/cov/,$$(FUZZ)) ## fuzz the INI, --set and --fail parsers and the message decoder with libFuzzer (clang), FUZZ_SECONDS=60 each: executions, coverage, crashes with their replay command; build/results/fuzz/summary.json
	$(PY) scripts/fuzz.py --bin $(FUZZ_DIR)/bin --cov-bin $(FUZZ_DIR)/cov --work $(FUZZ_DIR) --out $(B)/results/fuzz \
	  --seconds $(or $(FUZZ_SECONDS),60) --seed $(or $(FUZZ_SEED),1) $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS)) \
	  $(if $(FUZZ_KEEP),--keep) $(FUZZ)
