`default_nettype none
`include "assert.svh"

// Receive port of the Logging Unit: messages from the CN's switch port, one per cycle, each class
// on its own credits (lu_crd_ret).
//
// The LU receives four classes, each into its own FIFO of CrdPerCls messages, so that a class
// waiting for the LU (REPLs while the SRAM log buffer is full) never holds back another:
//   DKREQ  REPL                                   whole flit (the words are logged)
//   DKRSP  VAL                                    header (flit bits above the data)
//   MGREQ  Interrupt, RecovEnd, FetchLatestVers,  header
//          Early Flush
//   MGRSP  DUMP_GO, DUMP_DONE                     header
// A credit goes back when the message leaves its FIFO. A message of any other class, or with an
// opcode that does not exist, is dropped at once (its credit returned) and reported on bad_o; an
// opcode of a received class that the LU does not handle is reported by the consumer.
module lu_rx #(
  /// receive buffer entries (credits) per class
  parameter int unsigned CrdPerCls = 4,
  localparam int unsigned FlitW    = msg_pkg::FLIT_W,
  localparam int unsigned HdrW     = msg_pkg::FLIT_W - msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned NumCls   = msg_pkg::NUM_CLASSES
) (
  /// LU clock
  input  wire logic              clk_i,
  /// synchronous reset, active low
  input  wire logic              rst_ni,
  /// the LU is alive; low: arriving messages are lost, nothing leaves, no credit returns
  input  wire logic              en_i,
  /// a message arrives from the link
  input  wire logic              rx_valid_i,
  /// the arriving message (msg_pkg::msg_t)
  input  wire logic [FlitW-1:0]  rx_msg_i,
  /// per class: a credit returned to the link partner (registered)
  output logic      [NumCls-1:0] rx_crd_o,
  /// a message was dropped: class not received by an LU, or no such opcode (one cycle)
  output logic                   bad_o,
  /// DKREQ head (REPL) valid
  output logic                   dkq_valid_o,
  /// DKREQ head taken
  input  wire logic              dkq_ready_i,
  /// DKREQ head: the whole flit
  output logic      [FlitW-1:0]  dkq_msg_o,
  /// DKRSP head (VAL) valid
  output logic                   dks_valid_o,
  /// DKRSP head taken
  input  wire logic              dks_ready_i,
  /// DKRSP head: the header (flit bits FlitW-1 : data width)
  output logic      [HdrW-1:0]   dks_hdr_o,
  /// MGREQ head valid
  output logic                   mgq_valid_o,
  /// MGREQ head taken
  input  wire logic              mgq_ready_i,
  /// MGREQ head: the header
  output logic      [HdrW-1:0]   mgq_hdr_o,
  /// MGRSP head valid
  output logic                   mgs_valid_o,
  /// MGRSP head taken
  input  wire logic              mgs_ready_i,
  /// MGRSP head: the header
  output logic      [HdrW-1:0]   mgs_hdr_o,
  /// nothing buffered, no credit pending
  output logic                   idle_o
);
  localparam int unsigned DataW = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W;

  msg_pkg::opcode_t  op;
  msg_pkg::class_t   cls;
  logic              ok, in_dkq, in_dks, in_mgq, in_mgs;
  logic              dkq_in_ready, dks_in_ready, mgq_in_ready, mgs_in_ready;
  logic [NumCls-1:0] ret;
  logic              crd_idle;
  logic              dkq_empty, dks_empty, mgq_empty, mgs_empty;
  localparam int unsigned CntW = $clog2(CrdPerCls + 1);
  logic [CntW-1:0]   dkq_cnt_unused, dks_cnt_unused, mgq_cnt_unused, mgs_cnt_unused;

  assign op     = rx_msg_i[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::OPCODE_W];
  assign cls    = msg_pkg::msg_class(op);
  assign ok     = en_i & rx_valid_i & msg_pkg::msg_op_valid(op);
  assign in_dkq = ok & (cls == msg_pkg::CLS_DKREQ);
  assign in_dks = ok & (cls == msg_pkg::CLS_DKRSP);
  assign in_mgq = ok & (cls == msg_pkg::CLS_MGREQ);
  assign in_mgs = ok & (cls == msg_pkg::CLS_MGRSP);
  assign bad_o  = en_i & rx_valid_i & ~(in_dkq | in_dks | in_mgq | in_mgs);

  always_comb begin
    ret = '0;
    ret[msg_pkg::CLS_DKREQ] = dkq_valid_o & dkq_ready_i & en_i;
    ret[msg_pkg::CLS_DKRSP] = dks_valid_o & dks_ready_i & en_i;
    ret[msg_pkg::CLS_MGREQ] = mgq_valid_o & mgq_ready_i & en_i;
    ret[msg_pkg::CLS_MGRSP] = mgs_valid_o & mgs_ready_i & en_i;
    // A dropped message of a class without a FIFO: return its credit. One with an opcode that
    // does not exist names no class, so no credit can be returned for it (the sender's msg_check
    // refuses such messages before they are sent).
    if (bad_o && msg_pkg::msg_op_valid(op)) ret[cls] = 1'b1;
  end

  lu_crd_ret #(.CrdPerCls(CrdPerCls)) u_crd (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .en_i   (en_i),
    .ret_i  (ret),
    .crd_o  (rx_crd_o),
    .idle_o (crd_idle)
  );

  fifo #(.Depth(CrdPerCls), .Width(FlitW)) u_dkq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_dkq), .in_ready_o (dkq_in_ready), .in_data_i (rx_msg_i),
    .out_valid_o (dkq_valid_o), .out_ready_i (dkq_ready_i & en_i), .out_data_o (dkq_msg_o),
    .count_o (dkq_cnt_unused), .empty_o (dkq_empty)
  );
  fifo #(.Depth(CrdPerCls), .Width(HdrW)) u_dks (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_dks), .in_ready_o (dks_in_ready), .in_data_i (rx_msg_i[FlitW-1:DataW]),
    .out_valid_o (dks_valid_o), .out_ready_i (dks_ready_i & en_i), .out_data_o (dks_hdr_o),
    .count_o (dks_cnt_unused), .empty_o (dks_empty)
  );
  fifo #(.Depth(CrdPerCls), .Width(HdrW)) u_mgq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_mgq), .in_ready_o (mgq_in_ready), .in_data_i (rx_msg_i[FlitW-1:DataW]),
    .out_valid_o (mgq_valid_o), .out_ready_i (mgq_ready_i & en_i), .out_data_o (mgq_hdr_o),
    .count_o (mgq_cnt_unused), .empty_o (mgq_empty)
  );
  fifo #(.Depth(CrdPerCls), .Width(HdrW)) u_mgs (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (in_mgs), .in_ready_o (mgs_in_ready), .in_data_i (rx_msg_i[FlitW-1:DataW]),
    .out_valid_o (mgs_valid_o), .out_ready_i (mgs_ready_i & en_i), .out_data_o (mgs_hdr_o),
    .count_o (mgs_cnt_unused), .empty_o (mgs_empty)
  );

  assign idle_o = crd_idle & dkq_empty & dks_empty & mgq_empty & mgs_empty;

  // The link partner sends only on credits, so a class's FIFO always has room.
  `ASSERT(dkq_no_overflow, !in_dkq || dkq_in_ready)
  `ASSERT(dks_no_overflow, !in_dks || dks_in_ready)
  `ASSERT(mgq_no_overflow, !in_mgq || mgq_in_ready)
  `ASSERT(mgs_no_overflow, !in_mgs || mgs_in_ready)

endmodule
`default_nettype wire
