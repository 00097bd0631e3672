# DIKTAMO reference implementation: one build for RTL, C co-simulation, tests, synthesis and waves.
# `make help` lists the targets. Every generated file goes under build/.

SHELL := /bin/bash
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

B      := build
GEN    := $(B)/gen
OBJ    := $(B)/obj
BIN    := $(B)/bin
SETUP  := $(B)/.setup-done
PY     := python3
JOBS   ?= $(shell nproc)
# Compilers: the system's (GCC on Debian); make CC=clang CXX=clang++ builds with Clang (the package
# clang; -latomic below is for it). Measured here, Clang did not pay enough to be the default: the
# simulator in 0.90 to 1.03 of GCC's user time, but the test build slower (docs/architecture.md
# section 4).
# GCC's profile-guided optimization flags, added to every compile and link (the Verilated models',
# the C models', the Verilator runtime's); set only by scripts/pgo.sh (make pgo, make bench), in a
# build tree of its own (B=build/pgo).
PGO    :=

# Build in parallel by default (one job per core) unless -j was given, or this make is a sub-make
# of a parallel one (scripts/run_sim.sh from `make run`: it then shares the parent's job slots; at
# parse time MAKEFLAGS does not show the parent's jobserver yet, the environment does).
ifeq ($(filter -j% --jobserver%,$(MAKEFLAGS) $(shell echo "$$MAKEFLAGS")),)
  MAKEFLAGS += -j$(JOBS)
endif

# SAN=1: AddressSanitizer and UndefinedBehaviorSanitizer on the C models, the C++ wrappers and the
# tests (make test-asan; make test runs the simulator built so once), in build/asan/{obj,bin}. The
# Verilated models' archives are the plain build's, shared: generated code, whose memory the
# sanitizers' runtime watches all the same.
SAN ?=
ifeq ($(SAN),1)
  OBJ := $(B)/asan/obj
  BIN := $(B)/asan/bin
  SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

CONFIG ?= sim_configs/run.ini
SEED   ?= 1
ARGS   ?=

.SECONDEXPANSION:

# ---------------------------------------------------------------------------------------------
# Set-up: install what is missing (Debian packages), once per checkout. It runs while the Makefile
# is read, before anything below asks verilator or pkg-config for paths and flags; `make help` and
# `make clean` never install anything.
ifneq ($(filter-out help clean,$(or $(MAKECMDGOALS),help)),)
  ifneq ($(shell test $(SETUP) -nt scripts/setup.sh && echo ok),ok)
    ifneq ($(shell bash scripts/setup.sh >&2 && mkdir -p $(B) && touch $(SETUP) && echo ok),ok)
      $(error scripts/setup.sh failed: the packages above could not be installed)
    endif
  endif
endif

$(SETUP): scripts/setup.sh
	@bash scripts/setup.sh
	@mkdir -p $(B) && touch $@

.PHONY: setup
setup: $(SETUP) ## install the Debian packages the build uses (only those missing)

# ---------------------------------------------------------------------------------------------
# The message definition: one file, generated into RTL and C.
MSG_DEF := rtl/include/messages.toml
# The generator rewrites a file only when its content changes, so that nothing downstream rebuilds
# for nothing; it may therefore run again when an input is newer than an unchanged output (cheap).
$(GEN)/msg_pkg.sv $(GEN)/msg_defs.h $(GEN)/msg_defs.c docs/messages.md &: $(MSG_DEF) scripts/gen_msg.py scripts/genutil.py | $(SETUP)
	@mkdir -p $(GEN)
	$(PY) scripts/gen_msg.py $(MSG_DEF) $(GEN) docs/messages.md

# The CSR maps (switch, Logging Unit, directory) and the directory's encodings, the same way.
CSR_DEF := rtl/include/csrs.toml
$(GEN)/csr_pkg.sv $(GEN)/csr_defs.h docs/csrs.md &: $(CSR_DEF) scripts/gen_csr.py scripts/genutil.py | $(SETUP)
	@mkdir -p $(GEN)
	$(PY) scripts/gen_csr.py $(CSR_DEF) $(GEN) docs/csrs.md
# What every C object may include of them.
GEN_HDRS := $(GEN)/msg_defs.h $(GEN)/csr_defs.h

