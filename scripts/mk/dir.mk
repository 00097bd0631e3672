# The directory controller's Verilated models and its own test binary. Included by the Makefile.
#
# dir_ctrl        default sizes (16 transactions, 256 x 4 directory cache entries, 4 credits/class)
# dir_ctrl_small  4 transactions, a 2 x 1 directory cache, 2 reads in flight (the walk 1), 2 credits per class:
#                 the table fills and the cache evicts at once
# Both are linked into the test binary (tb/test_dir_ctrl.c through tb/sb/dir_models.c).
# `make test-dir` builds and runs only the directory's tests (build/bin/dir_tests), without
# building the fabric and switch models the whole suite needs.

$(eval $(call vmodel,dir_ctrl,dir_ctrl,,test))
$(eval $(call vmodel,dir_ctrl_small,dir_ctrl,-GTxnEntries=4 -GDcSets=2 -GDcWays=1 -GMemReads=2 -GCrdPerCls=2 -GWalkReads=1,test))
TB_MODELS += dir_ctrl dir_ctrl_small

DIR_TB_SRCS := $(sort $(wildcard tb/test_dir_*.c tb/ref/dir_*.c tb/sb/dir_*.c tb/sb/coh_*.c)) tb/harness/tb_seed.c \
               tb/harness/tb_child.c
DIR_TB_OBJS := $(patsubst %.c,$(OBJ)/dirtb/%.o,$(DIR_TB_SRCS))
$(OBJ)/dirtb/%.o: %.c $(GEN)/msg_defs.h $(VMODEL_HDR_dir_ctrl) $(VMODEL_HDR_dir_ctrl_small) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

$(BIN)/dir_tests: $(DIR_TB_OBJS) $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_none.o $(VMODEL_OBJS_dir_ctrl) \
                  $(VMODEL_OBJS_dir_ctrl_small) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(shell pkg-config --libs criterion) $(LDLIBS_SIM)

.PHONY: test-dir
test-dir: $(BIN)/dir_tests ## build and run only the directory controller's tests (TEST_ARGS= for Criterion options)
	$(BIN)/dir_tests --jobs $(JOBS) $(TEST_ARGS)

# coh_regress_rtl: the random coherence tester (tb/main/coh_regress.c, built with -DCOH_REGRESS_RTL)
# on the Verilated directory controller; `make regress` runs it over fewer seeds than the model's.
$(OBJ)/dirtb/tb/main/coh_regress_rtl.o: tb/main/coh_regress.c $(GEN)/msg_defs.h $(VMODEL_HDR_dir_ctrl) \
                                        $(VMODEL_HDR_dir_ctrl_small) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -DCOH_REGRESS_RTL -MMD -MP -c $< -o $@

$(BIN)/coh_regress_rtl: $(OBJ)/dirtb/tb/main/coh_regress_rtl.o $(OBJ)/dirtb/tb/sb/coh_home_rtl.o \
                        $(OBJ)/dirtb/tb/sb/coh_home_ref.o $(OBJ)/dirtb/tb/sb/coh_tester.o \
                        $(OBJ)/dirtb/tb/sb/dir_models.o $(OBJ)/dirtb/tb/ref/dir_ctrl_ref.o $(CSIM_OBJS) \
                        $(OBJ)/gen/fabric_reg_none.o $(VMODEL_OBJS_dir_ctrl) $(VMODEL_OBJS_dir_ctrl_small) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

regress: $(BIN)/coh_regress_rtl

# make waves-dir: trace the directory's read-for-ownership scenario (csim/dir_scn.c: three CNs share
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
