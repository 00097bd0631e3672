`default_nettype none

// Test harness: unpacks a flit with the RTL's msg_pkg::msg_t and shows every field on its own
// port, and packs a flit from those fields, so that tb/test_msg.c can check field by field that
// the C pack/unpack and the RTL struct agree on every bit.
module msg_fields_tb (
  input  wire logic                              clk_i,
  input  wire logic                              rst_ni,
  input  wire logic [msg_pkg::FLIT_W-1:0]        flit_i,
  output logic      [msg_pkg::FIELD_RSVD_W-1:0]  rsvd_o,
  output logic      [msg_pkg::OPCODE_W-1:0]      opcode_o,
  output logic      [msg_pkg::NODE_ID_W-1:0]     src_o,
  output logic      [msg_pkg::NODE_ID_W-1:0]     dst_o,
  output logic      [msg_pkg::CORE_ID_W-1:0]     core_o,
  output logic      [msg_pkg::NODE_ID_W-1:0]     subject_o,
  output logic      [msg_pkg::TAG_W-1:0]         tag_o,
  output logic      [msg_pkg::FLAGS_W-1:0]       flags_o,
  output logic      [msg_pkg::LINE_ADDR_W-1:0]   addr_o,
  output logic      [msg_pkg::WORDS_PER_LINE-1:0] mask_o,
  output logic      [msg_pkg::TS_W-1:0]          ts_o,
  output logic      [msg_pkg::FIELD_DATA_W-1:0]  data_o,
  output logic      [msg_pkg::CLASS_W-1:0]       class_o,
  output logic                                   has_data_o,
  output logic                                   op_valid_o,
  output logic      [msg_pkg::FLIT_W-1:0]        repacked_o
);
  msg_pkg::msg_t m, r;

  assign m = flit_i;
  assign rsvd_o     = m.rsvd;
  assign opcode_o   = m.opcode;
  assign src_o      = m.src;
  assign dst_o      = m.dst;
  assign core_o     = m.core;
  assign subject_o  = m.subject;
  assign tag_o      = m.tag;
  assign flags_o    = m.flags;
  assign addr_o     = m.addr;
  assign mask_o     = m.mask;
  assign ts_o       = m.ts;
  assign data_o     = m.data;
  assign class_o    = msg_pkg::msg_class(m.opcode);
  assign has_data_o = msg_pkg::msg_has_data(m.opcode);
  assign op_valid_o = msg_pkg::msg_op_valid(m.opcode);

  // Repack from the named fields, in a different order than they are declared.
  always_comb begin
    r         = '0;
    r.data    = data_o;
    r.ts      = ts_o;
    r.opcode  = opcode_o;
    r.mask    = mask_o;
    r.src     = src_o;
    r.addr    = addr_o;
    r.dst     = dst_o;
    r.flags   = flags_o;
    r.core    = core_o;
    r.tag     = tag_o;
    r.subject = subject_o;
    r.rsvd    = rsvd_o;
  end
  assign repacked_o = r;

  // The harness has no state; the clock and reset exist for the uniform wrapper.
  logic unused;
  assign unused = clk_i ^ rst_ni;

endmodule
`default_nettype wire