# ---------------------------------------------------------------------------------------------
# RTL sources: packages first, then the modules. A Verilated model reads the file list of its top
# (FLIST_<top>: the files it instantiates, transitively, which scripts/gen_flist.py writes into
# build/gen/flist.mk and build/gen/flist/<top>.f) and depends on those files only, so touching a
# block rebuilds only the models that contain it. Lint and synthesis read every file.
RTL_PKGS := $(GEN)/msg_pkg.sv $(GEN)/csr_pkg.sv
RTL_SRCS := $(sort $(wildcard rtl/*.sv rtl/*/*.sv))
RTL_INCS := $(wildcard rtl/include/*.svh)
TB_HDL   := $(sort $(wildcard tb/hdl/*.sv))
VLT      := rtl/lint.vlt
FLIST_MK := $(GEN)/flist.mk

$(FLIST_MK): $(RTL_SRCS) $(TB_HDL) scripts/gen_flist.py scripts/genutil.py
	@mkdir -p $(@D)
	$(PY) scripts/gen_flist.py $@ $(GEN)/flist $(RTL_SRCS) $(TB_HDL)
ifneq ($(filter-out help clean,$(or $(MAKECMDGOALS),help)),)
  -include $(FLIST_MK)
endif

VERILATOR := verilator
VL_COMMON := --cc -Wall -Irtl/include $(VLT)
# Test flavour: assertions on, X values randomized (seeded per model instance).
VL_test   := -O3 --assert --x-assign unique --x-initial unique
# Fast flavour: for benchmarks; no assertions and no tracing (a traced run uses a test-flavour model).
VL_fast   := -O3 --x-assign fast --x-initial fast
# The C++ optimization of a model's generated code where a flavour sets one (else -O2; kept in the
# model's options file, so a change rebuilds it): -O3 makes the fast flavour's co-simulation about
# 10 % faster (docs/architecture.md section 13) for a longer compile.
VL_CXX_OPT_fast := -O3
# FST tracing, in the test-flavour models a user traces: every fabric shape (diktamo_sim --trace),
# the directory (make waves-dir) and the Logging Unit (lu_bench --trace) at their system sizes. The
# others (test harnesses, the switch on its own, the small parameter sets, the synthesis form) build
# faster without it.
VL_TRACE  := --trace-fst --trace-structs
vl_traced  = $(or $(filter fabric_top_%,$(filter-out %_synth %_fast,$(1))),$(filter dir_ctrl logging_unit,$(1)))
VL_INC    := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)/include
VL_DEFS   := -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0
VL_CXXFLAGS := -std=gnu++17 -O2 $(PGO) $(SAN_FLAGS) -I$(VL_INC) -I$(VL_INC)/vltstd $(VL_DEFS) -Wno-unused-parameter
VL_RT_OBJS  := $(OBJ)/vlrt/verilated.o $(OBJ)/vlrt/verilated_fst_c.o $(OBJ)/vlrt/verilated_threads.o

# Verilator's runtime is not instrumented under SAN=1: not the project's code (its FST writer stores
# to unaligned addresses on purpose).
$(OBJ)/vlrt/%.o: $(VL_INC)/%.cpp | $(SETUP)
	@mkdir -p $(@D)
	$(CXX) $(filter-out $(SAN_FLAGS),$(VL_CXXFLAGS)) -c $< -o $@

# verilated.h, precompiled: every file Verilator writes starts with it, and parsing it is most of a
# small file's compile (1.2 of 1.3 s here; a clean build compiles about 600 such files). One header
# per tracing setting (VM_TRACE is part of it), built with the flags of Verilator's own makefile,
# and -include'd first into every model's compile; -Winvalid-pch says so if GCC cannot use it (it
# then reads verilated.h as usual; Clang stops instead, so each compiler has its own).
VL_PCH_DIR   := $(abspath $(B))/vlpch/$(notdir $(CXX))
VL_PCH_t1    := -DVM_TRACE=1 -DVM_TRACE_FST=1
VL_PCH_t0    := -DVM_TRACE=0 -DVM_TRACE_FST=0
VL_MK_CFLAGS  = $(shell sed -n 's/^CFG_CXXFLAGS_NO_UNUSED *= *//p' $(VL_INC)/verilated.mk)
vl_pch        = $(VL_PCH_DIR)/$(if $(call vl_traced,$(1)),t1,t0)/vlpch.h
$(VL_PCH_DIR)/%/vlpch.h.gch: $(VL_INC)/verilated.h $(VL_INC)/verilated.mk | $(SETUP)
	@mkdir -p $(@D)
	echo '#include "verilated.h"' > $(@D)/vlpch.h
	$(CXX) -I$(VL_INC) -I$(VL_INC)/vltstd -DVM_COVERAGE=0 -DVM_SC=0 $(VL_PCH_$*) -DVM_TRACE_VCD=0 \
	  $(VL_MK_CFLAGS) -O2 -x c++-header $(@D)/vlpch.h -o $@

# $(call vmodel,MODEL,TOP,EXTRA_VERILATOR_ARGS,FLAVOUR): Verilate TOP as model MODEL (class VMODEL)
# from TOP's file list, build its archive and its generated C wrapper build/gen/vw/vw_MODEL.{h,cpp}.
# Defines VMODEL_OBJS_MODEL (what to link) and VMODEL_HDR_MODEL (the C header).
# The archive is remade whole (removed, then archived by Verilator's makefile) and marked done by
# V<MODEL>__ALL.ok once that succeeded: a build killed while it archived leaves no .ok, so the
# next make archives again instead of linking the partial archive it left.
# The model's Verilator options are kept in build/vl/MODEL/options, rewritten only when they change
# (its compiled objects deleted then: Verilator skips a run whose inputs are identical, and the
# generated makefile does not see a change of C++ flags), so that a change of flavour, tracing,
# parameters, compiler or C++ optimization rebuilds the model.
define vmodel
VL_OPTS_$(1) := $(VL_COMMON) $(VL_$(4)) $(if $(call vl_traced,$(1)),$(VL_TRACE)) --prefix V$(1) --top-module $(2) $(3)
VL_CXX_OPT_$(1) := $(or $(VL_CXX_OPT_$(4)),-O2)
VL_OPTS_FILE_$(1) := $$(VL_OPTS_$(1)) $(CXX)$(if $(VL_CXX_OPT_$(4)), c++ $(VL_CXX_OPT_$(4)))
$(B)/vl/$(1)/options: vl-options-force
	@mkdir -p $$(@D); echo '$$(VL_OPTS_FILE_$(1))' | cmp -s - $$@ || \
	  { rm -f $$(@D)/*.o $$(@D)/*.a; echo '$$(VL_OPTS_FILE_$(1))' > $$@; }
$(B)/vl/$(1)/V$(1).h: $(RTL_PKGS) $(FLIST_$(2)) $(RTL_INCS) $(VLT) $(B)/vl/$(1)/options | $(SETUP)
	@mkdir -p $(B)/vl/$(1)
	$(VERILATOR) $$(VL_OPTS_$(1)) -Mdir $(B)/vl/$(1) \
	  $(RTL_PKGS) $(FLIST_$(2)) > $(B)/vl/$(1)/verilator.log 2>&1 || { cat $(B)/vl/$(1)/verilator.log; exit 1; }
$(B)/vl/$(1)/V$(1)__ALL.a: $(B)/vl/$(1)/V$(1)__ALL.ok ;
$(B)/vl/$(1)/V$(1)__ALL.ok: $(B)/vl/$(1)/V$(1).h $(B)/vl/$(1)/options $(call vl_pch,$(1)).gch
	@rm -f $$@ $(B)/vl/$(1)/V$(1)__ALL.a
	+$(MAKE) -s -C $(B)/vl/$(1) -f V$(1).mk V$(1)__ALL.a OPT_FAST='$$(VL_CXX_OPT_$(1))' OPT_SLOW=-O1 OPT_GLOBAL=-O2 \
	  USER_CPPFLAGS='-include $(call vl_pch,$(1)) -Winvalid-pch $(PGO)' > /dev/null
	@touch $$@
$(GEN)/vw/vw_$(1).h $(GEN)/vw/vw_$(1).cpp &: $(B)/vl/$(1)/V$(1).h scripts/gen_vwrap.py scripts/genutil.py
	$(PY) scripts/gen_vwrap.py $(1) $(B)/vl/$(1) $(GEN)/vw $(2)
$(OBJ)/vw/vw_$(1).o: $(GEN)/vw/vw_$(1).cpp $(GEN)/vw/vw_$(1).h $(B)/vl/$(1)/V$(1).h csim/base/cleanup.h
	@mkdir -p $$(@D)
	$(CXX) $(VL_CXXFLAGS) -I$(B)/vl/$(1) -I$(GEN)/vw -Icsim -c $$< -o $$@
VMODEL_OBJS_$(1) := $(OBJ)/vw/vw_$(1).o $(B)/vl/$(1)/V$(1)__ALL.a
VMODEL_HDR_$(1) := $(GEN)/vw/vw_$(1).h
endef

.PHONY: vl-options-force

# Test-harness tops: every tb/hdl/NAME.sv is Verilated (test flavour) as model NAME.
TB_MODELS := $(basename $(notdir $(TB_HDL)))
$(foreach m,$(TB_MODELS),$(eval $(call vmodel,$(m),$(m),,test)))
# The FIFO harnesses, the directory cache's and the switch counters' Verilated with SYNTHESIS
# defined too: their synthesis forms (their ram_1r1w banks; a counter module per port), which
# tb/test_fifo.c, tb/test_fifo_2w.c, tb/test_dir_cache.c and tb/test_sw_perf.c test as they test
# the simulation forms the other models use.
$(eval $(call vmodel,fifo_tb_synth,fifo_tb,+define+SYNTHESIS,test))
$(eval $(call vmodel,fifo_2w_tb_synth,fifo_2w_tb,+define+SYNTHESIS,test))
$(eval $(call vmodel,dir_cache_tb_synth,dir_cache_tb,+define+SYNTHESIS,test))
$(eval $(call vmodel,sw_perf_tb_synth,sw_perf_tb,+define+SYNTHESIS,test))
TB_MODELS += fifo_tb_synth fifo_2w_tb_synth dir_cache_tb_synth sw_perf_tb_synth
# The message-field harness with msg_pkg's class decode as the case Yosys reads (Verilator's models
# use a table): tb/test_msg.c checks both against C.
$(eval $(call vmodel,msg_fields_tb_case,msg_fields_tb,+define+MSG_CLASS_CASE,test))
TB_MODELS += msg_fields_tb_case

# RTL tops whose ports are already flat are tested directly, one model per parameter set:
# cxl_switch_c4m4 is cxl_switch with 4 CN and 4 MN ports (shape names as for fabric_top below);
# a _fifo shape has Voq = 0 (input FIFOs, head-of-line blocking), a _kN shape N credits (buffer
# entries) per class instead of 4, an _iN shape N iSLIP iterations instead of 2, a _fast one the
# fast flavour.
# $(call switch_model,SHAPE): the model cxl_switch_SHAPE.
switch_counts = $(subst m, ,$(patsubst c%,%,$(firstword $(subst _, ,$(1)))))
switch_crd    = $(patsubst k%,%,$(filter k%,$(subst _, ,$(1))))
switch_iters  = $(patsubst i%,%,$(filter i%,$(subst _, ,$(1))))
switch_model  = $(call vmodel,cxl_switch_$(1),cxl_switch,-GNumCn=$(word 1,$(call switch_counts,$(1))) \
  -GNumMn=$(word 2,$(call switch_counts,$(1)))$(if $(findstring _fifo,$(1)), -GVoq=0)$(if $(call switch_crd,$(1)), \
  -GCrdPerCls=$(call switch_crd,$(1)))$(if $(call switch_iters,$(1)), -GIters=$(call switch_iters,$(1))),$(if \
  $(findstring _fast,$(1)),fast,test))
TB_SWITCH_SHAPES := c2m2 c4m4 c4m4_fifo c4m4_k16
$(foreach s,$(TB_SWITCH_SHAPES),$(eval $(call switch_model,$(s))))
TB_MODELS += $(addprefix cxl_switch_,$(TB_SWITCH_SHAPES))

# ---------------------------------------------------------------------------------------------
# C: the simulator library (csim), the generated message code.
CFLAGS_COMMON := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O2 -g $(PGO) $(SAN_FLAGS) -I$(GEN) -I$(GEN)/vw -Icsim -Itb/harness \
                 $(if $(findstring -fprofile-use,$(PGO)),-DDIKTAMO_PGO=1)
CFLAGS_INIH   := $(shell pkg-config --cflags inih 2>/dev/null)
LDLIBS_SIM    := $(shell pkg-config --libs inih zlib 2>/dev/null || echo -linih -lz) -lm -lpthread -latomic $(PGO) $(SAN_FLAGS)

CSIM_SRCS := $(sort $(filter-out csim/main/%,$(wildcard csim/*.c csim/*/*.c)))
CSIM_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(CSIM_SRCS)) $(OBJ)/gen/msg_defs.o

