`default_nettype none
`include "groups.svh"

// The words of the CXL switch: the input ports' buffer memories, the crossbar and the output
// registers. The ports' control (sw_ingress, sw_egress) moves entry numbers and decisions; this
// block moves the 640-bit messages they stand for:
//   - an arriving message is written into its input's buffer memory at the entry the input's queue
//     manager gave it (wr_*: voq_buf's enq_entry_o);
//   - in the traversal stage each output that sends (load_i) takes the word of the input it was
//     matched to (sel_i), at the entry that input registered at allocation (rd_entry_i), or the MSI
//     (msi_i), into its output register (tx_msg_o), and tells its bytes on the link (bytes_o, for
//     the performance counters).
// With input FIFOs (Keep = 0: sw_ingress_fifo keeps its own words) the inputs give their traversal
// words (in_msg_i) and this block is the crossbar and the output registers.
//
// Two forms of one function (as in sw_xbar and islip_alloc). Synthesis (SYNTHESIS defined), and the
// FIFO variant: per input a ram_1r1w (Depth x FlitW, black-boxed as a macro) whose read port gives
// the word at rd_entry_i, and per output an sw_xbar (crossbar column and output register), the
// structure of a real switch. Simulation, with virtual output queues: one memory of every input's
// words, written and read inside clocked blocks only for the messages that move, so that an idle
// port costs no 640-bit copy (the synthesis form's read ports, columns and the concatenation of
// their outputs cost Verilator some 30 000 instructions per cycle at 16 + 16, busy or not). The
// fabric_top_c4m2_synth model (Verilated with SYNTHESIS defined) and tb/test_fabric.c check that the
// switch behaves the same cycle for cycle either way.
//
// The entry a dequeue frees in the allocation stage is handed out again no earlier than the
// traversal stage, whose enqueue writes it at the end of that cycle: the traversal reads the word
// before it is overwritten (voq_buf).
module sw_words #(
  /// number of ports (inputs and outputs)
  parameter int unsigned NumPorts = 6,
  /// entries of each input's buffer memory (Keep)
  parameter int unsigned Depth    = 44,
  /// 1: the inputs' words are kept here (virtual output queues); 0: the inputs give them (in_msg_i)
  parameter bit          Keep     = 1'b1,
  localparam int unsigned FlitW   = msg_pkg::FLIT_W,
  localparam int unsigned NodeW   = msg_pkg::NODE_ID_W,
  localparam int unsigned PortW   = (NumPorts > 1) ? $clog2(NumPorts) : 1,
  localparam int unsigned EntryW  = (Depth > 1) ? $clog2(Depth) : 1
) (
  /// switch clock
  input  wire logic                         clk_i,
  /// synchronous reset, active low (the words are not reset)
  input  wire logic                         rst_ni,
  /// per input: the arriving message is written into its buffer (Keep)
  input  wire logic [NumPorts-1:0]          wr_i,
  /// per input: at this entry (bits p*EntryW +: EntryW)
  input  wire logic [NumPorts*EntryW-1:0]   wr_entry_i,
  /// per input: the arriving message (the switch's rx_msg_i)
  input  wire logic [NumPorts*FlitW-1:0]    wr_msg_i,
  /// per input: the entry whose word its traversal reads this cycle (Keep)
  input  wire logic [NumPorts*EntryW-1:0]   rd_entry_i,
  /// per input: the word of its traversal this cycle (Keep = 0)
  input  wire logic [NumPorts*FlitW-1:0]    in_msg_i,
  /// per output: a word enters the output register this cycle
  input  wire logic [NumPorts-1:0]          load_i,
  /// per output: it is the MSI
  input  wire logic [NumPorts-1:0]          msi_i,
  /// per output: else the word of this input (bits o*PortW +: PortW)
  input  wire logic [NumPorts*PortW-1:0]    sel_i,
  /// the failed CN an MSI names (its source and subject; the output's port is its destination)
  input  wire logic [NodeW-1:0]             msi_subject_i,
  /// per output: the bytes on the link of the word loaded this cycle (bits o*8 +: 8, with load_i)
  output logic      [NumPorts*8-1:0]        bytes_o,
  /// per output: the output register (bits o*FlitW +: FlitW)
  output logic      [NumPorts*FlitW-1:0]    tx_msg_o
);
  if (NumPorts < 2) begin : g_bad_ports
    $error("sw_words: NumPorts must be at least 2");
  end

  // The MSI an output sends to the Configuration Manager (its node: a CN's port is its node id).
  function automatic logic [FlitW-1:0] msi_flit(logic [NodeW-1:0] subject, logic [NodeW-1:0] cm);
    msi_flit = '0;
    msi_flit[msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W] = msg_pkg::OP_MSI;
    msi_flit[msg_pkg::FIELD_SRC_LSB +: NodeW]                      = subject;
    msi_flit[msg_pkg::FIELD_DST_LSB +: NodeW]                      = cm;
    msi_flit[msg_pkg::FIELD_SUBJECT_LSB +: NodeW]                  = subject;
  endfunction

