`default_nettype none
`include "assert.svh"

// The CXL switch: NumCn compute-node ports and NumMn memory-node ports, one message (flit) per
// port per cycle each way, every message class on its own credits.
//
//   rx link -> sw_ingress (route lookup, shared buffer with a virtual output queue per
//   (output, class), per-class credits) -> islip_alloc (one input per output, one output per
//   input, per cycle) -> crossbar -> output register -> tx link, while the output holds a credit
//   of the message's class from its link partner.
//
// Virtual output queues remove head-of-line blocking: a message for a busy output or a class
// without credit never holds back one behind it. Every message is one flit, so an output's
// bandwidth is shared by messages, not by bytes: a stream of short messages keeps its share
// against a stream of data-carrying ones.
//
// Port p is node p for p < NumCn (CN p) and node MN_BASE + p - NumCn otherwise. The routing table
// (destination node id -> output port) is written through the CSR port at initialization.
//
// CSR map (32-bit registers, word addresses; a response one cycle after the request):
//   0x000 + n  ROUTE[n], n < 2^NODE_ID_W: bit 31 valid, bits PortW-1:0 output port. Writing an
//              output port that does not exist is refused with csr_err_o.
//   0x100      SHAPE (read only): NumCn in bits 7:0, NumMn in bits 15:8
//   0x101      SUNK (read only): messages sunk because their destination had no route
//   0x102      CSR_ERRORS (read only): refused CSR accesses
// Any other address, or a write to a read-only register, is refused: csr_err_o and CSR_ERRORS+1.
module cxl_switch #(
  /// number of compute-node ports
  parameter int unsigned NumCn        = 4,
  /// number of memory-node ports
  parameter int unsigned NumMn        = 2,
  /// credits (input buffer entries) per message class per port
  parameter int unsigned CrdPerCls    = 4,
  /// largest number of credits per class a link partner may grant an output port
  parameter int unsigned MaxTxCredits = 64,
  /// iSLIP iterations per cycle
  parameter int unsigned Iters        = 2,
  localparam int unsigned NumPorts    = NumCn + NumMn,
  localparam int unsigned FlitW       = msg_pkg::FLIT_W,
  localparam int unsigned NumCls      = msg_pkg::NUM_CLASSES,
  localparam int unsigned PortW       = (NumPorts > 1) ? $clog2(NumPorts) : 1,
  localparam int unsigned CsrAddrW    = 12
) (
  /// switch clock
  input  wire logic                         clk_i,
  /// synchronous reset, active low
  input  wire logic                         rst_ni,
  /// per port: a message arrives from the link
  input  wire logic [NumPorts-1:0]          rx_valid_i,
  /// per port: the arriving message (bits p*FLIT_W +: FLIT_W)
  input  wire logic [NumPorts*FlitW-1:0]    rx_msg_i,
  /// per port and class: a credit returned to the link partner (bit p*NUM_CLASSES + c)
  output logic      [NumPorts*NumCls-1:0]   rx_crd_o,
  /// per port: a message leaves toward the link
  output logic      [NumPorts-1:0]          tx_valid_o,
  /// per port: the leaving message
  output logic      [NumPorts*FlitW-1:0]    tx_msg_o,
  /// per port and class: a credit returned by the link partner
  input  wire logic [NumPorts*NumCls-1:0]   tx_crd_i,
  /// CSR request
  input  wire logic                         csr_valid_i,
  /// CSR request is a write
  input  wire logic                         csr_write_i,
  /// CSR word address
  input  wire logic [CsrAddrW-1:0]          csr_addr_i,
  /// CSR write data
  input  wire logic [31:0]                  csr_wdata_i,
  /// CSR response valid (the cycle after the request)
  output logic                              csr_rvalid_o,
  /// CSR read data
  output logic      [31:0]                  csr_rdata_o,
  /// CSR access refused (undefined address, read-only register, route to no port)
  output logic                              csr_err_o,
  /// nothing in the switch will change until an input changes
  output logic                              idle_o
);
  localparam int unsigned NumNodes = 1 << msg_pkg::NODE_ID_W;
  localparam int unsigned ClsW     = $clog2(NumCls);
  localparam int unsigned TxCrdW   = $clog2(MaxTxCredits + 1);

  if (NumCn < 2 || NumCn > msg_pkg::MAX_CN) begin : g_bad_cn
    $error("cxl_switch: NumCn must be in 2..MAX_CN");
  end
  if (NumMn < 2 || NumMn > msg_pkg::MAX_MN) begin : g_bad_mn
    $error("cxl_switch: NumMn must be in 2..MAX_MN");
  end

  // ---- routing table and CSRs ----
  logic [NumNodes-1:0]       route_v_q, route_v_d;
  logic [NumNodes*PortW-1:0] route_o_q, route_o_d;
  logic [31:0]               sunk_q, sunk_d, csr_errs_q, csr_errs_d;
  logic                      csr_rvalid_q, csr_err_q, csr_err_d;
  logic [31:0]               csr_rdata_q, csr_rdata_d;
  logic [NumPorts-1:0]       sunk;

  always_comb begin
    route_v_d   = route_v_q;
    route_o_d   = route_o_q;
    csr_rdata_d = '0;
    csr_err_d   = 1'b0;
    if (csr_valid_i) begin
      if (csr_addr_i < CsrAddrW'(NumNodes)) begin
        if (csr_write_i) begin
          if (csr_wdata_i[31] && csr_wdata_i[30:0] >= 31'(NumPorts)) begin
            csr_err_d = 1'b1;
          end else begin
            route_v_d[csr_addr_i[msg_pkg::NODE_ID_W-1:0]] = csr_wdata_i[31];
            route_o_d[csr_addr_i[msg_pkg::NODE_ID_W-1:0]*PortW +: PortW] = csr_wdata_i[PortW-1:0];
          end
        end else begin
          csr_rdata_d = {route_v_q[csr_addr_i[msg_pkg::NODE_ID_W-1:0]], {(31-PortW){1'b0}},
                         route_o_q[csr_addr_i[msg_pkg::NODE_ID_W-1:0]*PortW +: PortW]};
        end
      end else if (!csr_write_i && csr_addr_i == CsrAddrW'('h100)) begin
        csr_rdata_d = {16'd0, 8'(NumMn), 8'(NumCn)};
      end else if (!csr_write_i && csr_addr_i == CsrAddrW'('h101)) begin
        csr_rdata_d = sunk_q;
      end else if (!csr_write_i && csr_addr_i == CsrAddrW'('h102)) begin
        csr_rdata_d = csr_errs_q;
      end else begin
        csr_err_d = 1'b1;
      end
    end
    csr_errs_d = csr_errs_q + {31'd0, csr_err_d};
    sunk_d     = sunk_q;
    for (int p = 0; p < NumPorts; p++) sunk_d = sunk_d + {31'd0, sunk[p]};
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      route_v_q    <= '0;
      route_o_q    <= '0;
      sunk_q       <= '0;
      csr_errs_q   <= '0;
      csr_rvalid_q <= 1'b0;
      csr_err_q    <= 1'b0;
      csr_rdata_q  <= '0;
    end else begin
      route_v_q    <= route_v_d;
      route_o_q    <= route_o_d;
      sunk_q       <= sunk_d;
      csr_errs_q   <= csr_errs_d;
      csr_rvalid_q <= csr_valid_i;
      csr_err_q    <= csr_err_d;
      csr_rdata_q  <= csr_rdata_d;
    end
  end

  assign csr_rvalid_o = csr_rvalid_q;
  assign csr_rdata_o  = csr_rdata_q;
  assign csr_err_o    = csr_err_q;

  // ---- egress credits, per output and class ----
  logic [NumPorts*NumCls-1:0] out_crd_avail, take;

  for (genvar k = 0; k < NumPorts * NumCls; k++) begin : g_txcrd
    logic [TxCrdW-1:0] left_unused;
    credit_cnt #(
      .MaxCredits  (MaxTxCredits),
      .InitCredits (0)
    ) u_crd (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .crd_give_i  (tx_crd_i[k]),
      .crd_take_i  (take[k]),
      .crd_left_o  (left_unused),
      .crd_avail_o (out_crd_avail[k])
    );
  end

  // ---- input ports ----
  logic [NumPorts*NumPorts-1:0] req, match_unused;
  logic [NumPorts-1:0]          in_match_valid, out_match_valid, in_idle;
  logic [NumPorts*PortW-1:0]    in_match_idx, out_match_idx;
  logic [FlitW-1:0]             deq_msg [NumPorts];
  logic [ClsW-1:0]              deq_cls [NumPorts];

  for (genvar p = 0; p < NumPorts; p++) begin : g_in
    logic [msg_pkg::NODE_ID_W-1:0] dst;
    assign dst = rx_msg_i[p*FlitW + msg_pkg::FIELD_DST_LSB +: msg_pkg::NODE_ID_W];

    sw_ingress #(
      .NumOut    (NumPorts),
      .CrdPerCls (CrdPerCls)
    ) u_in (
      .clk_i            (clk_i),
      .rst_ni           (rst_ni),
      .rx_valid_i       (rx_valid_i[p]),
      .rx_msg_i         (rx_msg_i[p*FlitW +: FlitW]),
      .rx_route_valid_i (route_v_q[dst]),
      .rx_route_out_i   (route_o_q[dst*PortW +: PortW]),
      .rx_crd_o         (rx_crd_o[p*NumCls +: NumCls]),
      .rx_sunk_o        (sunk[p]),
      .out_crd_avail_i  (out_crd_avail),
      .req_o            (req[p*NumPorts +: NumPorts]),
      .match_valid_i    (in_match_valid[p]),
      .match_out_i      (in_match_idx[p*PortW +: PortW]),
      .deq_msg_o        (deq_msg[p]),
      .deq_cls_o        (deq_cls[p]),
      .idle_o           (in_idle[p])
    );
  end

  // ---- allocation ----
  islip_alloc #(
    .NumIn  (NumPorts),
    .NumOut (NumPorts),
    .Iters  (Iters)
  ) u_alloc (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (req),
    .en_i              (1'b1),
    .match_o           (match_unused),
    .in_match_valid_o  (in_match_valid),
    .in_match_idx_o    (in_match_idx),
    .out_match_valid_o (out_match_valid),
    .out_match_idx_o   (out_match_idx)
  );

  // ---- crossbar and output registers ----
  logic [NumPorts-1:0]       tx_valid_q;
  logic [FlitW-1:0]          tx_msg_q [NumPorts];
  logic [FlitW-1:0]          xbar     [NumPorts];
  logic [ClsW-1:0]           xbar_cls [NumPorts];

  always_comb begin
    take = '0;
    for (int o = 0; o < NumPorts; o++) begin
      xbar[o]     = '0;
      xbar_cls[o] = '0;
      for (int i = 0; i < NumPorts; i++) begin
        if (out_match_idx[o*PortW +: PortW] == PortW'(i)) begin
          xbar[o]     = deq_msg[i];
          xbar_cls[o] = deq_cls[i];
        end
      end
      take[o*NumCls + 32'(xbar_cls[o])] = out_match_valid[o];
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) tx_valid_q <= '0;
    else         tx_valid_q <= out_match_valid;
  end

  always_ff @(posedge clk_i) begin
    for (int o = 0; o < NumPorts; o++)
      if (out_match_valid[o]) tx_msg_q[o] <= xbar[o];
  end

  always_comb begin
    for (int o = 0; o < NumPorts; o++) tx_msg_o[o*FlitW +: FlitW] = tx_msg_q[o];
  end

  assign tx_valid_o = tx_valid_q;
  assign idle_o     = &in_idle & ~|tx_valid_q & ~csr_rvalid_q;

  // A message leaves an output only with a credit of its class (credit_cnt also asserts it).
  `ASSERT(tx_has_credit, (take & ~out_crd_avail) == '0)

endmodule
`default_nettype wire