$(OBJ)/gen/msg_defs.o: $(GEN)/msg_defs.c $(GEN)/msg_defs.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

# C objects: csim needs the generated headers; tests also every model wrapper header they may use.
$(OBJ)/csim/%.o: csim/%.c $(GEN_HDRS) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS_INIH) -MMD -MP -c $< -o $@

$(OBJ)/tb/%.o: tb/%.c $(GEN_HDRS) $$(foreach m,$$(TB_MODELS) $$(addprefix fabric_top_,$$(TB_FABRIC_SHAPES)),$$(VMODEL_HDR_$$(m))) | $(SETUP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS_INIH) -DTB_BIN_DIR='"$(BIN)"' -MMD -MP -c $< -o $@

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------------------------------------
# Fabric shapes. The Verilated fabric_top has its port counts built in, so each shape (NumCn x
# NumMn, and flavour) is its own model: c4m2 is 4 CNs + 2 MNs, test flavour; c4m2_fast the same
# for benchmarks; c4m2_synth the test flavour Verilated with SYNTHESIS defined, so that it runs the
# forms the RTL gives synthesis where simulation has faster ones of the same function (a test
# compares it with c4m2 cycle for cycle). A program links the shapes it needs through a generated
# registry (fabric_models[] in csim/drv/fabric.h).
# $(call fabric_shape,SHAPE,NCN,NMN,FLAVOUR)
define fabric_shape
$(call vmodel,fabric_top_$(1),fabric_top,-GNumCn=$(2) -GNumMn=$(3)$(if $(findstring _synth,$(1)), +define+SYNTHESIS),$(4))
$(GEN)/fabric_ops_$(1).c: csim/drv/fabric_ops.c.in Makefile
	@mkdir -p $$(@D)
	sed -e 's/@MODEL@/fabric_top_$(1)/g; s/@NCN@/$(2)/g; s/@NMN@/$(3)/g; \
	  s/@SYNTH@/$(if $(findstring _synth,$(1)),true,false)/g; \
	  s/@TRACED@/$(if $(call vl_traced,fabric_top_$(1)),true,false)/g' $$< > $$@
