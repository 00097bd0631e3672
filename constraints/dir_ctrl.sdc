# Timing constraints of the directory controller (dir_ctrl: one per MN).
#
# Convention: the flow reads the period from the line `set clk_period <ns>` (Yosys' abc maps the
# logic for that delay target too), so keep that line, with a plain number.
#
# Target 5 ns (200 MHz), the switch's. The directory runs on the fabric clock (docs/architecture.md
# section 11d: the MN's controller is clocked in the fabric clock): its link port is the switch's
# MN port, one message per fabric cycle each way. The paper's Table II gives no fabric or directory clock (only the Logging Unit's
# 500 MHz, which constraints/logging_unit.sdc takes literally, and a 200 ns network round trip
# that includes the directory lookup); the simulated 1 GHz (sim_configs/paper.ini, fabric.freq)
# is an assumption for a modern process, sized from Table II's 4 TB/s aggregate. As for the
# switch, the OSU 0.18 um cells of `make synth` are about five process generations older, and
# 5 ns is a usual clock for a standard-cell block there (about 50 fanout-of-4 inverter delays):
# the slack says how much logic one stage of the directory holds against the same budget as the
# switch it shares the clock with, and Fmax in the report scales the result to any other target.
set clk_period 5.0

# I/O budget as for every block (constraints/default.sdc): neighbours with registered outputs
# (the switch's MN port, the memory controller behind the memory port, the MN's software). An
# input arrives io_frac x period after the clock edge; an output must be valid io_frac x period
# before the next edge. Every port is constrained by these generic rules (all_inputs,
# all_outputs), so ports added later (the management port) are timed without editing this file.
set io_frac 0.2

create_clock -name clk -period $clk_period [get_ports clk_i]
set data_inputs [delete_from_list [all_inputs] [get_ports clk_i]]
set_input_delay  [expr {$io_frac * $clk_period}] -clock clk $data_inputs
set_output_delay [expr {$io_frac * $clk_period}] -clock clk [all_outputs]

# Inputs driven by a 2x buffer and outputs loading about four gate inputs, when the liberty has
# the OSU018 cell (with another LIBERTY, write a block SDC with that library's cells).
if {[llength [get_lib_cells -quiet */BUFX2]] > 0} {
  set_driving_cell -lib_cell BUFX2 -pin Y $data_inputs
}
set_load 0.04 [all_outputs]

# Configuration straps (node id, MN index, interleave shifts, memory size, SCR bounds) are set
# once by the platform before reset ends and held: not timing paths. The address map's shifters
# still time from the message's address, only not from the shift amounts.
set_false_path -from [get_ports {node_id_i* cfg_*}]
