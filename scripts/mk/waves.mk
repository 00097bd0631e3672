# make waves / make waves-png: the simulator's FST traces in GTKWave with the saved views of
# waves/*.gtkw (scripts/waves.sh does the work; see its header). Included by the Makefile.
#   FST=file.fst   the trace to show (default: the newest *.fst under build/)
#   PNG=file.png   waves-png only: where to write (default: build/waves/<FST basename>.png)
#   WAVES_ARGS=    more scripts/waves.sh options: --cycles N, --from T --to T, --full, --size WxH
FST        ?=
PNG        ?=
WAVES_ARGS ?=
# The trace waves-png makes when there is none yet: a short small-config run (about 1 us traced).
WAVES_DEFAULT_FST := $(B)/waves/small.fst

.PHONY: waves waves-png waves-failure
waves: | $(SETUP) ## open the newest FST under build/ in GTKWave with its saved view (FST= to pick one)
	@bash scripts/waves.sh open $(FST) $(WAVES_ARGS)

waves-png: | $(SETUP) ## render the newest FST under build/ headless to build/waves/*.png (traces a small run if none)
	+@if [ -z "$(FST)" ] && [ -z "$$(find $(B) -name '*.fst' -type f -print -quit 2>/dev/null)" ]; then \
	  echo "waves-png: no FST under $(B)/ yet: tracing a short small-config run into $(WAVES_DEFAULT_FST)"; \
	  bash scripts/run_sim.sh --config sim_configs/small.ini --seed 1 --trace $(WAVES_DEFAULT_FST) --quiet; \
	fi
	@bash scripts/waves.sh png $(FST) $(if $(PNG),--out $(PNG)) $(WAVES_ARGS)

# A failure on show: small config, short heartbeat and silence limit, CN 1 fails at 1 us; the
# window covers its last heartbeat, the detection (Viral_Status, fence, MSI pending) and the MSI
# leaving on port 0 toward the CM.
WAVES_FAILURE_FST := $(B)/waves/failure.fst
waves-failure: | $(SETUP) ## trace a run in which CN 1 fails; render its detection and the MSI to build/waves/failure.png
	+bash scripts/run_sim.sh --traffic --config sim_configs/small.ini --seed 1 --set traffic.load=0.05 \
	  --set fabric.heartbeat=50 --set fabric.silence_limit=200 --fail 1@1us \
	  --trace $(WAVES_FAILURE_FST) --trace-start 0.9us --trace-stop 1.4us --quiet
	bash scripts/waves.sh png $(WAVES_FAILURE_FST) --from 1.2us --to 1.24us --size 1920x1300 $(WAVES_ARGS)

# A recovery on show: ocean_cp under DIKTAMO-proactive on the small config with 64 KiB MNs (a short
# directory walk), a short heartbeat and silence limit, CN 1 failing at 5 us. The window runs from
# the MSI on port 0 (the CM's) through INTERRUPT / INTERRUPT_RESP on every CN port, INIT_RECOV to the
# MN ports, the MNs' FETCH_LATEST_VERS to the LUs and their answers, INIT_RECOV_RESP, to RECOV_END /
# RECOV_END_RESP (the per-port opcode traces name each message).
WAVES_RECOVERY_FST := $(B)/waves/recovery.fst
.PHONY: waves-recovery
waves-recovery: | $(SETUP) ## trace a run in which CN 1 fails and is recovered; render MSI to RecEnd to build/waves/recovery.png
	+bash scripts/run_sim.sh --config sim_configs/small.ini --seed 1 --set core.protocol=proactive \
	  --set workload.ocean_grid=14 --set mem.mn_size=64KiB --set fabric.heartbeat=50 \
	  --set fabric.silence_limit=200 --fail 1@5us --trace $(WAVES_RECOVERY_FST) --trace-start 5us \
	  --trace-stop 40us --quiet
	bash scripts/waves.sh png $(WAVES_RECOVERY_FST) --from 5us --to $(or $(WAVES_TO),14us) --size 1920x1300 \
	  $(WAVES_ARGS)
