`default_nettype none
`include "groups.svh"

// Performance counters of the CXL switch, four 32-bit counters (wrapping) per port and class,
// read through the switch's CSR port at word address csr_pkg::SW_CSR_PERF_BASE + port *
// SW_CSR_PERF_PORT_STRIDE + class * SW_CSR_PERF_CLS_STRIDE + k (docs/csrs.md; k = SW_PERF_*):
//   k = 0  MSGS    messages of the class that left the port toward its node
//   k = 1  BYTES   their bytes on the link (HEADER_BYTES + 8 per meaningful data word, as msg_bytes)
//   k = 2  STARVE  cycles a message of the class waited for the port while the port held no credit
//                  of the class from its node (credit starvation, output side)
//   k = 3  STALL   cycles a message of the class waited in the port's input buffer and none of the
//                  class left it (input side: blocked by allocation, credits or its turn)
// Writing a counter is refused; so are addresses of ports or classes that do not exist.
// csr_hit_o and csr_err_o answer the request combinationally; csr_rdata_o is registered: the
// counter the read of the last cycle named, as that cycle's edge found it (0 after any other
// access), so that the switch answers it the cycle after the request, as its other registers.
module sw_perf #(
  /// number of ports
  parameter int unsigned NumPorts = 6,
  localparam int unsigned NumCls  = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW    = $clog2(NumCls),
  localparam int unsigned IdxW    = $clog2(NumCls * csr_pkg::SW_CSR_PERF_K_N)
) (
  /// switch clock
  input  wire logic                       clk_i,
  /// synchronous reset, active low
  input  wire logic                       rst_ni,
  /// per port: a message left toward the node
  input  wire logic [NumPorts-1:0]        tx_i,
  /// per port: its class
  input  wire logic [NumPorts*ClsW-1:0]   tx_cls_i,
  /// per port: its bytes
  input  wire logic [NumPorts*8-1:0]      tx_bytes_i,
  /// per port and class (p*NumCls + c): starved of credits this cycle
  input  wire logic [NumPorts*NumCls-1:0] starve_i,
  /// per port and class: stalled in the input buffer this cycle
  input  wire logic [NumPorts*NumCls-1:0] stall_i,
  /// register access for this block
  input  wire logic                       csr_valid_i,
  /// the access is a write
  input  wire logic                       csr_write_i,
  /// word address
  input  wire logic [csr_pkg::SW_CSR_ADDR_W-1:0] csr_addr_i,
  /// the address is one of this block's registers
  output logic                            csr_hit_o,
  /// the access is refused
  output logic                            csr_err_o,
  /// the data of the read the last cycle made (0 unless it hit)
  output logic      [31:0]                csr_rdata_o
);
  localparam logic [15:0] Base = csr_pkg::SW_CSR_PERF_BASE;
  // The address's bits name the port, the class and the counter: k in bits ClsLsb-1:0, the class in
  // PortLsb-1:ClsLsb, the port above.
  localparam int unsigned ClsLsb  = $clog2(csr_pkg::SW_CSR_PERF_CLS_STRIDE);
  localparam int unsigned PortLsb = $clog2(csr_pkg::SW_CSR_PERF_PORT_STRIDE);

  if (csr_pkg::SW_CSR_ADDR_W != 16 || csr_pkg::SW_CSR_PERF_K_STRIDE != 1 ||
      csr_pkg::SW_CSR_PERF_CLS_STRIDE != csr_pkg::SW_CSR_PERF_K_N || csr_pkg::SW_CSR_PERF_K_N != 4 ||
      csr_pkg::SW_CSR_PERF_PORT_STRIDE != csr_pkg::SW_CSR_PERF_CLS_N * csr_pkg::SW_CSR_PERF_CLS_STRIDE ||
      csr_pkg::SW_CSR_PERF_CLS_N != 16 || (1 << ClsLsb) != csr_pkg::SW_CSR_PERF_CLS_STRIDE) begin : g_bad_map
    $error("sw_perf: the PERF address must be 16 bits, k in its low 2 bits, the class in the next 4, the port above");
  end

  if (NumPorts < 4 || NumPorts > 64) begin : g_bad_ports
    $error("sw_perf: NumPorts must be in 4..64");
  end

  logic [15:0]            off;
  logic [9:0]             port;
  logic [3:0]             cls;
  logic [NumPorts-1:0]    rd;
  logic                   rd_q;

  assign off  = csr_addr_i - Base;
  assign port = off[15:PortLsb];
  assign cls  = off[PortLsb-1:ClsLsb];

  always_comb begin
    csr_hit_o = csr_valid_i && csr_addr_i >= Base && port < 10'(NumPorts) && cls < 4'(NumCls);
    csr_err_o = csr_hit_o && csr_write_i;
    rd        = (csr_hit_o && !csr_write_i) ? NumPorts'(1) << port : '0;
  end

