# make synth: every RTL block synthesized with Yosys to the OSU 0.18 um cells and timed with
# OpenSTA; one row per block in build/synth/report.md (and report.json). Included by the Makefile.
#
# A block is a module: every rtl/*.sv and rtl/*/*.sv file defines one, named after the file, so
# new files are picked up without edits here. Per block (all optional, in constraints/):
#   <block>.sdc     its clock period (`set clk_period <ns>`) and I/O delays; else default.sdc
#   <block>.params  parameter overrides for synthesis, `Name=Value` per line
#   <block>.<variant>.params (and .sdc)  one more configuration of the block, reported as
#                   <block>.<variant> (e.g. cxl_switch.c16m16)
#   <block>.flow    how the flow treats the block (<block>.<variant>.flow, else <block>.flow):
#                   `keep = MODULE ...` synthesizes it hierarchically (see scripts/synth_block.py)
# `make synth BLOCKS="fifo cxl_switch.fifo"` synthesizes only those blocks; the report lists them.
# scripts/synth_block.py runs one block (build/synth/<block>/: logs, netlist, timing report,
# result.json); scripts/synth_report.py collects them. Blocks run in parallel under make -j, and a
# block runs again only when a file it reads changes (build/synth/<block>/deps.mk lists them), or
# its SDC, params, the flow scripts or the settings below.

SYNTH_DIR := $(B)/synth

# The cell library. Another liberty may need its own constraints/abc.constr (driving cell) and SDC
# driving cell, and a MEM_BIT_AREA of its own.
LIBERTY ?= /usr/share/qflow/tech/osu018/osu018_stdcells.lib
# Area estimate per bit of a storage macro (um2), and where it comes from: the area of the
# library's D flip-flop DFFPOSX1 (96 um2; OSU018 areas are um2: 9.6 um x 10 um in the LEF). One
# flop per stored bit without the write and read multiplexers a flop array also needs (a
# ram_1r1w mapped to flops on its own costs about twice that per bit: see its row in the report)
# and well above a compiled SRAM bit, which the OSU018 kit does not have.
MEM_BIT_AREA ?= 96
MEM_BIT_AREA_SOURCE ?= OSU018 DFFPOSX1 area: one flop per bit, read and write multiplexers not counted
# Timing placeholders of a storage macro (ns): setup of its sampled inputs before the clock edge;
# clock-to-output of registered outputs, and address-to-data of combinational read ports.
MEM_SETUP_NS  ?= 0.3
MEM_ACCESS_NS ?= 1.2

SYNTH_ALL     := $(basename $(notdir $(RTL_SRCS))) \
                 $(basename $(notdir $(wildcard constraints/*.*.params)))
BLOCKS        ?= $(SYNTH_ALL)
SYNTH_BLOCKS  := $(BLOCKS)
ifneq ($(filter-out $(SYNTH_ALL),$(SYNTH_BLOCKS)),)
  $(error BLOCKS: no such block: $(filter-out $(SYNTH_ALL),$(SYNTH_BLOCKS)) (blocks: $(sort $(SYNTH_ALL))))
endif
SYNTH_RESULTS := $(foreach m,$(SYNTH_BLOCKS),$(SYNTH_DIR)/$(m)/result.json)
SYNTH_FLOW    := scripts/synth_block.py constraints/synth.ys.tmpl constraints/sta.tcl.tmpl constraints/techmap_shift.v \
                 $(wildcard constraints/abc.constr)
synth_sdc      = $(firstword $(wildcard constraints/$(1).sdc constraints/$(basename $(1)).sdc) constraints/default.sdc)
synth_params   = $(wildcard constraints/$(1).params)
synth_flowfile = $(firstword $(wildcard constraints/$(1).flow constraints/$(basename $(1)).flow))
# Everything that changes a block's result besides its files' contents; written to
# build/synth/<block>/config only when it differs, so its date says when it last changed.
synth_config   = $(call synth_sdc,$(1)) $(call synth_params,$(1)) $(call synth_flowfile,$(1)) $(LIBERTY) \
                 $(MEM_SETUP_NS) $(MEM_ACCESS_NS)

# Before a block's first run it depends on every RTL file; afterwards on the files it read.
define synth_block_rule
$(SYNTH_DIR)/$(1)/result.json: $(if $(wildcard $(SYNTH_DIR)/$(1)/deps.mk),,$(RTL_SRCS)) $(RTL_PKGS) \
    $(RTL_INCS) $(call synth_sdc,$(1)) $(call synth_params,$(1)) $(call synth_flowfile,$(1)) $(SYNTH_FLOW) \
    $(SYNTH_DIR)/$(1)/config | $(SETUP)
	@$(PY) scripts/synth_block.py $(1) --out $(SYNTH_DIR)/$(1) --rtl $(RTL_SRCS) --pkgs $(RTL_PKGS) \
	  --liberty $(LIBERTY) --mem-setup-ns $(MEM_SETUP_NS) --mem-access-ns $(MEM_ACCESS_NS)
$(SYNTH_DIR)/$(1)/config: synth-force
	@mkdir -p $$(@D); echo '$(call synth_config,$(1))' | cmp -s - $$@ || echo '$(call synth_config,$(1))' > $$@
endef
$(foreach m,$(SYNTH_BLOCKS),$(eval $(call synth_block_rule,$(m))))
-include $(wildcard $(SYNTH_DIR)/*/deps.mk)

SYNTH_REPORT_CONFIG := $(SYNTH_BLOCKS) | $(LIBERTY) | $(MEM_BIT_AREA) | $(MEM_BIT_AREA_SOURCE)
$(SYNTH_DIR)/report.config: synth-force
	@mkdir -p $(@D); echo '$(SYNTH_REPORT_CONFIG)' | cmp -s - $@ || echo '$(SYNTH_REPORT_CONFIG)' > $@

$(SYNTH_DIR)/report.md $(SYNTH_DIR)/report.json &: $(SYNTH_RESULTS) scripts/synth_report.py $(SYNTH_DIR)/report.config
	@$(PY) scripts/synth_report.py --mem-bit-area $(MEM_BIT_AREA) --mem-bit-area-source '$(MEM_BIT_AREA_SOURCE)' \
	  --liberty $(LIBERTY) --md $(SYNTH_DIR)/report.md --json $(SYNTH_DIR)/report.json $(SYNTH_RESULTS)

.PHONY: synth synth-check synth-force
synth-force:

synth: $(SYNTH_DIR)/report.md ## synthesize every RTL block (or BLOCKS="a b.variant") with Yosys (OSU 0.18 µm), time it (OpenSTA); report in build/synth/
	@cat $(SYNTH_DIR)/report.md

# Quick: does Yosys accept every block (read + hierarchy + proc, no mapping)? One Yosys run over
# every file, about a minute and a half, where make synth takes half an hour and more.
synth-check: $(RTL_PKGS) | $(SETUP)
	@$(PY) scripts/synth_block.py --check-all --rtl $(RTL_SRCS) --pkgs $(RTL_PKGS)
