# Timing constraints of the CXL switch (cxl_switch, and its 16 + 16 variant cxl_switch.c16m16).
#
# Convention: the flow reads the period from the line `set clk_period <ns>` (Yosys' abc maps the
# logic for that delay target too), so keep that line, with a plain number.
#
# Target 5 ns (200 MHz). The RTL is simulated with a 1 GHz fabric clock, a modern process; this
# synthesis uses the OSU 0.18 um cells, about five process generations older and not tuned for
# speed. 5 ns is a usual clock for a standard-cell block in 0.18 um (about 50 fanout-of-4 inverter
# delays), so the slack says how much logic one pipeline stage holds, relative to a realistic
# budget; Fmax in the report scales the result to any other target.
set clk_period 5.0

# I/O budget: a block's neighbours are other blocks with registered outputs. An input arrives
# io_frac x period after the clock edge (the sender's clock-to-output and wires); an output must
# be valid io_frac x period before the next edge (the receiver's logic and setup). 0.2 leaves
# 60 % of the cycle for logic between a port and this block's own flops.
set io_frac 0.2

if {[llength [get_ports -quiet clk_i]] > 0} {
  create_clock -name clk -period $clk_period [get_ports clk_i]
  set data_inputs [delete_from_list [all_inputs] [get_ports clk_i]]
} else {
  # A purely combinational block: a virtual clock times input-to-output paths.
  create_clock -name clk -period $clk_period
  set data_inputs [all_inputs]
}
# Ideal clock network (no clock tree before layout).
set_input_delay  [expr {$io_frac * $clk_period}] -clock clk $data_inputs
set_output_delay [expr {$io_frac * $clk_period}] -clock clk [all_outputs]

# Inputs driven by a 2x buffer and outputs loading about four gate inputs, when the liberty has
# the OSU018 cell (with another LIBERTY, write a block SDC with that library's cells).
if {[llength [get_lib_cells -quiet */BUFX2]] > 0} {
  set_driving_cell -lib_cell BUFX2 -pin Y $data_inputs
}
set_load 0.04 [all_outputs]

# timer_valid_o / timer_left_o tell a simulator that skips idle cycles when the earliest failure
# timer expires; no hardware reads them, so their min-reduction over the CNs is not a design path.
set_false_path -to [get_ports {timer_valid_o timer_left_o*}]