`ifdef SYNTHESIS
  // One sw_perf_port per port; the addressed one samples the counter of the addressed class and
  // kind at the edge of a read, and the next cycle returns it.
  logic [NumPorts*32-1:0] rd_data;
  logic [9:0]             port_q;

  for (genvar p = 0; p < NumPorts; p++) begin : g_port
    sw_perf_port u_port (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .tx_i       (tx_i[p]),
      .tx_cls_i   (tx_cls_i[p*ClsW +: ClsW]),
      .tx_bytes_i (tx_bytes_i[p*8 +: 8]),
      .starve_i   (starve_i[p*NumCls +: NumCls]),
      .stall_i    (stall_i[p*NumCls +: NumCls]),
      .rd_i       (rd[p]),
      .rd_idx_i   (IdxW'({cls, off[ClsLsb-1:0]})),
      .rd_data_o  (rd_data[p*32 +: 32])
    );
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rd_q   <= 1'b0;
      port_q <= '0;
    end else begin
      rd_q   <= rd != '0;
      port_q <= port;
    end
  end

  // (A statement under the test, not a ?: expression: Verilated, the whole rd_data vector is then
  // gathered only in a cycle that answers a read, not at every evaluation.)
  always_comb begin
    csr_rdata_o = '0;
    if (rd_q) csr_rdata_o = rd_data[32'(port_q)*32 +: 32];
  end
`else
  // Simulation form: the same counters, answers and cycle of each (tb/test_sw_perf.c runs the same
  // tests on both forms, and tb/test_fabric.c compares the switch's counters with those of the
  // switch Verilated with SYNTHESIS defined). Every port's counters in one array each, written
  // blocking in one process that reads the addressed counter first (as sw_perf_port's read samples
  // it before its edge's events), with loops over the ports that send and the 32-bit words of the
  // starve and stall vectors that have a bit set: the module per port cost the Verilated model a
  // call, the copies of its inputs and their tests for every port at every edge, about 600 host
  // instructions a cycle at 16 + 16, with nothing to count.
  localparam int unsigned NumSc = NumPorts * NumCls;   // (port, class) pairs: p * NumCls + c
  localparam int unsigned NumW  = (NumSc + 31) / 32;
  localparam int unsigned KW    = $clog2(NumSc);
  logic [63:0] sent_q [NumSc];   // {BYTES, MSGS}
  logic [63:0] wait_q [NumSc];   // {STALL, STARVE}
  logic [31:0] rd_data_q;
  logic [NumW*32-1:0] starve_w, stall_w, ev_w;

  assign starve_w = (NumW*32)'(starve_i);
  assign stall_w  = (NumW*32)'(stall_i);
  assign ev_w     = starve_w | stall_w;

  `SIM_GROUPS(pg_any, PG, NPG, NumPorts)

  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    logic [IdxW-1:0] idx;   // counter idx[1:0] of class idx[IdxW-1:2], as sw_perf_port's rd_idx_i
    logic [31:0]     sel;
    logic [63:0]     w;
    logic [KW-1:0]   k;
    if (rd != '0) begin
      idx       = IdxW'({cls, off[ClsLsb-1:0]});
      k         = KW'(32'(port) * NumCls + 32'(idx[IdxW-1:2]));
      w         = idx[1] ? wait_q[k] : sent_q[k];
      sel       = idx[0] ? w[63:32] : w[31:0];
      rd_data_q <= sel;
    end
    if (!rst_ni) begin
      rd_q <= 1'b0;
      for (int i = 0; i < NumSc; i++) begin
        sent_q[i] = '0;
        wait_q[i] = '0;
      end
    end else begin
      rd_q <= rd != '0;
      if (tx_i != '0)
        for (int pg = 0; pg < NPG; pg++) if (pg_any(tx_i, pg))
        for (int p = pg * PG; p < pg * PG + PG && p < NumPorts; p++)
          if (tx_i[p]) begin
            k         = KW'(32'(p) * NumCls + 32'(tx_cls_i[p*ClsW +: ClsW]));
            w         = sent_q[k];
            sent_q[k] = {w[63:32] + 32'(tx_bytes_i[p*8 +: 8]), w[31:0] + 32'd1};
          end
      if (ev_w != '0)
        for (int v = 0; v < NumW; v++)
          if (ev_w[v*32 +: 32] != '0)
            for (int b = 0; b < 32 && v * 32 + b < NumSc; b++)
              if (ev_w[v*32 + b]) begin
                k         = KW'(v * 32 + b);
                w         = wait_q[k];
                wait_q[k] = {w[63:32] + 32'(stall_w[k]), w[31:0] + 32'(starve_w[k])};
              end
    end
  end
  // verilator lint_on BLKSEQ

  always_comb begin
    csr_rdata_o = '0;
    if (rd_q) csr_rdata_o = rd_data_q;
  end
`endif

endmodule
`default_nettype wire