`ifdef SYNTHESIS
  localparam bit Lazy = 1'b0;
`else
  localparam bit Lazy = Keep;
`endif

  if (Lazy) begin : g_lazy
    // Word p*Depth + e is entry e of input p.
    /* verilator tracing_off */
    logic [FlitW-1:0] mem_q [NumPorts*Depth];
    /* verilator tracing_on */

    // The word of output o's traversal: input sel's entry rd_entry[sel].
    function automatic int unsigned word_of(int unsigned o);
      int unsigned i;
      i       = 32'(sel_i[o*PortW +: PortW]);
      word_of = i * Depth + 32'(rd_entry_i[i*EntryW +: EntryW]);
    endfunction

    // The loops visit the ports in groups of 8 and skip a group without a bit set (groups.svh):
    // few ports write or load a word in a cycle.
    `SIM_GROUPS(grp_any, G, NG, NumPorts)

    always_ff @(posedge clk_i) begin
      if (wr_i != '0)
        for (int g = 0; g < NG; g++) if (grp_any(wr_i, g))
          for (int p = g * G; p < g * G + G && p < NumPorts; p++)
            if (wr_i[p]) mem_q[p*Depth + 32'(wr_entry_i[p*EntryW +: EntryW])] <= wr_msg_i[p*FlitW +: FlitW];
    end

    always_ff @(posedge clk_i) begin
      if (load_i != '0)
        for (int g = 0; g < NG; g++) if (grp_any(load_i, g))
          for (int o = g * G; o < g * G + G && o < NumPorts; o++)
            if (load_i[o])
              tx_msg_o[o*FlitW +: FlitW] <= msi_i[o] ? msi_flit(msi_subject_i, NodeW'(o)) : mem_q[word_of(o)];
    end

    // An MSI carries no data words: its bytes are the header's.
    always_comb begin
      bytes_o = {NumPorts{8'(msg_pkg::HEADER_BYTES)}};
      if (load_i != '0)
        for (int g = 0; g < NG; g++) if (grp_any(load_i, g))
          for (int o = g * G; o < g * G + G && o < NumPorts; o++)
            if (load_i[o] && !msi_i[o])
              bytes_o[o*8 +: 8] = msg_pkg::msg_bytes(
                  mem_q[word_of(o)][msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W],
                  mem_q[word_of(o)][msg_pkg::FIELD_MASK_LSB +: msg_pkg::FIELD_MASK_W]);
    end

    // The memory is not reset, and the inputs keep no words of their own here.
    logic                      rst_unused;
    logic [NumPorts*FlitW-1:0] given_unused;
    assign rst_unused   = rst_ni;
    assign given_unused = in_msg_i;
  end else begin : g_wired
    logic [NumPorts*FlitW-1:0] words;

    if (Keep) begin : g_ram
      for (genvar p = 0; p < NumPorts; p++) begin : g_in
        ram_1r1w #(
          .Depth (Depth),
          .Width (FlitW)
        ) u_buf (
          .clk_i   (clk_i),
          .rst_ni  (rst_ni),
          .we_i    (wr_i[p]),
          .waddr_i (wr_entry_i[p*EntryW +: EntryW]),
          .wdata_i (wr_msg_i[p*FlitW +: FlitW]),
          .raddr_i (rd_entry_i[p*EntryW +: EntryW]),
          .rdata_o (words[p*FlitW +: FlitW])
        );
      end
      logic [NumPorts*FlitW-1:0] given_unused;
      assign given_unused = in_msg_i;
    end else begin : g_given
      assign words = in_msg_i;
      // The inputs keep their own words (sw_ingress_fifo).
      logic [NumPorts*(2*EntryW+FlitW+1)-1:0] wr_unused;
      logic                                  rst_unused;
      assign wr_unused  = {wr_i, wr_entry_i, wr_msg_i, rd_entry_i};
      assign rst_unused = rst_ni;
    end

    for (genvar o = 0; o < NumPorts; o++) begin : g_out
      logic [FlitW-1:0] msi;
      assign msi = msi_flit(msi_subject_i, NodeW'(o));

      sw_xbar #(
        .NumIn (NumPorts)
      ) u_col (
        .clk_i     (clk_i),
        .in_msg_i  (words),
        .sel_i     (sel_i[o*PortW +: PortW]),
        .load_i    (load_i[o]),
        .msi_i     (msi_i[o]),
        .msi_msg_i (msi),
        .bytes_o   (bytes_o[o*8 +: 8]),
        .msg_o     (tx_msg_o[o*FlitW +: FlitW])
      );
    end
  end

endmodule
`default_nettype wire
