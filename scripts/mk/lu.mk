# The Logging Unit's Verilated models and its own test binary. Included by the Makefile.
#
# logging_unit        the paper's sizes (256 word entries = 4 KB, 64 REPL slots, 4 credits/class)
# logging_unit_small  16 entries, 4 slots, 2 credits per class: the buffer fills at once
# Both are linked into the test binary (tb/test_logging_unit.c through tb/sb/lu_models.c).
# `make test-lu` builds and runs only the LU's tests and the MN log store's (tb/test_mn_log.c,
# which drives the LU too) in build/bin/lu_tests, without building the fabric and switch models
# the whole suite needs.

$(eval $(call vmodel,logging_unit,logging_unit,,test))
$(eval $(call vmodel,logging_unit_small,logging_unit,-GEntries=16 -GSlots=4 -GCrdPerCls=2,test))
TB_MODELS += logging_unit logging_unit_small

LU_TB_SRCS := tb/test_logging_unit.c tb/test_mn_log.c tb/ref/logging_unit_ref.c tb/sb/lu_models.c \
              tb/sb/mn_lu.c tb/harness/tb_seed.c tb/harness/tb_child.c
LU_TB_OBJS := $(patsubst %.c,$(OBJ)/lutb/%.o,$(LU_TB_SRCS))
$(OBJ)/lutb/%.o: %.c $(GEN)/msg_defs.h $(VMODEL_HDR_logging_unit) $(VMODEL_HDR_logging_unit_small) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

$(BIN)/lu_tests: $(LU_TB_OBJS) $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_none.o $(VMODEL_OBJS_logging_unit) \
                 $(VMODEL_OBJS_logging_unit_small) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(shell pkg-config --libs criterion) $(LDLIBS_SIM)

.PHONY: test-lu
test-lu: $(BIN)/lu_tests ## build and run only the Logging Unit's tests (TEST_ARGS= for Criterion options)
	$(BIN)/lu_tests --jobs $(JOBS) $(TEST_ARGS)

# The LU benchmark (csim/main/lu_bench.c): the fast flavour of the paper-size LU. `make bench` runs
# it (lu-bench is a prerequisite of bench), writing build/bench/lu.{csv,json}.
$(eval $(call vmodel,logging_unit_fast,logging_unit,,fast))
ALL_MODELS += logging_unit_fast
$(OBJ)/csim/main/lu_bench.o: $(VMODEL_HDR_logging_unit_fast)
$(BIN)/lu_bench: $(OBJ)/csim/main/lu_bench.o $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_none.o \
                 $(VMODEL_OBJS_logging_unit_fast) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

.PHONY: lu-bench
lu-bench: $(BIN)/lu_bench ## the Logging Unit benchmark alone (make bench runs it too)
	$(BIN)/lu_bench --out $(B)/bench
bench: lu-bench

# make waves-lu: trace the LU's scenario (lu_bench --trace) and render waves/logging_unit.gtkw
# (REPL -> REPL_ACK -> VAL -> drain) to build/waves/lu.png.
.PHONY: waves-lu
waves-lu: $(BIN)/lu_bench ## trace a REPL -> REPL_ACK -> VAL -> drain scenario of the LU; render it to build/waves/lu.png
	@mkdir -p $(B)/waves
	$(BIN)/lu_bench --trace $(B)/waves/lu.fst
	bash scripts/waves.sh png $(B)/waves/lu.fst --full $(WAVES_ARGS)
