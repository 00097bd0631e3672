`default_nettype none
`include "assert.svh"

// The CXL switch: NumCn compute-node ports and NumMn memory-node ports, one message (flit) per
// port per cycle each way, every message class on its own credits, and DIKTAMO's failure
// detection (sw_viral).
//
//   rx link -> sw_ingress (route lookup, shared buffer with a virtual output queue per
//   (output, class), per-class credits) -> islip_alloc (one input per output, one output per
//   input, per cycle) -> crossbar column -> output register -> tx link, while the output holds a
//   credit of the message's class from its link partner (sw_egress: credits and credit turns per
//   class, and from them the allocator's requests for the output). The ports move entry numbers
//   and decisions; the words themselves (buffer memories, crossbar columns, output registers) are
//   sw_words'.
//
// A module per input port (sw_ingress), per output port (sw_egress) and per crossbar column with its
// output register (sw_xbar), and the performance counters a module per port (sw_perf_port), so
// that hierarchical synthesis maps each once for all ports (constraints/cxl_switch.flow).
//
// Queue states by output. The outputs need, per (output, class), the inputs whose queue for it
// holds a message (holders): the inputs' queue states turned around. In hardware that is wiring.
// In simulation it is NumPorts x NumPorts x NUM_CLASSES single-bit moves every cycle (11 264 at
// 16 + 16), so the simulation form keeps its own copy of the states by output, updated from each
// input's announced changes (sw_ingress ne_set_* / ne_clr_*: at most two bits per input per
// cycle); synthesis (SYNTHESIS defined) and the FIFO variant (whose heads change in ways it does
// not announce) wire the turned-around states. An assertion checks the copy against the states
// (the bits each cycle changes, and one column in turn); the fabric_top_c4m2_synth model
// (Verilated with SYNTHESIS defined) and tb/test_fabric.c check that the switch behaves the same
// cycle for cycle either way.
//
// Two pipeline stages. Allocation (cycle c): credits and turns -> requests -> iSLIP -> class pick;
// the matched message leaves its queue, its output's credit and turn are taken, and the match is
// registered. Traversal (cycle c + 1): the message is read out of its input's buffer memory and the
// crossbar takes it to the output register (sw_words). The allocation of cycle c + 1 sees the buffers and
// credits as cycle c left them, so nothing is allocated twice. A message sampled at an input at
// edge c leaves in the output register at edge c + 2: two cycles port to port at zero load.
//
// Virtual output queues remove head-of-line blocking: a message for a busy output or a class
// without credit never holds back one behind it. Every message is one flit, so an output's
// bandwidth is shared by messages, not by bytes: a stream of short messages keeps its share
// against a stream of data-carrying ones.
//
// Credit turns. When an output holds a single credit of a class, it goes to one input: per
// (output, class) a round-robin pointer names the input whose turn it is (the first holding such a
// message at or after the pointer), only that input may request the output for the class, and the
// pointer moves past it when it sends one. Without turns, an input whose class gets a credit back
// only now and then could lose it, each time, to another input of the same class that iSLIP
// happens to favour (credit starvation). With them the owner's request, once up, stays up until
// served: while it owns the turn either the output holds two or more credits (one send by another
// input leaves one) or one, which only the owner may use; so iSLIP's bound applies, and the turn
// reaches every holder in turn. With two or more credits every holder may request, so turns cost
// no throughput when credits are plentiful (exclusive turns leave each output one candidate per
// class: 0.69 to 0.79 of line rate under single-class uniform traffic at 4 + 4, measured).
//
// Failures (sw_viral). A fenced CN port requests nothing and drops what arrives and what it
// buffered; messages for it are still switched, at full rate and without credits, and sunk at its
// output, so no sender waits on a dead node; its egress credits restart from zero when it is
// re-admitted. The switch never answers for a failed CN. MSIs to the Configuration Manager take
// the CM's output in a cycle it holds an MGREQ credit, ahead of switched traffic:
//   MSI: src = subject = the failed CN, dst = the CM.
// The MSI is acknowledged to sw_viral when it leaves the output register's input in the traversal
// stage; if the CM was fenced meanwhile it is not, and goes again to the next CM.
//
// Port p is node p for p < NumCn (CN p) and node MN_BASE + p - NumCn otherwise. The routing table
// (destination node id -> output port) is written through the CSR port at initialization; then
// CTRL.ENABLE starts every port: it advertises its credits, and failure detection starts.
//
// CSR map: csr_pkg::SW_CSR_* (rtl/include/csrs.toml, docs/csrs.md): the routing table, SHAPE,
// SUNK, ERRORS, CTRL, DROPPED, SUNK_FENCED and CRD_ADV here, failure detection in sw_viral,
// performance counters in sw_perf (when PerfCnt). 32-bit registers; the response comes one cycle
// after the request. Any other address, or an access of the wrong direction, is refused: csr_err_o
// and ERRORS + 1.
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
  parameter int unsigned Iters        = 3,
  /// SILENCE_LIMIT after reset (cycles; 0 = rule off)
  parameter int unsigned SilenceReset = 2048,
  /// ACCEPT_LIMIT after reset (cycles; 0 = rule off)
  parameter int unsigned AcceptReset  = 16384,
  /// build the performance counters
  parameter bit          PerfCnt      = 1'b1,
  /// input ports with virtual output queues (sw_ingress); 0: one FIFO per class (sw_ingress_fifo,
  /// head-of-line blocking, for comparison)
  parameter bit          Voq          = 1'b1,
  localparam int unsigned NumPorts    = NumCn + NumMn,
  localparam int unsigned FlitW       = msg_pkg::FLIT_W,
  localparam int unsigned NumCls      = msg_pkg::NUM_CLASSES,
  localparam int unsigned PortW       = (NumPorts > 1) ? $clog2(NumPorts) : 1,
  localparam int unsigned CsrAddrW    = csr_pkg::SW_CSR_ADDR_W
) (
  /// switch clock
  input  wire logic                         clk_i,
  /// synchronous reset, active low
  input  wire logic                         rst_ni,
  /// the platform's cycle count (failure-detection timers)
  input  wire logic [31:0]                  now_i,
  /// per port: a message arrives from the link
  input  wire logic [NumPorts-1:0]          rx_valid_i,
  /// per port: the arriving message (bits p*FLIT_W +: FLIT_W)
  input  wire logic [NumPorts*FlitW-1:0]    rx_msg_i,
  /// per port: a link-layer heartbeat arrives (the node is alive; no message)
  input  wire logic [NumPorts-1:0]          rx_hb_i,
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
  /// CSR access refused (undefined address, wrong direction, bad value)
  output logic                              csr_err_o,
  /// a failure timer runs (for a simulator that skips idle cycles)
  output logic                              timer_valid_o,
  /// cycles until the earliest failure timer expires
  output logic      [31:0]                  timer_left_o,
  /// nothing in the switch will change until an input other than now_i changes, or for
  /// timer_left_o cycles while timer_valid_o
  output logic                              idle_o
);
  localparam int unsigned NumNodes = 1 << msg_pkg::NODE_ID_W;
  localparam int unsigned ClsW     = $clog2(NumCls);
  localparam int unsigned CnW      = $clog2(NumCn);
  localparam int unsigned NodeW    = msg_pkg::NODE_ID_W;
  localparam int unsigned NumOc    = NumPorts * NumCls;
  localparam int unsigned EntryW   = $clog2(CrdPerCls * NumCls);
  localparam int unsigned AdvW     = $clog2(CrdPerCls + 1);

  if (NumCn < 2 || NumCn > msg_pkg::MAX_CN) begin : g_bad_cn
    $error("cxl_switch: NumCn must be in 2..MAX_CN");
  end
  if (NumMn < 2 || NumMn > msg_pkg::MAX_MN) begin : g_bad_mn
    $error("cxl_switch: NumMn must be in 2..MAX_MN");
  end
  // The route of node n is at address n: the node is the address's low bits.
  if (csr_pkg::SW_CSR_ROUTE_BASE != 0 || csr_pkg::SW_CSR_ROUTE_NODE_STRIDE != 1 ||
      csr_pkg::SW_CSR_ROUTE_NODE_N != NumNodes) begin : g_bad_route_map
    $error("cxl_switch: ROUTE[n] must be at address n, for every node id");
  end

  // ---- switch registers: routes, CTRL, counters ----
  logic [NumNodes-1:0]       route_v_q, route_v_d;
  logic [NumNodes*PortW-1:0] route_o_q, route_o_d;
  logic [31:0]               sunk_q, sunk_d, csr_errs_q, csr_errs_d, dropped_q, dropped_d;
  logic [31:0]               sunk_f_q, sunk_f_d;
  logic                      enable_q, start_q, start_d;
  logic [AdvW-1:0]           adv_q, adv_d;
  logic                      csr_rvalid_q, csr_err_q, csr_err_d;
  logic [31:0]               csr_rdata_q, csr_rdata_d;
  logic                      own_hit, own_err;
  logic [31:0]               own_rdata;
  logic                      vir_hit, vir_err, perf_hit, perf_err;
  logic [31:0]               vir_rdata, perf_rdata;
  logic [NumPorts-1:0]       sunk, sunk_f;
  logic [2*NumPorts-1:0]     drop;
  logic [NodeW-1:0]          csr_node;

  assign csr_node = csr_addr_i[NodeW-1:0];

  always_comb begin
    route_v_d = route_v_q;
    route_o_d = route_o_q;
    start_d   = 1'b0;
    adv_d     = adv_q;
    own_hit   = 1'b1;
    own_err   = 1'b0;
    own_rdata = '0;
    if (!csr_valid_i) begin
      own_hit = 1'b0;
    end else if (csr_addr_i < csr_pkg::SW_CSR_ROUTE_BASE + CsrAddrW'(NumNodes)) begin
      if (!csr_write_i) begin
        own_rdata = (32'(route_v_q[csr_node]) << csr_pkg::SW_ROUTE_VALID_LSB) |
                    (32'(route_o_q[csr_node*PortW +: PortW]) << csr_pkg::SW_ROUTE_PORT_LSB);
      end else if ((csr_wdata_i & ~(csr_pkg::SW_ROUTE_VALID_MASK | csr_pkg::SW_ROUTE_PORT_MASK)) != '0 ||
                   (csr_wdata_i[csr_pkg::SW_ROUTE_VALID_LSB] &&
                    csr_wdata_i[csr_pkg::SW_ROUTE_PORT_LSB +: csr_pkg::SW_ROUTE_PORT_W] >= 8'(NumPorts))) begin
        own_err = 1'b1;
      end else begin
        route_v_d[csr_node]                = csr_wdata_i[csr_pkg::SW_ROUTE_VALID_LSB];
        route_o_d[csr_node*PortW +: PortW] = csr_wdata_i[csr_pkg::SW_ROUTE_VALID_LSB] ?
                                             csr_wdata_i[csr_pkg::SW_ROUTE_PORT_LSB +: PortW] : '0;
      end
    end else if (csr_addr_i == csr_pkg::SW_CSR_SHAPE) begin
      own_err   = csr_write_i;
      own_rdata = csr_write_i ? '0 : ((32'(CrdPerCls) << csr_pkg::SW_SHAPE_CRD_PER_CLS_LSB) &
                                      csr_pkg::SW_SHAPE_CRD_PER_CLS_MASK) |
                                     ((32'(NumMn) << csr_pkg::SW_SHAPE_NUM_MN_LSB) & csr_pkg::SW_SHAPE_NUM_MN_MASK) |
                                     ((32'(NumCn) << csr_pkg::SW_SHAPE_NUM_CN_LSB) & csr_pkg::SW_SHAPE_NUM_CN_MASK);
    end else if (csr_addr_i == csr_pkg::SW_CSR_SUNK || csr_addr_i == csr_pkg::SW_CSR_ERRORS ||
                 csr_addr_i == csr_pkg::SW_CSR_DROPPED || csr_addr_i == csr_pkg::SW_CSR_SUNK_FENCED) begin
      own_err = csr_write_i;
      if (!csr_write_i)
        own_rdata = (csr_addr_i == csr_pkg::SW_CSR_SUNK)    ? sunk_q :
                    (csr_addr_i == csr_pkg::SW_CSR_ERRORS)  ? csr_errs_q :
                    (csr_addr_i == csr_pkg::SW_CSR_DROPPED) ? dropped_q : sunk_f_q;
    end else if (csr_addr_i == csr_pkg::SW_CSR_CTRL) begin
      if (!csr_write_i)
        own_rdata = 32'(enable_q) << csr_pkg::SW_CTRL_ENABLE_LSB;
      else if ((csr_wdata_i & ~csr_pkg::SW_CTRL_ENABLE_MASK) != '0 ||
               (enable_q && !csr_wdata_i[csr_pkg::SW_CTRL_ENABLE_LSB]))
        own_err = 1'b1;
      else
        start_d = csr_wdata_i[csr_pkg::SW_CTRL_ENABLE_LSB] & ~enable_q;
    end else if (csr_addr_i == csr_pkg::SW_CSR_CRD_ADV) begin
      if (!csr_write_i)
        own_rdata = 32'(adv_q);
      else if (enable_q || csr_wdata_i == '0 || csr_wdata_i > 32'(CrdPerCls))
        own_err = 1'b1;
      else
        adv_d = AdvW'(csr_wdata_i);
    end else begin
      own_hit = 1'b0;
    end
  end

  always_comb begin
    csr_rdata_d = own_rdata | vir_rdata;
    csr_err_d   = csr_valid_i & (~(own_hit | vir_hit | perf_hit) | own_err | vir_err | perf_err);
    csr_errs_d  = csr_errs_q + {31'd0, csr_err_d};
    // (Population counts: one host instruction each in a Verilated model, where a loop over the
    // ports was three additions per port and counter at every evaluation.)
    sunk_d      = sunk_q + 32'($countones(sunk));
    sunk_f_d    = sunk_f_q + 32'($countones(sunk_f));
    dropped_d   = dropped_q + 32'($countones(drop));
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      route_v_q    <= '0;
      route_o_q    <= '0;
      sunk_q       <= '0;
      sunk_f_q     <= '0;
      dropped_q    <= '0;
      csr_errs_q   <= '0;
      enable_q     <= 1'b0;
      start_q      <= 1'b0;
      adv_q        <= AdvW'(CrdPerCls);
      csr_rvalid_q <= 1'b0;
      csr_err_q    <= 1'b0;
      csr_rdata_q  <= '0;
    end else begin
      route_v_q    <= route_v_d;
      route_o_q    <= route_o_d;
      sunk_q       <= sunk_d;
      sunk_f_q     <= sunk_f_d;
      dropped_q    <= dropped_d;
      csr_errs_q   <= csr_errs_d;
      enable_q     <= enable_q | start_d;
      start_q      <= start_d;
      adv_q        <= adv_d;
      csr_rvalid_q <= csr_valid_i;
      csr_err_q    <= csr_err_d;
      csr_rdata_q  <= csr_err_d ? '0 : csr_rdata_d;
    end
  end

  assign csr_rvalid_o = csr_rvalid_q;
  // (The performance counters answer a read from a register of their own: sw_perf.)
  assign csr_rdata_o  = csr_rdata_q | perf_rdata;
  assign csr_err_o    = csr_err_q;

  // ---- failure detection ----
  logic [NumCn-1:0]    fenced_cn, restart_cn, act, waiting, sent;
  logic                msi_valid, inject, msi_ack;
  logic [CnW-1:0]      msi_ack_subject;
  logic [CnW-1:0]      msi_cm, msi_subject;
  logic                vir_idle;
  logic [NumPorts-1:0] fenced, restart;
  logic [NumOc-1:0]    out_crd_avail, starve;
  logic [NumPorts-1:0] tx_valid_d, out_wait;
  logic [NumPorts-1:0]       in_match_valid, out_match_valid;
  logic [NumPorts*PortW-1:0] in_match_idx, out_match_idx;

  // Per port: some class's credit came back this cycle (worked out once: the failure detector's
  // activity and sw_ports' credit counts read it; none looked at in a cycle without any).
  logic [NumPorts-1:0] crd_back;
  always_comb begin
    crd_back = '0;
    if (tx_crd_i != '0)
      for (int p = 0; p < NumPorts; p++) crd_back[p] = tx_crd_i[p*NumCls +: NumCls] != '0;
  end

  always_comb begin
    for (int i = 0; i < NumCn; i++) begin
      act[i]     = rx_valid_i[i] | rx_hb_i[i] | crd_back[i];
      waiting[i] = out_wait[i];
      sent[i]    = tx_valid_d[i];
    end
  end

  sw_viral #(
    .NumCn        (NumCn),
    .SilenceReset (SilenceReset),
    .AcceptReset  (AcceptReset)
  ) u_viral (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .now_i         (now_i),
    .start_i       (start_q),
    .act_i         (act),
    .wait_i        (waiting),
    .sent_i        (sent),
    .csr_valid_i   (csr_valid_i),
    .csr_write_i   (csr_write_i),
    .csr_addr_i    (csr_addr_i),
    .csr_wdata_i   (csr_wdata_i),
    .csr_hit_o     (vir_hit),
    .csr_err_o     (vir_err),
    .csr_rdata_o   (vir_rdata),
    .fenced_o      (fenced_cn),
    .restart_o     (restart_cn),
    .msi_valid_o   (msi_valid),
    .msi_cm_o      (msi_cm),
    .msi_subject_o (msi_subject),
    .msi_ack_i         (msi_ack),
    .msi_ack_subject_i (msi_ack_subject),
    .timer_valid_o (timer_valid_o),
    .timer_left_o  (timer_left_o),
    .idle_o        (vir_idle)
  );

  assign fenced  = {{NumMn{1'b0}}, fenced_cn};
  assign restart = {{NumMn{1'b0}}, restart_cn} | {NumPorts{start_q}};

  // ---- MSI injection: the CM's output is kept from the allocator in a cycle the MSI takes it; one
  // MSI at a time is in the traversal stage ----
  logic [NumPorts-1:0] msi_busy, msi_sent;

  assign inject = msi_valid & ~|msi_busy & out_crd_avail[32'(msi_cm)*NumCls + 32'(msg_pkg::CLS_MGREQ)];

  // The allocator's requests, column-major (bit o*NumPorts + i), as the outputs build them; the
  // output an MSI takes requests nothing.
  logic [NumPorts*NumPorts-1:0] eg_req, req_alloc, match_unused;
  logic [NumPorts-1:0]          alloc_msi;

  always_comb begin
    alloc_msi = '0;
    req_alloc = eg_req;
    if (inject) begin
      alloc_msi[32'(msi_cm)] = 1'b1;
      req_alloc[32'(msi_cm)*NumPorts +: NumPorts] = '0;
    end
  end

  // ---- allocation stage ----
  islip_alloc #(
    .NumIn  (NumPorts),
    .NumOut (NumPorts),
    .Iters  (Iters)
  ) u_alloc (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_i             (req_alloc),
    .en_i              (1'b1),
    .match_o           (match_unused),
    .in_match_valid_o  (in_match_valid),
    .in_match_idx_o    (in_match_idx),
    .out_match_valid_o (out_match_valid),
    .out_match_idx_o   (out_match_idx)
  );

  // ---- the ports: what the allocation stage, the traversal stage and the port counters need of
  // them (the words move in sw_words) ----
  logic [NumPorts-1:0]        in_idle, in_wr;
  logic [NumOc-1:0]           stall;
  logic [NumPorts*FlitW-1:0]  deq_msg_v;
  logic [NumPorts*EntryW-1:0] in_wr_entry, in_rd_entry;
  logic [NumPorts-1:0]       eg_busy;
  logic [NumPorts*PortW-1:0] eg_sel;
  logic [NumPorts*ClsW-1:0]  tx_cls;
  logic [NumPorts*8-1:0]     tx_bytes;
  logic [CnW-1:0]            s2_subject_q;

  always_ff @(posedge clk_i) begin
    if (inject) s2_subject_q <= msi_subject;
  end


  // A module per input port (sw_ingress) and per output port (sw_egress), so that hierarchical
  // synthesis maps each once for all ports (constraints/cxl_switch.flow); in simulation with
  // virtual output queues, sw_ports, the same machine as procedural blocks that skip idle ports
  // (its header says why; the fabric_top_c4m2_synth model and tb/test_fabric.c check that the
  // switch behaves the same cycle for cycle either way).
`ifdef SYNTHESIS
  localparam bit PortsSim = 1'b0;
`else
  localparam bit PortsSim = Voq;
`endif

  if (PortsSim) begin : g_sim
    sw_ports #(
      .NumPorts     (NumPorts),
      .CrdPerCls    (CrdPerCls),
      .MaxTxCredits (MaxTxCredits)
    ) u_ports (
      .clk_i             (clk_i),
      .rst_ni            (rst_ni),
      .rx_valid_i        (rx_valid_i),
      .rx_msg_i          (rx_msg_i),
      .route_v_i         (route_v_q),
      .route_o_i         (route_o_q),
      .restart_i         (restart),
      .adv_i             (adv_q),
      .fenced_i          (fenced),
      .rx_crd_o          (rx_crd_o),
      .rx_sunk_o         (sunk),
      .drop_o            (drop),
      .stall_o           (stall),
      .enq_o             (in_wr),
      .enq_entry_o       (in_wr_entry),
      .rd_entry_o        (in_rd_entry),
      .in_idle_o         (in_idle),
      .req_o             (eg_req),
      .in_match_valid_i  (in_match_valid),
      .in_match_idx_i    (in_match_idx),
      .out_match_valid_i (out_match_valid),
      .out_match_idx_i   (out_match_idx),
      .msi_i             (alloc_msi),
      .tx_crd_i          (tx_crd_i),
      .tx_crd_any_i      (crd_back),
      .crd_avail_o       (out_crd_avail),
      .starve_o          (starve),
      .wait_o            (out_wait),
      .xbar_sel_o        (eg_sel),
      .send_o            (tx_valid_d),
      .send_cls_o        (tx_cls),
      .sunk_o            (sunk_f),
      .msi_busy_o        (msi_busy),
      .msi_sent_o        (msi_sent),
      .tx_valid_o        (tx_valid_o),
      .busy_o            (eg_busy)
    );
    // (The inputs keep no words of their own here: sw_words does.)
    for (genvar p = 0; p < NumPorts; p++) begin : g_no_deq
      assign deq_msg_v[p*FlitW +: FlitW] = '0;
    end
  end else begin : g_ports
    logic [NumOc-1:0]          own_valid;
    logic [NumPorts-1:0]       ne_set, ne_clr;
    logic [NumPorts*NumOc-1:0] nonempty;
    logic [NumPorts*ClsW-1:0]  deq_cls_v;
    logic [$clog2(NumOc)-1:0]  ne_set_q [NumPorts];
    logic [$clog2(NumOc)-1:0]  ne_clr_q [NumPorts];
    logic [NumOc-1:0]          eg_elig, avail;

    for (genvar p = 0; p < NumPorts; p++) begin : g_in
      logic [NodeW-1:0] dst;
      assign dst = rx_msg_i[p*FlitW + msg_pkg::FIELD_DST_LSB +: NodeW];

      if (Voq) begin : g_voq
        assign deq_msg_v[p*FlitW +: FlitW] = '0;
        sw_ingress #(
          .NumOut    (NumPorts),
          .CrdPerCls (CrdPerCls)
        ) u_in (
          .clk_i            (clk_i),
          .rst_ni           (rst_ni),
          .rx_valid_i       (rx_valid_i[p]),
          .rx_op_i          (rx_msg_i[p*FlitW + msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W]),
          .rx_route_valid_i (route_v_q[dst]),
          .rx_route_out_i   (route_o_q[dst*PortW +: PortW]),
          .rx_crd_o         (rx_crd_o[p*NumCls +: NumCls]),
          .rx_sunk_o        (sunk[p]),
          .restart_i        (restart[p]),
          .adv_i            (adv_q),
          .fenced_i         (fenced[p]),
          .drop_o           (drop[2*p +: 2]),
          .nonempty_o       (nonempty[p*NumOc +: NumOc]),
          .ne_set_o         (ne_set[p]),
          .ne_set_q_o       (ne_set_q[p]),
          .ne_clr_o         (ne_clr[p]),
          .ne_clr_q_o       (ne_clr_q[p]),
          .stall_o          (stall[p*NumCls +: NumCls]),
          .match_valid_i    (in_match_valid[p]),
          .match_out_i      (in_match_idx[p*PortW +: PortW]),
          .match_elig_i     (eg_elig[32'(in_match_idx[p*PortW +: PortW])*NumCls +: NumCls]),
          .deq_cls_o        (deq_cls_v[p*ClsW +: ClsW]),
          .enq_o            (in_wr[p]),
          .enq_entry_o      (in_wr_entry[p*EntryW +: EntryW]),
          .rd_entry_o       (in_rd_entry[p*EntryW +: EntryW]),
          .idle_o           (in_idle[p])
        );
      end else begin : g_fifo
        assign in_wr[p]                          = 1'b0;
        assign in_wr_entry[p*EntryW +: EntryW] = '0;
        assign in_rd_entry[p*EntryW +: EntryW] = '0;
        assign ne_set[p]   = 1'b0;
        assign ne_set_q[p] = '0;
        assign ne_clr[p]   = 1'b0;
        assign ne_clr_q[p] = '0;
        sw_ingress_fifo #(
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
          .restart_i        (restart[p]),
          .adv_i            (adv_q),
          .fenced_i         (fenced[p]),
          .drop_o           (drop[2*p +: 2]),
          .nonempty_o       (nonempty[p*NumOc +: NumOc]),
          .stall_o          (stall[p*NumCls +: NumCls]),
          .match_valid_i    (in_match_valid[p]),
          .match_out_i      (in_match_idx[p*PortW +: PortW]),
          .match_elig_i     (eg_elig[32'(in_match_idx[p*PortW +: PortW])*NumCls +: NumCls]),
          .deq_msg_o        (deq_msg_v[p*FlitW +: FlitW]),
          .deq_cls_o        (deq_cls_v[p*ClsW +: ClsW]),
          .idle_o           (in_idle[p])
        );
      end
    end

    // ---- which inputs hold a message for which (output, class): bit k*NumPorts + i, k = o*NumCls + c
    // (see the header) ----
  `ifdef SYNTHESIS
    localparam bit HoldersKept = 1'b0;
  `else
    localparam bit HoldersKept = Voq;
  `endif
    // Not traced as one vector (each output's part is, as its sw_egress' holders_i): in a traced
    // model Verilator kept the whole 11 264 bits at 16 + 16 and built them word by word on every
    // evaluation, a third of a test-flavour paper.ini run.
    /*verilator tracing_off*/
    logic [NumOc*NumPorts-1:0] holders;
    /*verilator tracing_on*/

    if (HoldersKept) begin : g_hold_kept
      logic [NumPorts-1:0] col_q [NumOc];
      logic [NumPorts-1:0] col_d [NumOc];

      // The reset is in the next state: Verilator takes no non-blocking loop over an array.
      always_comb begin
        col_d = col_q;
        for (int i = 0; i < NumPorts; i++) begin
          if (ne_set[i]) col_d[ne_set_q[i]][i] = 1'b1;
          if (ne_clr[i]) col_d[ne_clr_q[i]][i] = 1'b0;
        end
        if (!rst_ni)
          for (int k = 0; k < NumOc; k++) col_d[k] = '0;
      end

      always_ff @(posedge clk_i) begin
        col_q <= col_d;
      end

      for (genvar k = 0; k < NumOc; k++) begin : g_col
        assign holders[k*NumPorts +: NumPorts] = col_q[k] & ~fenced;
      end

      // The kept copy is checked against the inputs' queue states (among inputs not fenced): the
      // bits the last cycle set or cleared, and one (output, class) column in turn, every column once
      // in NumOc cycles. Comparing all NumOc x NumPorts bits every cycle (11 264 at 16 + 16) took a
      // quarter of a test-flavour paper.ini run.
  `ifndef SYNTHESIS
      localparam int unsigned KW = $clog2(NumOc);
      logic [KW-1:0]       chk_q;
      logic [NumPorts-1:0] set_v_q, clr_v_q;
      logic [KW-1:0]       set_k_q [NumPorts];
      logic [KW-1:0]       clr_k_q [NumPorts];
      always_ff @(posedge clk_i) begin
        chk_q   <= (!rst_ni || chk_q == KW'(NumOc - 1)) ? '0 : chk_q + KW'(1);
        set_v_q <= rst_ni ? ne_set : '0;
        clr_v_q <= rst_ni ? ne_clr : '0;
        set_k_q <= ne_set_q;
        clr_k_q <= ne_clr_q;
      end
      logic kept_bad;
      always_comb begin
        kept_bad = 1'b0;
        for (int i = 0; i < NumPorts; i++) begin
          kept_bad = kept_bad | (~fenced[i] & (col_q[chk_q][i] != nonempty[i*NumOc + 32'(chk_q)]));
          if (set_v_q[i])
            kept_bad = kept_bad | (~fenced[i] & (col_q[set_k_q[i]][i] != nonempty[i*NumOc + 32'(set_k_q[i])]));
          if (clr_v_q[i])
            kept_bad = kept_bad | (~fenced[i] & (col_q[clr_k_q[i]][i] != nonempty[i*NumOc + 32'(clr_k_q[i])]));
        end
      end
      `ASSERT(kept_holders_match_the_queues, !kept_bad)
  `endif
    end else begin : g_hold_wired
      // The inputs' queue states turned around, as wires (synthesis, the FIFO variant).
      always_comb begin
        for (int k = 0; k < NumOc; k++)
          for (int i = 0; i < NumPorts; i++) holders[k*NumPorts + i] = nonempty[i*NumOc + k] & ~fenced[i];
      end
    end


    for (genvar o = 0; o < NumPorts; o++) begin : g_out
      sw_egress #(
        .NumIn        (NumPorts),
        .MaxTxCredits (MaxTxCredits)
      ) u_out (
        .clk_i         (clk_i),
        .rst_ni        (rst_ni),
        .fenced_i      (fenced[o]),
        .crd_give_i    (tx_crd_i[o*NumCls +: NumCls]),
        .crd_avail_o   (out_crd_avail[o*NumCls +: NumCls]),
        .avail_o       (avail[o*NumCls +: NumCls]),
        .holders_i     (holders[o*NumCls*NumPorts +: NumCls*NumPorts]),
        .held_o        (own_valid[o*NumCls +: NumCls]),
        .req_o         (eg_req[o*NumPorts +: NumPorts]),
        .match_valid_i (out_match_valid[o]),
        .match_in_i    (out_match_idx[o*PortW +: PortW]),
        .match_elig_o  (eg_elig[o*NumCls +: NumCls]),
        .in_cls_i      (deq_cls_v),
        .msi_i         (alloc_msi[o]),
        .xbar_sel_o    (eg_sel[o*PortW +: PortW]),
        .send_o        (tx_valid_d[o]),
        .send_cls_o    (tx_cls[o*ClsW +: ClsW]),
        .sunk_o        (sunk_f[o]),
        .msi_busy_o    (msi_busy[o]),
        .msi_sent_o    (msi_sent[o]),
        .tx_valid_o    (tx_valid_o[o]),
        .busy_o        (eg_busy[o])
      );
      // A message for the output waits for a credit of its class (sw_viral's wait_i).
      assign out_wait[o] = |(own_valid[o*NumCls +: NumCls] & ~out_crd_avail[o*NumCls +: NumCls]);
    end

    assign starve = own_valid & ~avail;
  end

  // ---- the words: buffer memories, crossbar columns, output registers ----
  sw_words #(
    .NumPorts (NumPorts),
    .Depth    (CrdPerCls * NumCls),
    .Keep     (Voq)
  ) u_words (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .wr_i          (in_wr),
    .wr_entry_i    (in_wr_entry),
    .wr_msg_i      (rx_msg_i),
    .rd_entry_i    (in_rd_entry),
    .in_msg_i      (deq_msg_v),
    .load_i        (tx_valid_d),
    .msi_i         (msi_busy),
    .sel_i         (eg_sel),
    .msi_subject_i (NodeW'(s2_subject_q)),
    .bytes_o       (tx_bytes),
    .tx_msg_o      (tx_msg_o)
  );

  assign msi_ack         = |msi_sent;
  assign msi_ack_subject = s2_subject_q;
  assign idle_o          = &in_idle & ~|eg_busy & ~csr_rvalid_q & ~start_q & vir_idle;

  // ---- per-port views of the flattened vectors, for waveforms only (waves/fabric_top.gtkw) ----
  for (genvar p = 0; p < NumPorts; p++) begin : g_port
    logic              view_rx_valid, view_rx_hb, view_tx_valid, view_idle;
    logic [FlitW-1:0]  view_rx_msg, view_tx_msg;
    logic [NumCls-1:0] view_rx_crd, view_tx_crd;
    assign view_rx_valid = rx_valid_i[p];
    assign view_rx_hb    = rx_hb_i[p];
    assign view_rx_msg   = rx_msg_i[p*FlitW +: FlitW];
    assign view_rx_crd   = rx_crd_o[p*NumCls +: NumCls];
    assign view_tx_valid = tx_valid_o[p];
    assign view_tx_msg   = tx_msg_o[p*FlitW +: FlitW];
    assign view_tx_crd   = tx_crd_i[p*NumCls +: NumCls];
    assign view_idle     = in_idle[p];
  end

  // ---- performance counters ----
  if (PerfCnt) begin : g_perf
    sw_perf #(
      .NumPorts (NumPorts)
    ) u_perf (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .tx_i        (tx_valid_d),
      .tx_cls_i    (tx_cls),
      .tx_bytes_i  (tx_bytes),
      .starve_i    (starve),
      .stall_i     (stall),
      .csr_valid_i (csr_valid_i),
      .csr_write_i (csr_write_i),
      .csr_addr_i  (csr_addr_i),
      .csr_hit_o   (perf_hit),
      .csr_err_o   (perf_err),
      .csr_rdata_o (perf_rdata)
    );
  end else begin : g_no_perf
    assign perf_hit   = 1'b0;
    assign perf_err   = 1'b0;
    assign perf_rdata = '0;
  end

  // One MSI at a time is in the traversal stage (sw_egress asserts the credits and a free output).
  `ASSERT(one_msi_in_flight, $onehot0(msi_busy))

endmodule
`default_nettype wire
