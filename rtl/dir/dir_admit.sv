`default_nettype none

// The directory's admission of new requests: the new message the engine would take (the
// management port's RECOVER first, then an RWD and a REQ in turn), its line through the address
// map (this MN's? in the Small Coherent Region?), its checks (the violations a new request can
// be), and the fields a new transaction gets in the table (dir_tbe, written at its EV_NEW).
module dir_admit #(
  localparam int unsigned FlitW  = msg_pkg::FLIT_W,
  localparam int unsigned DataW  = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned HdrW   = FlitW - DataW,
  localparam int unsigned AddrW  = msg_pkg::LINE_ADDR_W,
  localparam int unsigned NodeW  = msg_pkg::NODE_ID_W,
  localparam int unsigned MnIdxW = $clog2(msg_pkg::MAX_MN),
  localparam int unsigned NumCn  = msg_pkg::MAX_CN,
  localparam int unsigned CnW    = $clog2(msg_pkg::MAX_CN),
  localparam int unsigned TsW    = msg_pkg::TS_W,
  localparam int unsigned WordN  = msg_pkg::WORDS_PER_LINE
) (
  /// controller clock
  input  wire logic                          clk_i,
  /// synchronous reset, active low: an RWD goes first
  input  wire logic                          rst_ni,
  /// this MN's index among the MNs (held from the reset on, as every cfg_* input)
  input  wire logic [MnIdxW-1:0]             cfg_mn_idx_i,
  /// log2 of the number of MNs
  input  wire logic [2:0]                    cfg_mn_shift_i,
  /// log2 of the interleave granularity, in lines
  input  wire logic [4:0]                    cfg_gran_shift_i,
  /// lines of memory this MN holds
  input  wire logic [31:0]                   cfg_lines_i,
  // the Small Coherent Region: first line, line just past it (global)
  /// the SCR's first line (global)
  input  wire logic [AddrW-1:0]              cfg_scr_lo_i,
  /// the line just past the SCR
  input  wire logic [AddrW-1:0]              cfg_scr_hi_i,
  // a REQ waits in its receive FIFO; its header
  /// a REQ waits in its receive FIFO
  input  wire logic                          req_v_i,
  /// its header
  input  wire logic [HdrW-1:0]               req_hdr_i,
  // an RWD waits in its receive FIFO; its header
  /// an RWD waits in its receive FIFO
  input  wire logic                          rwd_v_i,
  /// its header
  input  wire logic [HdrW-1:0]               rwd_hdr_i,
  // the management port's RECOVER waits (dir_mgmt); its line, words and version (set with tsv)
  /// the management port's RECOVER waits (dir_mgmt)
  input  wire logic                          mg_rec_i,
  /// its line
  input  wire logic [AddrW-1:0]              mg_addr_i,
  /// its words
  input  wire logic [WordN-1:0]              mg_wmask_i,
  /// it sets the line's version
  input  wire logic                          mg_tsv_i,
  /// the version
  input  wire logic [TsW-1:0]                mg_ts_i,
  /// the failed CNs (bit per CN)
  input  wire logic [NumCn-1:0]              failed_i,
  /// the table has a free entry
  input  wire logic                          free_any_i,
  /// the cycle's event is the new message's (EV_NEW)
  input  wire logic                          ev_new_i,
  // a new message waits (RWD or REQ); the one taken is an RWD
  /// a new message waits (RWD or REQ)
  output logic                               n_v_o,
  /// the one taken is an RWD
  output logic                               n_is_rwd_o,
  /// its header (a RECOVER's: the REQ's or RWD's all the same, unused)
  output logic      [HdrW-1:0]               n_hdr_o,
  // its line (the RECOVER's if one waits): global, local; this MN's; in the SCR
  /// its line (the RECOVER's if one waits), global
  output logic      [AddrW-1:0]              n_addr_o,
  /// the line, local
  output logic      [31:0]                   n_lline_o,
  /// the line is this MN's
  output logic                               n_here_o,
  /// the line is in the SCR
  output logic                               n_scr_o,
  /// EV_NEW: the violation (1 ADDR, 2 REGION, 6 BAD_MSG; 0 none: dir_txn's V_* codes)
  output logic      [3:0]                    kind_o,
  /// EV_NEW: the message enters the table
  output logic                               new_o,
  // EV_NEW: the table was full (the message stays), a request taken
  /// EV_NEW: the table was full (the message stays)
  output logic                               full_o,
  /// EV_NEW: a request taken
  output logic                               reqs_o,
  // EV_NEW: the receive FIFOs' heads taken
  /// EV_NEW: the REQ FIFO's head taken
  output logic                               req_r_o,
  /// EV_NEW: the RWD FIFO's head taken
  output logic                               rwd_r_o,
  // the new transaction's fields (dir_tbe's nx_*_i of the same names, written with new_o)
  /// the new transaction is in the LNR
  output logic                               lnr_o,
  /// its opcode (a RECOVER's: WT_WR)
  output logic      [msg_pkg::OPCODE_W-1:0]  op_o,
  /// its source
  output logic      [NodeW-1:0]              src_o,
  /// its core
  output logic      [msg_pkg::CORE_ID_W-1:0] core_o,
  /// its tag
  output logic      [msg_pkg::TAG_W-1:0]     tag_o,
  /// its words
  output logic      [WordN-1:0]              mask_o,
  /// its version
  output logic      [TsW-1:0]                ts_o,
  /// it is a RECOVER
  output logic                               rec_o,
  /// it sets the line's version
  output logic                               setv_o
);

  logic [AddrW-1:0]  n_chunk, n_lwide;
  logic [MnIdxW-1:0] n_mn;
  logic [NodeW-1:0]  n_src;
  msg_pkg::opcode_t  n_op;
  logic              n_lnr_op, n_src_cn;

  // The new message the engine would take: RWD and REQ in turn (after a cycle that took one of the
  // two, the other goes first when both wait), so that neither starves the other.
  logic req_first_q;
  assign n_is_rwd_o = rwd_v_i & ~(req_v_i & req_first_q);
  assign n_v_o      = rwd_v_i | req_v_i;
  // (Its header only: an RWD's data are read where EV_NEW keeps them, so that no flit-wide value
  // is selected at every evaluation.)
  assign n_hdr_o  = n_is_rwd_o ? rwd_hdr_i : req_hdr_i;
  assign n_op     = n_hdr_o[msg_pkg::FIELD_OPCODE_LSB - DataW +: msg_pkg::OPCODE_W];
  assign n_src    = n_hdr_o[msg_pkg::FIELD_SRC_LSB - DataW +: NodeW];
  // The management port's RECOVER is looked up in the table as a new request would be (it goes
  // before new messages).
  assign n_addr_o = mg_rec_i ? mg_addr_i : n_hdr_o[msg_pkg::FIELD_ADDR_LSB - DataW +: AddrW];
  // Global line address -> (MN index, local line, in this MN's range), and the region.
  assign n_chunk  = n_addr_o >> cfg_gran_shift_i;
  assign n_mn     = MnIdxW'(n_chunk) & ~(MnIdxW'('1) << cfg_mn_shift_i);
  assign n_lwide  = ((n_chunk >> cfg_mn_shift_i) << cfg_gran_shift_i) |
                    (n_addr_o & ~(AddrW'('1) << cfg_gran_shift_i));
  assign n_lline_o = 32'(n_lwide);
  assign n_here_o = (n_mn == cfg_mn_idx_i) && (n_lwide < AddrW'(cfg_lines_i));
  assign n_scr_o  = (n_addr_o >= cfg_scr_lo_i) && (n_addr_o < cfg_scr_hi_i);
  assign n_lnr_op = (n_op == msg_pkg::OP_LNR_RD) || (n_op == msg_pkg::OP_LNR_WR);
  assign n_src_cn = n_src < NodeW'(NumCn);

  // The checks (worked out only at EV_NEW).
  always_comb begin
    logic take;
    take   = 1'b0;
    kind_o = '0;
    full_o = 1'b0;
    reqs_o = 1'b0;
    if (ev_new_i) begin
      if (mg_rec_i) begin
        // The management port's RECOVER (checked already: dir_mgmt): a transaction of its own,
        // in the line's order; at its turn the entry decides.
        take = 1'b1;
      end else if (!n_src_cn) begin
        kind_o = csr_pkg::V_BAD_MSG;
        take   = 1'b1;
      end else if (failed_i[n_src[CnW-1:0]]) begin
        // A failed CN's message, left in the receive FIFO: refused.
        kind_o = csr_pkg::V_BAD_MSG;
        take   = 1'b1;
      end else if (!n_here_o) begin
        kind_o = csr_pkg::V_ADDR;
        take   = 1'b1;
      end else if (n_scr_o == n_lnr_op) begin
        kind_o = csr_pkg::V_REGION;
        take   = 1'b1;
      end else if (!free_any_i) begin
        full_o = 1'b1;
      end else begin
        take   = 1'b1;
        reqs_o = 1'b1;
      end
    end
    new_o   = take & (mg_rec_i | kind_o == '0);
    rwd_r_o = take & ~mg_rec_i & n_is_rwd_o;
    req_r_o = take & ~mg_rec_i & ~n_is_rwd_o;
  end

  // A new transaction's fields (a RECOVER is a write of its words by nobody: no answer).
  assign lnr_o  = ~n_scr_o;
  assign op_o   = mg_rec_i ? msg_pkg::OP_WT_WR : n_op;
  assign src_o  = mg_rec_i ? '0 : n_src;
  assign core_o = mg_rec_i ? '0 : n_hdr_o[msg_pkg::FIELD_CORE_LSB - DataW +: msg_pkg::CORE_ID_W];
  assign tag_o  = mg_rec_i ? '0 : n_hdr_o[msg_pkg::FIELD_TAG_LSB - DataW +: msg_pkg::TAG_W];
  assign mask_o = mg_rec_i ? mg_wmask_i : n_hdr_o[msg_pkg::FIELD_MASK_LSB - DataW +: WordN];
  assign ts_o   = mg_rec_i ? mg_ts_i : n_hdr_o[msg_pkg::FIELD_TS_LSB - DataW +: TsW];
  assign rec_o  = mg_rec_i;
  assign setv_o = mg_rec_i & mg_tsv_i;

  always_ff @(posedge clk_i) begin
    if (!rst_ni)                  req_first_q <= 1'b0;
    else if (rwd_r_o || req_r_o)  req_first_q <= rwd_r_o;
  end

endmodule
`default_nettype wire