$(OBJ)/gen/fabric_ops_$(1).o: $(GEN)/fabric_ops_$(1).c $(GEN)/vw/vw_fabric_top_$(1).h $(GEN_HDRS) csim/drv/fabric.h
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $$< -o $$@
FABRIC_OBJS_$(1) := $(OBJ)/gen/fabric_ops_$(1).o $$(VMODEL_OBJS_fabric_top_$(1))
ALL_MODELS += fabric_top_$(1)
endef

# $(call fabric_registry,NAME,SHAPES): build/obj/gen/fabric_reg_NAME.o lists those shapes.
define fabric_registry
$(GEN)/fabric_reg_$(1).c: Makefile
	@mkdir -p $$(@D)
	@{ echo '/* Generated by the Makefile: the fabric shapes linked into $(1). */'; \
	   echo '#include "drv/fabric.h"'; \
	   $$(foreach s,$(2),echo 'extern const fabric_model_ops_t fabric_ops_fabric_top_$$(s);';) \
	   echo 'const fabric_model_ops_t *const fabric_models[] = {'; \
	   $$(foreach s,$(2),echo '    &fabric_ops_fabric_top_$$(s),';) \
	   echo '    0,'; echo '};'; } > $$@
$(OBJ)/gen/fabric_reg_$(1).o: $(GEN)/fabric_reg_$(1).c csim/drv/fabric.h $(GEN_HDRS)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $$< -o $$@
endef

