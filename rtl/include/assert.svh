// Assertion macros: one source, three readers.
//   Under Verilator --assert: an immediate assertion checked at every rising clk_i edge while rst_ni is
//     high; a failure prints the assertion's name, condition, file and line and stops the run.
//   Under Yosys -formal (FORMAL defined): the same condition as a formal assert cell, for sat / smtbmc.
//   Under Yosys synthesis (SYNTHESIS defined, FORMAL not): nothing.
// Clocked `assert property` is avoided on purpose: Yosys 0.23 rejects it.
// Parameter checks use a generate-if with $error (an elaboration task): Yosys 0.23 rejects $error in
// an initial block, and both tools stop elaboration on the generate form.
`ifndef ASSERT_SVH
`define ASSERT_SVH

`ifdef VERILATOR
`define ASSERT(name, cond) \
  always_ff @(posedge clk_i) begin : name \
    if (rst_ni) assert (cond) else $error("assertion %s failed: %s", `"name`", `"cond`"); \
  end
`elsif FORMAL
`define ASSERT(name, cond) \
  always @(posedge clk_i) begin : name \
    if (rst_ni) assert (cond); \
  end
`else
`define ASSERT(name, cond)
`endif

`endif
