`default_nettype none

// The directory's wide data path and memory port: the transactions' data lines (an RWD's line, an
// owner's dirty line, a memory read's line, a RECOVER's words) and the multiplexers that read
// them, for the memory requests (the engine's and the walk's, given in a narrow form and widened
// here, then queued for the memory port) and the responses (the header from dir_msg); and the
// read tags, which say whose each memory read is (its answers come back in request order). A 512-bit line is
// selected only where it is used, in the cycle that uses it: a Verilated model otherwise copies
// it at every evaluation.
module dir_dpath #(
  /// transaction table entries
  parameter int unsigned TxnEntries = 16,
  /// memory reads outstanding at most
  parameter int unsigned MemReads   = 16,
  localparam int unsigned FlitW   = msg_pkg::FLIT_W,
  localparam int unsigned DataW   = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned HdrW    = FlitW - DataW,
  localparam int unsigned NumCn   = msg_pkg::MAX_CN,
  localparam int unsigned TsW     = msg_pkg::TS_W,
  localparam int unsigned WordN   = msg_pkg::WORDS_PER_LINE,
  localparam int unsigned EntW    = 2 + 2 * NumCn + TsW,   // a directory entry (dir_decide)
  localparam int unsigned TW      = (TxnEntries > 1) ? $clog2(TxnEntries) : 1,
  localparam int unsigned MemReqW = 1 + 1 + 32 + DataW + WordN,
  localparam int unsigned TagQW   = 2 + TW   // a read tag: {walk's, directory line, transaction}
) (
  /// controller clock
  input  wire logic               clk_i,
  /// synchronous reset, active low: the memory request queue empty
  input  wire logic               rst_ni,
  /// the event's transaction
  input  wire logic [TW-1:0]      ei_i,
  // its data line is written, from (one-hot; none: the memory response) the snoop answer, the
  // RECOVER's words, the RWD
  /// the transaction's data line is written
  input  wire logic               td_we_i,
  /// from (one-hot; none: the memory response) the snoop answer, the RECOVER's words, the RWD
  input  wire logic [2:0]         td_src_i,
  // the lines that may be written: a memory response's, a snoop answer's, a RECOVER's, an RWD's
  /// the line a memory read returned
  input  wire logic [DataW-1:0]   mem_rsp_rdata_i,
  /// the snoop answer's data
  input  wire logic [DataW-1:0]   bir_data_i,
  /// the RECOVER's words
  input  wire logic [DataW-1:0]   mg_wdata_i,
  /// the RWD's data
  input  wire logic [DataW-1:0]   rwd_data_i,
  // the engine's memory request (dir_txn, narrow form: see there)
  /// the engine's memory request
  input  wire logic               t_mq_v_i,
  /// it is a write
  input  wire logic               t_mq_w_i,
  /// it is for the directory area
  input  wire logic               t_mq_dir_i,
  /// its local line or entry group
  input  wire logic [31:0]        t_mq_addr_i,
  /// its words
  input  wire logic [WordN-1:0]   t_mq_mask_i,
  /// where its words come from (one-hot)
  input  wire logic [2:0]         t_mq_src_i,
  /// it is an entry write
  input  wire logic               t_mq_ent_v_i,
  /// the entry written
  input  wire logic [EntW-1:0]    t_mq_ent_i,
  // the walk's (dir_walk: an entry write, else a directory line read)
  /// the walk's memory request
  input  wire logic               w_mq_v_i,
  /// an entry write (else a directory line read)
  input  wire logic               w_mq_ent_v_i,
  /// the entry's local line, or the line group read
  input  wire logic [31:0]        w_mq_addr_i,
  /// the entry written
  input  wire logic [EntW-1:0]    w_mq_ent_i,
  // read tags: the engine's read (a directory line, else data) of the event's transaction; the
  // walk's read
  /// the engine's read (of the event's transaction)
  input  wire logic               t_rq_v_i,
  /// it reads a directory line
  input  wire logic               t_rq_dir_i,
  /// the walk's read
  input  wire logic               w_rq_v_i,
  // the read tag FIFO: a tag fits; its head (valid, tag); empty; a tag is queued this cycle
  /// a tag fits
  output logic                    rq_room_o,
  /// a memory read's tag
  output logic                    rq_v_o,
  /// the oldest tag ({walk's, directory line, transaction})
  output logic      [TagQW-1:0]   rq_head_o,
  /// no read outstanding
  output logic                    rq_empty_o,
  /// a tag is queued this cycle
  output logic                    rq_push_o,
  // the memory request queue: a request fits; it is empty; a request is queued this cycle
  /// a memory request fits
  output logic                    mq_room_o,
  /// no memory request queued
  output logic                    mq_empty_o,
  /// a memory request is queued this cycle
  output logic                    mq_push_o,
  // the memory port (dir_ctrl's mem_req_*, mem_rsp_valid_i: a read's answer, which pops its tag)
  /// a memory request
  output logic                    mem_req_valid_o,
  /// it is taken
  input  wire logic               mem_req_ready_i,
  /// it is a write
  output logic                    mem_req_write_o,
  /// it is for the directory area
  output logic                    mem_req_dir_o,
  /// local line or entry group
  output logic      [31:0]        mem_req_addr_o,
  /// the words to write
  output logic      [DataW-1:0]   mem_req_wdata_o,
  /// the words written (bit i: word i)
  output logic      [WordN-1:0]   mem_req_wmask_o,
  /// a read's answer arrives (it pops its tag)
  input  wire logic               mem_rsp_valid_i,
  // the response: built this cycle (FINISH), its header (dir_msg), it carries the data line
  /// a response is built this cycle (FINISH)
  input  wire logic               rsp_v_i,
  /// its header (dir_msg)
  input  wire logic [HdrW-1:0]    rsp_hdr_i,
  /// it carries the data line
  input  wire logic               rsp_data_i,
  /// the response flit (msg_pkg::msg_t; 0 when none is built)
  output logic      [FlitW-1:0]   rsp_o
);

  // ---- the transactions' data lines ----
  // Two forms. Synthesis (SYNTHESIS defined): a ram_1r1w read at ei, the macro a real design would
  // use. Simulation: an array, read where a request or a response uses the line, and written from
  // its source only at an edge that writes it. `DIR_TD_RDATA names the line read in either form;
  // the dir_ctrl_synth tests (tb/test_dir_ctrl.c) run the synthesis form.