# shape name -> counts: c4m2 -> 4 2; c16m16_fast -> 16 16 fast
shape_cn  = $(word 1,$(subst m, ,$(patsubst c%,%,$(firstword $(subst _, ,$(1))))))
shape_mn  = $(word 2,$(subst m, ,$(patsubst c%,%,$(firstword $(subst _, ,$(1))))))
shape_flv = $(if $(findstring _fast,$(1)),fast,test)

# Shapes the tests link (three small ones, the paper's 16 + 16, which `make run` uses too, and the
# synthesis forms of 4 + 2 and 6 + 4: sw_ports' loops visit the ports in groups of 8, one group at
# 4 + 2, a full one and a partial one at 6 + 4), and any
# shape asked for on the command line
# (scripts/run_sim.sh passes SIM_SHAPE for the configuration it runs).
TB_FABRIC_SHAPES := c2m2 c4m2 c6m4 c16m16 c4m2_synth c6m4_synth
BENCH_FABRIC_SHAPES ?= c4m2_fast c16m16_fast
SIM_SHAPE ?=
SIM_SHAPES := $(sort c2m2 c4m2 c16m16 $(SIM_SHAPE))
FABRIC_SHAPES := $(sort $(TB_FABRIC_SHAPES) $(SIM_SHAPES) $(addsuffix _fast,$(SIM_SHAPES)) $(BENCH_FABRIC_SHAPES))
$(foreach s,$(FABRIC_SHAPES),$(eval $(call fabric_shape,$(s),$(call shape_cn,$(s)),$(call shape_mn,$(s)),$(call shape_flv,$(s)))))

# The simulator: two binaries per shape, and diktamo_cfg, which only reads and checks a
# configuration (no RTL): scripts/run_sim.sh asks it for the shape to build.
#   diktamo_sim_c4m2       the fast flavour of every model (fabric, directories, LUs): no assertions,
#                          no tracing; what make run, make figures and make faults run
#   diktamo_sim_c4m2_test  the test flavour: SVA assertions on, X values randomized, the fabric
#                          traceable (--trace); what the tests run, and scripts/run_sim.sh for --trace
#                          (or SIM_FLAVOUR=test). The same configuration and seed give both the same
#                          statistics (tb/test_sim.c).
SIM_MAIN_OBJS := $(OBJ)/csim/main/diktamo_sim.o
$(foreach s,$(SIM_SHAPES),$(eval $(call fabric_registry,sim_$(s),$(s)_fast)))
$(foreach s,$(SIM_SHAPES),$(eval $(call fabric_registry,sim_$(s)_test,$(s))))
$(eval $(call fabric_registry,none,))

$(BIN)/diktamo_sim_%_test: $(SIM_MAIN_OBJS) $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_sim_%_test.o $$(FABRIC_OBJS_$$*) \
                           $$(DIR_SYS_OBJS) $$(LU_SYS_OBJS) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

$(BIN)/diktamo_sim_%: $(SIM_MAIN_OBJS) $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_sim_%.o $$(FABRIC_OBJS_$$*_fast) \
                      $$(DIR_SYS_OBJS_fast) $$(LU_SYS_OBJS_fast) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

$(BIN)/diktamo_cfg: $(OBJ)/csim/main/diktamo_cfg.o $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_none.o
	@mkdir -p $(@D)
	$(CC) -o $@ $(filter %.o,$^) $(LDLIBS_SIM)

# Benchmarks: the fast flavour of BENCH_FABRIC_SHAPES (set above; BENCH_FABRIC_SHAPES=... to choose).
$(eval $(call fabric_registry,bench,$(BENCH_FABRIC_SHAPES)))
$(BIN)/diktamo_bench: $(OBJ)/csim/main/diktamo_bench.o $(CSIM_OBJS) $(OBJ)/gen/fabric_reg_bench.o \
                      $$(foreach s,$$(BENCH_FABRIC_SHAPES),$$(FABRIC_OBJS_$$(s))) $$(DIR_SYS_OBJS_fast) \
                      $$(LU_SYS_OBJS_fast) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

