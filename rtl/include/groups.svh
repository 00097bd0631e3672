// Groups of ports (or slots) for the simulation forms' loops, which visit a vector's bits in
// groups of 8 and skip a group without a bit set: at light load most groups of a 32-port switch or
// a 64-slot LU have nothing to do in most cycles, and a group costs one test where its bits cost
// one each. One definition for every block that does so (sw_ports, islip_alloc, sw_words,
// lu_slots).
//
// `SIM_GROUPS(ANY, SIZE, COUNT, W) declares, for a W-bit vector: localparam SIZE, the bits of a
// group (8, or W when W < 8); localparam COUNT, the groups (the last one may be partial); and
// function ANY(m, g), true when group g of m has a bit set.
`ifndef GROUPS_SVH
`define GROUPS_SVH

`define SIM_GROUPS(ANY, SIZE, COUNT, W) \
  localparam int unsigned SIZE  = ((W) < 8) ? (W) : 8; \
  localparam int unsigned COUNT = ((W) + SIZE - 1) / SIZE; \
  function automatic logic ANY(logic [(W)-1:0] m, int g); \
    ANY = ((m >> (g * SIZE)) & (W)'({SIZE{1'b1}})) != '0; \
  endfunction

`endif
