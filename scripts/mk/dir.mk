# The directory controller's Verilated models and its own test binary. Included by the Makefile.
#
# dir_ctrl        default sizes (16 transactions, 256 x 4 directory cache entries, 4 credits/class),
#                 the system's DIR_SYS_PARAMS below
# dir_ctrl_small  4 transactions, a 2 x 1 directory cache, 2 reads in flight (the walk 1), 2 credits per class:
#                 the table fills and the cache evicts at once
# dir_ctrl_synth  dir_ctrl with SYNTHESIS defined: the form Yosys synthesizes (its FIFOs and RAMs as
#                 ram_1r1w macros, no stall skipping), which the dir_ctrl_synth tests run
# All three are linked into the test binary (tb/test_dir_ctrl.c through tb/sb/dir_models.c).
# `make test-dir` builds and runs only the directory's tests (build/bin/dir_tests), without
# building the fabric and switch models the whole suite needs.

# The system's directories (DIR_SYS_PARAMS; synthesis keeps the block's own defaults, 64 and 4):
# - up to FABRIC_MAX_CREDITS (csim/drv/fabric.h) send credits per class from their switch port (the
#   links' default credits are their bandwidth-delay product, 74 with paper.ini);
# - a recovery walk reading up to 16 directory lines ahead of its scan (the paper's sequential
#   prefetching of TravDir): 16 lines per 45 ns DRAM round trip, about 3 ns a line (the scan
#   alone would take a line a cycle).
DIR_SYS_PARAMS := -GMaxTxCredits=128 -GWalkReads=16
$(eval $(call vmodel,dir_ctrl,dir_ctrl,$(DIR_SYS_PARAMS),test))
$(eval $(call vmodel,dir_ctrl_small,dir_ctrl,-GTxnEntries=4 -GDcSets=2 -GDcWays=1 -GMemReads=2 -GCrdPerCls=2 -GWalkReads=1,test))
$(eval $(call vmodel,dir_ctrl_synth,dir_ctrl,$(DIR_SYS_PARAMS) +define+SYNTHESIS,test))
TB_MODELS += dir_ctrl dir_ctrl_small dir_ctrl_synth

DIR_TB_SRCS := $(sort $(wildcard tb/test_dir_*.c tb/ref/dir_*.c tb/sb/dir_*.c tb/sb/coh_*.c)) tb/harness/tb_seed.c \
               tb/harness/tb_child.c
DIR_TB_OBJS := $(patsubst %.c,$(OBJ)/dirtb/%.o,$(DIR_TB_SRCS))
$(OBJ)/dirtb/%.o: %.c $(GEN_HDRS) $(VMODEL_HDR_dir_ctrl) $(VMODEL_HDR_dir_ctrl_small) $(VMODEL_HDR_dir_ctrl_synth) \
                   $(VMODEL_HDR_dir_cache_tb) $(VMODEL_HDR_dir_cache_tb_synth) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

$(BIN)/dir_tests: $(DIR_TB_OBJS) $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_none.o $(VMODEL_OBJS_dir_ctrl) \
                  $(VMODEL_OBJS_dir_ctrl_small) $(VMODEL_OBJS_dir_ctrl_synth) $(VMODEL_OBJS_dir_cache_tb) \
                  $(VMODEL_OBJS_dir_cache_tb_synth) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(shell pkg-config --libs criterion) $(LDLIBS_SIM)

.PHONY: test-dir
test-dir: $(BIN)/dir_tests ## build and run only the directory controller's tests (TEST_ARGS= for Criterion options)
	$(BIN)/dir_tests --jobs $(JOBS) $(TEST_ARGS)

# coh_regress_rtl: the random coherence tester (tb/main/coh_regress.c, built with -DCOH_REGRESS_RTL)
# on the Verilated directory controller; `make regress` runs it over fewer seeds than the model's.
$(OBJ)/dirtb/tb/main/coh_regress_rtl.o: tb/main/coh_regress.c $(GEN_HDRS) $(VMODEL_HDR_dir_ctrl) \
                                        $(VMODEL_HDR_dir_ctrl_small) $(VMODEL_HDR_dir_ctrl_synth) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -DCOH_REGRESS_RTL -MMD -MP -c $< -o $@

