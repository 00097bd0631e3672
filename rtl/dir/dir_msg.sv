`default_nettype none

// The directory's messages built from a transaction's fields: the response a FINISH sends, the
// BISNP the snoop sender sends, and the header a violation found at DECIDE reports. Each is built
// only in a cycle that uses it (a Verilated model otherwise builds a flit at every evaluation).
module dir_msg #(
  localparam int unsigned FlitW  = msg_pkg::FLIT_W,
  localparam int unsigned DataW  = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned HdrW   = FlitW - DataW,
  localparam int unsigned AddrW  = msg_pkg::LINE_ADDR_W,
  localparam int unsigned NodeW  = msg_pkg::NODE_ID_W,
  localparam int unsigned CnW    = $clog2(msg_pkg::MAX_CN),
  localparam int unsigned TsW    = msg_pkg::TS_W,
  localparam int unsigned WordN  = msg_pkg::WORDS_PER_LINE,
  localparam int unsigned TagW   = msg_pkg::TAG_W
) (
  /// this MN's node id (the messages' source)
  input  wire logic [NodeW-1:0]              node_id_i,
  // the cycle's event is a FINISH (the response), a DECIDE (the request's header)
  /// the cycle's event is a FINISH (the response)
  input  wire logic                          ev_finish_i,
  /// the cycle's event is a DECIDE (the request's header)
  input  wire logic                          ev_decide_i,
  // the event's transaction's request: opcode, source, core, tag, line, words
  /// the event's transaction: request's opcode
  input  wire logic [msg_pkg::OPCODE_W-1:0]  e_op_i,
  /// the event's transaction: requester's node id
  input  wire logic [NodeW-1:0]              e_src_i,
  /// the event's transaction: requester's core
  input  wire logic [msg_pkg::CORE_ID_W-1:0] e_core_i,
  /// the event's transaction: request's tag
  input  wire logic [TagW-1:0]               e_tag_i,
  /// the event's transaction: line (global address)
  input  wire logic [AddrW-1:0]              e_line_i,
  /// the event's transaction: request's word mask
  input  wire logic [WordN-1:0]              e_mask_i,
  /// the line's version (the entry's)
  input  wire logic [TsW-1:0]                e_ver_i,
  /// the response's opcode (dir_decide)
  input  wire logic [msg_pkg::OPCODE_W-1:0]  fin_op_i,
  // the response's header (its data line, if it carries one, is dir_dpath's); it carries data
  /// the response's header (its data line is dir_dpath's)
  output logic      [HdrW-1:0]               rsp_hdr_o,
  /// the response carries the data line
  output logic                               rsp_data_o,
  /// the request's header, as it came (the violation's report)
  output logic      [HdrW-1:0]               req_hdr_o,
  // the snoop sender has a BISNP to send: the transaction (the tag), the CN, invalidating, the
  // line
  /// the snoop sender has a BISNP to send
  input  wire logic                          s_any_i,
  /// its transaction (the tag)
  input  wire logic [TagW-1:0]               s_tag_i,
  /// the CN
  input  wire logic [CnW-1:0]                s_cn_i,
  /// it invalidates
  input  wire logic                          s_inv_i,
  /// the line
  input  wire logic [AddrW-1:0]              s_line_i,
  /// the BISNP
  output logic      [FlitW-1:0]              snp_o
);

  // The response of a finished transaction.
  assign rsp_data_o = msg_pkg::msg_has_data(fin_op_i);
  always_comb begin
    rsp_hdr_o = '0;
    if (ev_finish_i) begin
      rsp_hdr_o[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W] = fin_op_i;
      rsp_hdr_o[msg_pkg::FIELD_SRC_LSB - DataW +: NodeW]                = node_id_i;
      rsp_hdr_o[msg_pkg::FIELD_DST_LSB - DataW +: NodeW]                = e_src_i;
      rsp_hdr_o[msg_pkg::FIELD_CORE_LSB - DataW +: msg_pkg::CORE_ID_W]  = e_core_i;
      rsp_hdr_o[msg_pkg::FIELD_TAG_LSB - DataW +: TagW]                 = e_tag_i;
      rsp_hdr_o[msg_pkg::FIELD_ADDR_LSB - DataW +: AddrW]               = e_line_i;
      rsp_hdr_o[msg_pkg::FIELD_MASK_LSB - DataW +: WordN]               = rsp_data_o ? '1 : '0;
      // Grants carry the line's version (section 11b); DATA_NC and CMP carry none.
      if (fin_op_i == msg_pkg::OP_DATA_E || fin_op_i == msg_pkg::OP_DATA_S || fin_op_i == msg_pkg::OP_CMP_E)
        rsp_hdr_o[msg_pkg::FIELD_TS_LSB - DataW +: TsW] = e_ver_i;
    end
  end

  // The header of the event transaction's request (violations found at DECIDE report it).
  always_comb begin
    req_hdr_o = '0;
    if (ev_decide_i) begin
      req_hdr_o[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W] = e_op_i;
      req_hdr_o[msg_pkg::FIELD_SRC_LSB - DataW +: NodeW]                = e_src_i;
      req_hdr_o[msg_pkg::FIELD_DST_LSB - DataW +: NodeW]                = node_id_i;
      req_hdr_o[msg_pkg::FIELD_CORE_LSB - DataW +: msg_pkg::CORE_ID_W]  = e_core_i;
      req_hdr_o[msg_pkg::FIELD_TAG_LSB - DataW +: TagW]                 = e_tag_i;
      req_hdr_o[msg_pkg::FIELD_ADDR_LSB - DataW +: AddrW]               = e_line_i;
      req_hdr_o[msg_pkg::FIELD_MASK_LSB - DataW +: WordN]               = e_mask_i;
    end
  end

  // The BISNP: its tag names the transaction, whose answer the tag does not carry back (the
  // answer is matched by line and source).
  always_comb begin
    snp_o = '0;
    if (s_any_i) begin
      snp_o[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W] =
        s_inv_i ? msg_pkg::OP_BISNP_INV : msg_pkg::OP_BISNP_DATA;
      snp_o[msg_pkg::FIELD_SRC_LSB +: NodeW]  = node_id_i;
      snp_o[msg_pkg::FIELD_DST_LSB +: NodeW]  = NodeW'(s_cn_i);
      snp_o[msg_pkg::FIELD_TAG_LSB +: TagW]   = s_tag_i;
      snp_o[msg_pkg::FIELD_ADDR_LSB +: AddrW] = s_line_i;
    end
  end

endmodule
`default_nettype wire
