# The directory controller's reference model (tb/ref/dir_ctrl_ref.c) and the random coherence
# tester (tb/sb/coh_tester.c, tb/sb/coh_home_ref.c). Included by the Makefile.
#
# Their tests (tb/test_dir_ctrl_ref.c) are in the whole suite's binary through the TB_SRCS wildcard.
# `make test-dirref` builds and runs them alone (build/bin/dirref_tests): plain C, no Verilated
# model, so it builds in seconds. build/bin/coh_regress runs the random tester over many seeds of
# every preset configuration; `make regress` runs it (scripts/regress.py), `make coh-regress` alone.

DIRREF_LIB_SRCS := tb/ref/dir_ctrl_ref.c tb/sb/coh_tester.c tb/sb/coh_home_ref.c
DIRREF_TB_SRCS  := tb/test_dir_ctrl_ref.c tb/harness/tb_seed.c $(DIRREF_LIB_SRCS)
DIRREF_LIB_OBJS := $(patsubst %.c,$(OBJ)/dirref/%.o,$(DIRREF_LIB_SRCS))
DIRREF_TB_OBJS  := $(patsubst %.c,$(OBJ)/dirref/%.o,$(DIRREF_TB_SRCS))
DIRREF_C_DEPS   := $(OBJ)/csim/base/rng.o $(OBJ)/csim/drv/dir_defs.o $(OBJ)/gen/msg_defs.o

$(OBJ)/dirref/%.o: %.c $(GEN_HDRS) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

$(BIN)/dirref_tests: $(DIRREF_TB_OBJS) $(DIRREF_C_DEPS)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(shell pkg-config --libs criterion) -lm

$(BIN)/coh_regress: $(OBJ)/dirref/tb/main/coh_regress.o $(DIRREF_LIB_OBJS) $(DIRREF_C_DEPS)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ -lm

.PHONY: test-dirref
test-dirref: $(BIN)/dirref_tests ## build and run only the directory reference model's tests (TEST_ARGS= for Criterion options)
	$(BIN)/dirref_tests --jobs $(JOBS) $(TEST_ARGS)

.PHONY: coh-regress
coh-regress: $(BIN)/coh_regress ## random coherence tester on the reference directory, every preset (SEEDS=500 each)
	$(BIN)/coh_regress --seeds $(or $(SEEDS),500) --first 1000

regress: $(BIN)/coh_regress