# The switch benchmark (csim/main/switch_bench.c): cxl_switch on its own, fast flavour, with virtual
# output queues and with input FIFOs (_fifo). A program links the shapes it needs through a
# generated registry (sw_models[] in csim/drv/cxl_switch_drv.h), as for the fabric.
# 16 credits per class: with the default 4, one class alone cannot keep a port's virtual output
# queues filled (a credit comes back two cycles after its message left), and the comparison would
# measure the buffer, not the scheduling. Building the 16 + 16 models takes about 1.5 (VOQ) and 3
# (FIFO) minutes on 2 cores; BENCH_SWITCH_SHAPES="c4m4_k16_fast c4m4_fifo_k16_fast" leaves them out.
BENCH_SWITCH_SHAPES ?= c4m4_k16_fast c4m4_fifo_k16_fast c16m16_k16_fast c16m16_fifo_k16_fast
# $(call switch_shape,SHAPE)
define switch_shape
$(call switch_model,$(1))
$(GEN)/sw_ops_$(1).c: csim/drv/cxl_switch_ops.c.in
	@mkdir -p $$(@D)
	sed -e 's/@MODEL@/cxl_switch_$(1)/g; s/@NCN@/$(word 1,$(call switch_counts,$(1)))/g; \
	  s/@NMN@/$(word 2,$(call switch_counts,$(1)))/g; s/@VOQ@/$(if $(findstring _fifo,$(1)),false,true)/g' $$< > $$@
$(OBJ)/gen/sw_ops_$(1).o: $(GEN)/sw_ops_$(1).c $(GEN)/vw/vw_cxl_switch_$(1).h $(GEN_HDRS) csim/drv/cxl_switch_drv.h
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $$< -o $$@
SWITCH_OBJS_$(1) := $(OBJ)/gen/sw_ops_$(1).o $$(VMODEL_OBJS_cxl_switch_$(1))
ALL_MODELS += cxl_switch_$(1)
endef
$(foreach s,$(BENCH_SWITCH_SHAPES),$(eval $(call switch_shape,$(s))))

# The registry follows BENCH_SWITCH_SHAPES also when it is given on the command line.
.PHONY: sw-reg-force
$(GEN)/sw_reg_bench.shapes: sw-reg-force
	@mkdir -p $(@D); echo '$(BENCH_SWITCH_SHAPES)' | cmp -s - $@ || echo '$(BENCH_SWITCH_SHAPES)' > $@
$(GEN)/sw_reg_bench.c: $(GEN)/sw_reg_bench.shapes
	@mkdir -p $(@D)
	@{ echo '/* Generated by the Makefile: the switch shapes linked into switch_bench. */'; \
	   echo '#include "drv/cxl_switch_drv.h"'; \
	   $(foreach s,$(BENCH_SWITCH_SHAPES),echo 'extern const sw_model_ops_t sw_ops_cxl_switch_$(s);';) \
	   echo 'const sw_model_ops_t *const sw_models[] = {'; \
	   $(foreach s,$(BENCH_SWITCH_SHAPES),echo '    &sw_ops_cxl_switch_$(s),';) \
	   echo '    0,'; echo '};'; } > $@
$(OBJ)/gen/sw_reg_bench.o: $(GEN)/sw_reg_bench.c csim/drv/cxl_switch_drv.h $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