$(BIN)/coh_regress_rtl: $(OBJ)/dirtb/tb/main/coh_regress_rtl.o $(OBJ)/dirtb/tb/sb/coh_home_rtl.o \
                        $(OBJ)/dirtb/tb/sb/coh_home_ref.o $(OBJ)/dirtb/tb/sb/coh_tester.o \
                        $(OBJ)/dirtb/tb/sb/dir_models.o $(OBJ)/dirtb/tb/ref/dir_ctrl_ref.o $(CSIM_OBJS) \
                        $(OBJ)/gen/fabric_reg_none.o $(VMODEL_OBJS_dir_ctrl) $(VMODEL_OBJS_dir_ctrl_small) \
                        $(VMODEL_OBJS_dir_ctrl_synth) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

regress: $(BIN)/coh_regress_rtl

# make waves-dir: trace the directory's read-for-ownership scenario (csim/gen/dir_scn.c: three CNs share
# a line, a fourth reads it for ownership; csim/main/dir_waves.c, the dir_ctrl model above) and
# render waves/dir_ctrl.gtkw over the read for ownership's window (about 36 cycles, 2560 pixels wide so
# that one-cycle messages keep their names) to build/waves/dir.png. The test
# dir_ctrl/rdx_scenario_of_the_waves_view checks the scenario's messages.
$(OBJ)/csim/main/dir_waves.o: $(VMODEL_HDR_dir_ctrl)
$(BIN)/dir_waves: $(OBJ)/csim/main/dir_waves.o $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_none.o $(VMODEL_OBJS_dir_ctrl) \
                  $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

.PHONY: waves-dir
waves-dir: $(BIN)/dir_waves ## trace a read for ownership of a line three CNs share (BISNP_INV, BIRSP_I, DATA_E); render it to build/waves/dir.png
	@mkdir -p $(B)/waves
	$(BIN)/dir_waves --trace $(B)/waves/dir.fst --window $(B)/waves/dir.window
	bash scripts/waves.sh png $(B)/waves/dir.fst $$(cat $(B)/waves/dir.window) --size 2560x1300 $(WAVES_ARGS)

# The directory model of the system (csim/mn/mn_node, one per MN port): `dir_ops_sys`, declared in
# csim/mn/mn_node.h, a dir_model_ops_t that DIR_MODEL_OPS (csim/drv/dir_drv.h) builds for one Verilated
# dir_ctrl. csim objects are built without model headers and take the model as a parameter
# (mn_node_create's ops), so only a program's link line chooses it, as fabric_models[] does for
# the fabric:
#   $(DIR_SYS_OBJS)       dir_ctrl, test flavour (assertions on): diktamo_sim and the test binary
#   $(DIR_SYS_OBJS_fast)  dir_ctrl_fast, fast flavour: diktamo_bench
# Both have dir_ctrl.sv's default sizes (16 transactions, 256 x 4 directory cache entries, 4
# credits per class on the receive side) and DIR_SYS_PARAMS' WalkReads, which the generated table
# states.
$(eval $(call vmodel,dir_ctrl_fast,dir_ctrl,$(DIR_SYS_PARAMS),fast))
ALL_MODELS += dir_ctrl_fast
# $(call dir_sys_ops,MODEL)
define dir_sys_ops
$(GEN)/dir_ops_sys_$(1).c: scripts/mk/dir.mk
	@mkdir -p $$(@D)
	@{ echo '/* Generated by scripts/mk/dir.mk: the directory model the system links ($(1)). */'; \
	   echo '#include <string.h>'; \
	   echo '#include "mn/mn_node.h"'; \
	   echo '#include "vw_$(1).h"'; \
	   echo 'DIR_MODEL_OPS(dir_ops_sys, $(1), 16, 256, 4, 4, 16);'; } > $$@
$(OBJ)/gen/dir_ops_sys_$(1).o: $(GEN)/dir_ops_sys_$(1).c $(VMODEL_HDR_$(1)) $(GEN_HDRS) csim/drv/dir_drv.h \
                               csim/mn/mn_node.h | $(SETUP)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $$< -o $$@
endef
$(eval $(call dir_sys_ops,dir_ctrl))
$(eval $(call dir_sys_ops,dir_ctrl_fast))
DIR_SYS_OBJS      := $(OBJ)/gen/dir_ops_sys_dir_ctrl.o $(VMODEL_OBJS_dir_ctrl)
DIR_SYS_OBJS_fast := $(OBJ)/gen/dir_ops_sys_dir_ctrl_fast.o $(VMODEL_OBJS_dir_ctrl_fast)
# The test binary has it too (tb/test_mn_node.c puts it on the fabric).
TB_BIN_DEPS += $(DIR_SYS_OBJS)