`ifdef SYNTHESIS
  logic [DataW-1:0] td_rdata, td_wdata;
  assign td_wdata = td_src_i[0] ? bir_data_i : td_src_i[1] ? mg_wdata_i : td_src_i[2] ? rwd_data_i
                                                                                       : mem_rsp_rdata_i;
  ram_1r1w #(.Depth(TxnEntries), .Width(DataW)) u_tdata (
    .clk_i (clk_i), .rst_ni (rst_ni), .we_i (td_we_i), .waddr_i (ei_i), .wdata_i (td_wdata),
    .raddr_i (ei_i), .rdata_o (td_rdata)
  );
  `define DIR_TD_RDATA td_rdata
`else
  /* verilator tracing_off */
  logic [DataW-1:0] td_mem_q [TxnEntries];
  /* verilator tracing_on */
  always_ff @(posedge clk_i) begin
    if (td_we_i) td_mem_q[ei_i] <= td_src_i[0] ? bir_data_i : td_src_i[1] ? mg_wdata_i :
                                   td_src_i[2] ? rwd_data_i : mem_rsp_rdata_i;
  end
  `define DIR_TD_RDATA td_mem_q[ei_i]
`endif

  // ---- memory requests ----
  // A memory request as the queue holds it: {write, dir, addr, mask, data}, the data at the low
  // bits so that the port's 512 data bits leave the queue's head word-aligned (no shifts in a
  // Verilated model).
  function automatic logic [MemReqW-1:0] mreq(logic w, logic dir, logic [31:0] a, logic [DataW-1:0] data,
                                              logic [WordN-1:0] m);
    mreq = {w, dir, a, m, data};
  endfunction
  // A directory entry's DRAM write: the 128-bit slot of local line l in its group's line.
  function automatic logic [MemReqW-1:0] ent_write(logic [31:0] l, logic [EntW-1:0] e);
    // Shifted into place, not written at a computed part-select (which Yosys unrolls bit by bit).
    logic [DataW-1:0] d;
    logic [WordN-1:0] m;
    d = DataW'(128'(e)) << (32'(l[1:0]) * 128);
    m = WordN'(2'b11) << (2 * l[1:0]);
    ent_write = mreq(1'b1, 1'b1, 32'(l >> 2), d, m);
  endfunction
  // The engine's request or the walk's (one event a cycle; the walk reads ahead only in a cycle
  // whose event sends none): the words of a write are selected only for the request that
  // carries them.
  logic [MemReqW-1:0] mq_in, mq_out;
  assign mq_push_o = t_mq_v_i | w_mq_v_i;
  always_comb begin
    mq_in = '0;
    if (t_mq_v_i) begin
      if (t_mq_ent_v_i)       mq_in = ent_write(t_mq_addr_i, t_mq_ent_i);
      else if (t_mq_src_i[0]) mq_in = mreq(t_mq_w_i, t_mq_dir_i, t_mq_addr_i, `DIR_TD_RDATA, t_mq_mask_i);
      else if (t_mq_src_i[1]) mq_in = mreq(t_mq_w_i, t_mq_dir_i, t_mq_addr_i, bir_data_i, t_mq_mask_i);
      else if (t_mq_src_i[2]) mq_in = mreq(t_mq_w_i, t_mq_dir_i, t_mq_addr_i, mg_wdata_i, t_mq_mask_i);
      else                    mq_in = mreq(t_mq_w_i, t_mq_dir_i, t_mq_addr_i, DataW'(0), t_mq_mask_i);
    end else if (w_mq_v_i) begin
      if (w_mq_ent_v_i) mq_in = ent_write(w_mq_addr_i, w_mq_ent_i);
      else              mq_in = mreq(1'b0, 1'b1, w_mq_addr_i, DataW'(0), WordN'(0));
    end
  end
  logic                 mq_v;
  logic [$clog2(3)-1:0] mq_cnt_unused;
  fifo #(.Depth(2), .Width(MemReqW)) u_memq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (mq_push_o), .in_ready_o (mq_room_o), .in_data_i (mq_in),
    .out_valid_o (mq_v), .out_ready_i (mem_req_ready_i), .out_data_o (mq_out),
    .count_o (mq_cnt_unused), .empty_o (mq_empty_o)
  );
  assign mem_req_valid_o = mq_v;
  assign {mem_req_write_o, mem_req_dir_o, mem_req_addr_o, mem_req_wmask_o, mem_req_wdata_o} = mq_out;

  // ---- read tags ----
  logic [TagQW-1:0] rq_in;
  assign rq_push_o = t_rq_v_i | w_rq_v_i;
  assign rq_in     = w_rq_v_i ? {2'b11, TW'(0)} : {1'b0, t_rq_dir_i, ei_i};
  logic [$clog2(MemReads + 1)-1:0] rq_cnt_unused;
  fifo #(.Depth(MemReads), .Width(TagQW)) u_rdq (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (rq_push_o), .in_ready_o (rq_room_o), .in_data_i (rq_in),
    .out_valid_o (rq_v_o), .out_ready_i (mem_rsp_valid_i), .out_data_o (rq_head_o),
    .count_o (rq_cnt_unused), .empty_o (rq_empty_o)
  );

  // ---- the response ----
  always_comb begin
    rsp_o = '0;
    if (rsp_v_i) rsp_o = {rsp_hdr_i, rsp_data_i ? `DIR_TD_RDATA : DataW'(0)};
  end

`undef DIR_TD_RDATA

endmodule
`default_nettype wire