$(BIN)/switch_bench: $(OBJ)/csim/main/switch_bench.o $(CSIM_OBJS) $(OBJ)/gen/sw_reg_bench.o $(OBJ)/gen/fabric_reg_none.o \
                     $$(foreach s,$$(BENCH_SWITCH_SHAPES),$$(SWITCH_OBJS_$$(s))) $(VL_RT_OBJS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(LDLIBS_SIM)

# Every benchmark program runs, whatever an earlier one did; the target fails at the end, naming the
# programs that failed (each names its failed rows). Fragments add their programs to BENCH_BINS;
# BENCH_ARGS_<program> are its own arguments (REPEAT=N: diktamo_bench --repeat N). diktamo_bench
# runs built with profile-guided and link-time optimization (scripts/pgo.sh --bench: built again
# only when an input of the build changed; its simulators' statistics checked against the plain
# ones'), as a long run should (docs/architecture.md section 13); PLAIN=1 runs the plain fast build.
BENCH_BINS += $(BIN)/diktamo_bench $(BIN)/switch_bench
BENCH_ARGS_diktamo_bench = $(if $(REPEAT),--repeat $(REPEAT))
bench_bin = $(if $(PLAIN),$(1),$(patsubst $(BIN)/diktamo_bench,$(BIN)/diktamo_bench_pgo,$(1)))
.PHONY: bench
bench: $$(if $$(PLAIN),$$(BENCH_BINS),$$(filter-out $$(BIN)/diktamo_bench,$$(BENCH_BINS))) ## run the benchmarks: print tables, write build/bench/*.json and *.csv (REPEAT=N: the fabric and system rows N times, their medians; PLAIN=1: diktamo_bench without profile-guided and link-time optimization)
	$(if $(PLAIN),,+@bash scripts/pgo.sh --bench)
	@failed=; $(foreach b,$(BENCH_BINS),\
	  echo "make bench: $(call bench_bin,$(b)) --out $(B)/bench $(BENCH_ARGS_$(notdir $(b)))"; \
	  $(call bench_bin,$(b)) --out $(B)/bench $(BENCH_ARGS_$(notdir $(b))) || failed="$$failed $(notdir $(b))";) \
	if [ -n "$$failed" ]; then echo "make bench: failed:$$failed" >&2; exit 1; fi

.PHONY: run sim
run: $(BIN)/diktamo_cfg ## run the workloads under each store protocol, print execution times normalized to WB (CONFIG=, SEED=, ARGS=)
	+@bash scripts/run_workloads.sh --config $(CONFIG) --seed $(SEED) $(ARGS)

sim: $(BIN)/diktamo_cfg ## build and run one co-simulation (CONFIG=, SEED=, ARGS= to change it)
	+@bash scripts/run_sim.sh --config $(CONFIG) --seed $(SEED) $(ARGS)

# ---------------------------------------------------------------------------------------------
# Targets provided by the parts of the build (each fragment adds to ALL_MODELS, TB_* and help).
include $(sort $(wildcard scripts/mk/*.mk))

ALL_MODELS += $(TB_MODELS)

# ---------------------------------------------------------------------------------------------
# Tests: one Criterion binary holding every tb/test_*.c, so one Synthesis line counts them all.
TB_SRCS  := $(sort $(wildcard tb/test_*.c tb/ref/*.c tb/sb/*.c tb/harness/*.c))
TB_OBJS  := $(patsubst %.c,$(OBJ)/%.o,$(TB_SRCS))
TB_BIN   := $(BIN)/run_tests
TB_LINK_MODELS += $(TB_MODELS)
$(eval $(call fabric_registry,tests,$(TB_FABRIC_SHAPES)))

$(TB_BIN): $(TB_OBJS) $(CSIM_OBJS) $$(foreach m,$$(TB_LINK_MODELS),$$(VMODEL_OBJS_$$(m))) \
           $$(foreach s,$$(TB_FABRIC_SHAPES),$$(FABRIC_OBJS_$$(s))) $(OBJ)/gen/fabric_reg_tests.o $(VL_RT_OBJS) $$(TB_BIN_DEPS)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o %.a,$^) $(shell pkg-config --libs criterion) $(LDLIBS_SIM)

# Programs the tests run (tb/test_sim.c), besides the test binary itself; and the sanitized
# simulator that one of them runs (asan-sim: a sub-make with SAN=1 builds it).
TB_RUN_DEPS += $(BIN)/diktamo_cfg $(BIN)/diktamo_sim_c4m2_test $(BIN)/diktamo_sim_c2m2_test $(BIN)/diktamo_sim_c4m2
ifneq ($(SAN),1)
TB_RUN_DEPS += asan-sim
endif
.PHONY: asan-sim
asan-sim: | $(SETUP)
	+$(MAKE) SAN=1 $(B)/asan/bin/diktamo_sim_c4m2_test

# Under SAN=1 the first finding ends its test (halt_on_error), leaks included.
SAN_ENV := $(if $(filter 1,$(SAN)),ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 LSAN_OPTIONS=suppressions=tb/lsan.supp UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
TEST_REPORT := $(B)/reports/tests$(if $(filter 1,$(SAN)),-asan)

.PHONY: test test-asan
test: $(TB_BIN) $$(TB_RUN_DEPS) ## build and run the whole test suite (JUnit XML in build/reports/)
	@mkdir -p $(B)/reports
	$(SAN_ENV) $(TB_BIN) --jobs $(JOBS) --xml=$(TEST_REPORT).xml $(TEST_ARGS) 2>&1 | tee $(TEST_REPORT).log; \
	  exit $${PIPESTATUS[0]}

test-asan: | $(SETUP) ## the test suite built with AddressSanitizer and UndefinedBehaviorSanitizer (build/asan/): zero findings
	+$(MAKE) SAN=1 test

.PHONY: pgo
pgo: | $(SETUP) ## the simulators (PGO_CONFIG's shape, default sim_configs/paper.ini, and the bench's) and diktamo_bench built with profile-guided and link-time optimization: build/bin/*_pgo; the simulator's speed against the plain one (ROUNDS=3) in build/bench/pgo_<shape>.json
	+bash scripts/pgo.sh --config $(or $(PGO_CONFIG),sim_configs/paper.ini) --rounds $(or $(ROUNDS),3)

.PHONY: instr
instr: | $(SETUP) ## host instructions per benchmark row, counted by callgrind (the bench's fabric rows and paper.ini's short system rows; ROWS=PATTERN, BASE=an earlier instr.json for the ratios): build/bench/instr.json
	+python3 scripts/instr.py --jobs $(JOBS) $(if $(ROWS),--only '$(ROWS)') $(if $(BASE),--base '$(BASE)')

.PHONY: threads
threads: | $(SETUP) ## one host thread against two (sim.threads) on THREADS_CONFIG's workloads (default sim_configs/paper.ini; ROUNDS=3): identical statistics, wall and user times in build/bench/threads_<shape>.json
	+bash scripts/threads.sh --config $(or $(THREADS_CONFIG),sim_configs/paper.ini) --rounds $(or $(ROUNDS),3)

# The long sweeps (faults, figures, prism, megalon, regress) run through one runner (scripts/runner.py):
# ENGINE=local runs JOBS at a time here; ENGINE=slurm submits them as a Slurm job array (JOBS: the
# most at once; SBATCH_ARGS="--partition=... --time=..." for the cluster's own options).
ENGINE ?= local

.PHONY: faults
faults: | $(SETUP) ## seeded campaign of CN failures and recoveries at run.ini's scale on 3 to 16 CNs (RUNS=40, SEED=1; ENGINE=local|slurm): lost and phantom must be 0; resumable
	+python3 scripts/faults.py --runs $(or $(RUNS),40) --seed $(or $(SEED),1) --jobs $(JOBS) --engine $(ENGINE)

# make figures runs on paper.ini (the paper's 16 + 16 cluster, paper.ini's scaled inputs), FULL=1 with
# the paper's input sizes; FIG_CONFIG=... for another configuration.
FIG_CONFIG ?= sim_configs/paper.ini
.PHONY: figures
figures: | $(SETUP) ## the paper's Figs. 10-19 and headline ratios on this model, paper.ini's 16 + 16: docs/results.md, docs/figures/ (SIZE=default|tiny; FULL=1: the paper's input sizes, hours; FIG_CONFIG=, SEED=, HOST_SETS="sim.zlib_threads=N")
	+python3 scripts/figures.py --config $(FIG_CONFIG) --seed $(or $(SEED),1) --jobs $(JOBS) --engine $(ENGINE) \
	  --size $(if $(FULL),full,$(or $(SIZE),default)) --docs docs $(foreach h,$(HOST_SETS),--host-set $(h))

# make prism: the Prism blog's index experiments, scaled, on sim_configs/pc.ini (scripts/prism.py).
.PHONY: prism
prism: | $(SETUP) ## SC-ART, SC-BTree, SC-LSM and Prism on partly coherent memory: the blog's P1-P3, scaled; docs/results-prism.md (SIZE=default|tiny, SEED=)
	+python3 scripts/prism.py --seed $(or $(SEED),1) --jobs $(JOBS) --engine $(ENGINE) --size $(or $(SIZE),default) --docs docs

# make megalon: the Megalon blog's experiments, scaled, on sim_configs/pc.ini (scripts/megalon.py).
.PHONY: megalon
megalon: | $(SETUP) ## HCMeta and Megalon on partly coherent memory: the blog's M1-M4, scaled; docs/results-megalon.md (SIZE=default|tiny, SEED=)
	+python3 scripts/megalon.py --seed $(or $(SEED),1) --jobs $(JOBS) --engine $(ENGINE) --size $(or $(SIZE),default) --docs docs

.PHONY: regress
regress: $(TB_BIN) $$(TB_RUN_DEPS) ## long regression: the tests over many seeds, the random coherence tester, longer co-simulations (N=20 seeds)
	+python3 scripts/regress.py --seeds $(or $(N),20) --jobs $(JOBS) --engine $(ENGINE)

# ---------------------------------------------------------------------------------------------
# Every module is under one of these tops: the fabric (fabric_top: the switch and its ports), the
# switch on its own (its tests), the Logging Unit and the directory controller (Verilated models of
# their own, beside the fabric: docs/architecture.md sections 11d and 11f), and the test harnesses.
LINT_TOPS := fabric_top cxl_switch logging_unit dir_ctrl $(basename $(notdir $(TB_HDL)))
# Parameter sets that build other modules under a top, linted too (TOP:ARGS, commas for spaces).
# The tops' synthesis forms too (SYNTHESIS defined: what Yosys reads).
LINT_VARIANTS := cxl_switch:-GVoq=0 logging_unit:-GSramMacro=0 fabric_top:+define+SYNTHESIS \
                 logging_unit:+define+SYNTHESIS dir_ctrl:+define+SYNTHESIS

.PHONY: lint
lint: $(RTL_PKGS) | $(SETUP) ## verilator --lint-only -Wall over all RTL and test harnesses (zero warnings); csim's includes follow its layers
	@$(PY) scripts/check_layers.py csim
	@for t in $(LINT_TOPS); do \
	  $(VERILATOR) --lint-only -Wall --assert -Irtl/include $(VLT) $(RTL_PKGS) $(RTL_SRCS) $(TB_HDL) --top-module $$t || exit 1; \
	done
	@for v in $(LINT_VARIANTS); do \
	  a=$${v#*:}; $(VERILATOR) --lint-only -Wall --assert -Irtl/include $(VLT) $(RTL_PKGS) $(RTL_SRCS) $(TB_HDL) \
	    --top-module $${v%%:*} $${a//,/ } || exit 1; \
	done
	@echo "lint: clean"

.PHONY: clean
clean: ## remove build/
	rm -rf $(B)

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort -u | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  make %-10s %s\n", $$1, $$2}'
