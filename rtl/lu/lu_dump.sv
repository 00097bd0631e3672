`default_nettype none
`include "assert.svh"

// Log dumps of the Logging Unit (DIKTAMO §IV-E): at a dump the LU extracts, oldest first, the DRAM
// log records of the lines in its buckets (cfg_own_i: one bit per hash bucket of line addresses,
// line_bucket below; the system sets them all, so the whole log, docs/architecture.md section
// 11f), streams them through the dump port into the compression engine (a C model of a zlib
// block, level configurable), and sends the compressed bytes to its MN as 64-byte DUMP_DATA
// messages, synchronizing through the MN controller:
//   1. DUMP_REQ (tag = epoch) to the MN controller cfg_mn_i; wait for DUMP_GO (every LU is ready);
//   2. wait until no record is on its way to the log and hold the drain (active_o); read every
//      record in order; those of the range go to the dump port; then an end beat (dp_end_o);
//   3. every compressed chunk leaves as DUMP_DATA (dst cfg_mn_i, LAST on the final one): chunk k of
//      the dump (its byte offset / 64) has tag = k mod 2^TAG_W and addr = k, as messages.toml
//      defines them (ChunkW below: k never wraps);
//   4. wait for DUMP_DONE (every dump of the epoch stored), then clear the DRAM log (log_clear_o)
//      and resume the drain.
// Epochs. Every LU must dump the same epochs, in order, for the MN controllers' synchronizations
// to complete. The LU counts the epochs requested of it (tgt_q: epochs up to tgt_q - 1) and dumps
// them one after the other (epoch_q: the one running or next). Its own requests, on dump_start_i
// (the dump period, kept by the platform at every LU) and when its log reaches its high watermark
// (hwm_i), request the next epoch not yet requested and tell every other CN (ids 0 ..
// cfg_num_cn_i - 1 but its own) with EARLY_FLUSH carrying that epoch; an EARLY_FLUSH received
// requests every epoch up to its tag. Every request reaches every LU, so all of them end up
// requesting, and dumping, the same epochs: two requests that cross (two LUs at their watermark
// together, a period's tick meeting a flush) merge into one epoch, and a request that comes while
// a dump runs, or while the LU is paused (allow_i low), waits for its turn. Epochs compare in
// TAG_W-bit serial arithmetic.
// The end of a recovery (end_req_i, a RECOV_END) is a request of its own too, and this LU answers
// the RECOV_END once that epoch is dumped (end_done_o): the stores the failure left with one copy
// less are then in an MN log store. No dump starts while a slot validated before the RECOV_END is
// still in the SRAM buffer (hold_start_i, lu_slots' keep marks), so that the dump finds them all
// in the DRAM log; only a full DRAM log, which they could not drain to, starts one meanwhile, and
// if the end's epoch is dumped that way (marks left at its read) the next epoch is requested and
// answers instead.
module lu_dump #(
  localparam int unsigned FlitW = msg_pkg::FLIT_W,
  localparam int unsigned DataW = msg_pkg::WORDS_PER_LINE * msg_pkg::WORD_W,
  localparam int unsigned NodeW = msg_pkg::NODE_ID_W,
  localparam int unsigned LineW = msg_pkg::LINE_ADDR_W,
  localparam int unsigned RecW  = 128
) (
  /// LU clock
  input  wire logic              clk_i,
  /// synchronous reset, active low
  input  wire logic              rst_ni,
  /// dumps may start (low while paused for recovery)
  input  wire logic              allow_i,
  /// this CN's node id
  input  wire logic [NodeW-1:0]  node_id_i,
  /// the buckets of line addresses this LU dumps (bit b: bucket b, line_bucket below)
  input  wire logic [63:0]       cfg_own_i,
  /// node id of the MN controller (synchronization, and where the dump goes)
  input  wire logic [NodeW-1:0]  cfg_mn_i,
  /// number of CNs (EARLY_FLUSH goes to CN ids 0 .. cfg_num_cn_i - 1 but this one)
  input  wire logic [NodeW:0]    cfg_num_cn_i,
  /// start a dump (the dump period)
  input  wire logic              start_i,
  /// the end of a recovery (one cycle): request an epoch, and tell (end_done_o) when it is dumped
  input  wire logic              end_req_i,
  /// that epoch is dumped, with every slot validated before the end_req_i in it (one cycle)
  output logic                   end_done_o,
  /// no dump may start (a slot validated before the last end_req_i has not drained yet)
  input  wire logic              hold_start_i,
  /// the DRAM log is full (a dump starts even while hold_start_i: the slots cannot drain)
  input  wire logic              log_full_i,
  /// the DRAM log is at or above its high watermark
  input  wire logic              hwm_i,
  /// an EARLY_FLUSH arrived (one cycle)
  input  wire logic              flush_in_i,
  /// its tag: the epoch it requests
  input  wire logic [msg_pkg::TAG_W-1:0] flush_tag_i,
  /// DUMP_GO / DUMP_DONE waiting (MGRSP head)
  input  wire logic              rsp_valid_i,
  /// it is DUMP_DONE (else DUMP_GO)
  input  wire logic              rsp_done_i,
  /// its tag (epoch)
  input  wire logic [msg_pkg::TAG_W-1:0] rsp_tag_i,
  /// it is taken
  output logic                   rsp_ready_o,
  /// no search runs (a dump waits for it before reading the log)
  input  wire logic              search_idle_i,
  /// records in the DRAM log
  input  wire logic [31:0]       log_count_i,
  /// no record on its way to the DRAM log
  input  wire logic              lw_idle_i,
  /// a dump holds the drain
  output logic                   active_o,
  /// a dump owns the memory port's reads (a search waits)
  output logic                   reading_o,
  /// empty the DRAM log (one cycle)
  output logic                   log_clear_o,
  /// DRAM log read request
  output logic                   rd_valid_o,
  /// it is taken
  input  wire logic              rd_ready_i,
  /// record index
  output logic      [31:0]       rd_idx_o,
  /// a record read returns
  input  wire logic              rd_rsp_valid_i,
  /// the record
  input  wire logic [RecW-1:0]   rd_rsp_rec_i,
  /// dump port: a record (or the end beat) for the compression engine
  output logic                   dp_valid_o,
  /// the engine takes it
  input  wire logic              dp_ready_i,
  /// the record
  output logic      [RecW-1:0]   dp_rec_o,
  /// end of the dump (no record on this beat)
  output logic                   dp_end_o,
  /// a compressed chunk (64 bytes) from the engine
  input  wire logic              dc_valid_i,
  /// it is taken (sent as DUMP_DATA)
  output logic                   dc_ready_o,
  /// the chunk
  input  wire logic [DataW-1:0]  dc_data_i,
  /// the last chunk of the dump
  input  wire logic              dc_last_i,
  /// a message to send (DUMP_REQ, EARLY_FLUSH, DUMP_DATA)
  output logic                   tx_valid_o,
  /// the message
  output logic      [FlitW-1:0]  tx_msg_o,
  /// it is taken
  input  wire logic              tx_ready_i,
  /// events (one cycle each): 0 dump done, 1 record to the engine, 2 DUMP_DATA sent, 3 EARLY_FLUSH
  /// sent (this LU's requests, at the period's ticks and at its watermark)
  output logic      [3:0]        ev_o,
  /// no dump running or pending
  output logic                   idle_o
);
  // Records read and not yet taken by the engine: enough to cover the DRAM latency at a record per
  // cycle (45 ns = 23 LU cycles).
  localparam int unsigned Win  = 32;
  localparam int unsigned WinW = $clog2(Win + 1);
  // Chunks of one dump. A dump holds at most 2^32 - 1 records (log_count_i), 16 bytes each: under
  // 2^36 bytes go in, and deflate's output at any level stays within zlib's deflateBound (the input
  // plus under 0.04 %, plus a few bytes), so under 2^31 chunks come out: 32 bits never wrap. (A
  // TAG_W-bit counter wrapped after 4096 chunks, 256 KB of compressed log.)
  localparam int unsigned ChunkW = 32;

  if (LineW < ChunkW) begin : g_bad_chunk_w
    $error("lu_dump: DUMP_DATA's addr (LINE_ADDR_W bits) must hold a chunk number (ChunkW bits)");
  end

  localparam int unsigned TagW = msg_pkg::TAG_W;

  typedef enum logic [2:0] { D_IDLE, D_REQ, D_GO, D_HOLD, D_READ, D_SEND, D_DONE } state_e;
  state_e st_q, st_d;

  logic                 hwm_q;
  logic [TagW-1:0]      epoch_q, epoch_d;  // the epoch dumping, or next to dump
  logic [TagW-1:0]      tgt_q, tgt_d;      // epochs requested: up to tgt_q - 1
  logic                 fl_q, fl_d;        // an EARLY_FLUSH broadcast is under way ...
  logic [TagW-1:0]      ftag_q, ftag_d;    // ... for this epoch
  logic [ChunkW-1:0]    chunk_q, chunk_d;  // chunks of this dump sent so far: the next one's number
  logic [NodeW:0]       fcn_q, fcn_d;      // next CN to send EARLY_FLUSH to
  logic [31:0]          iss_q, iss_d, got_q, got_d, cnt_q, cnt_d;
  logic                 end_sent_q, end_sent_d;
  logic                 rend_q, rend_d;        // a recovery's end waits for its epoch ...
  logic [TagW-1:0]      rend_ep_q, rend_ep_d;  // ... this one
  logic                 clean_q, clean_d;      // the dump under way read no marked slot's word late
  logic [WinW-1:0]      out_q, out_d;      // reads whose records are not yet in the FIFO

  // Records of the range wait in a small FIFO for the engine; reads are issued only while their
  // records have room there.
  logic            rf_push, rf_in_ready, rf_v, rf_pop;
  logic [RecW-1:0] rf_rec;
  logic [WinW-1:0] rf_cnt;
  logic            rf_empty;
  logic [LineW-1:0] r_line;
  assign r_line  = rd_rsp_rec_i[64 +: LineW];

  // The bucket of a line address: its 6-bit chunks folded by XOR (LineW = 42: seven whole chunks;
  // csim/cn/lu_node.c lu_map_bucket computes the same), so consecutive lines fall in different buckets.
  function automatic logic [5:0] line_bucket(input logic [LineW-1:0] l);
    line_bucket = '0;
    for (int i = 0; i < LineW / 6; i++) line_bucket = line_bucket ^ l[6*i +: 6];
  endfunction

  assign rf_push = (st_q == D_READ) & rd_rsp_valid_i & cfg_own_i[line_bucket(r_line)];
  fifo #(.Depth(Win), .Width(RecW)) u_rf (
    .clk_i (clk_i), .rst_ni (rst_ni),
    .in_valid_i (rf_push), .in_ready_o (rf_in_ready), .in_data_i (rd_rsp_rec_i),
    .out_valid_o (rf_v), .out_ready_i (rf_pop), .out_data_o (rf_rec),
    .count_o (rf_cnt), .empty_o (rf_empty)
  );

  logic reads_done, can_issue, self_req, flush_self, pending, in_later, fl_send;
  assign reads_done = (iss_q == cnt_q) & (got_q == cnt_q);
  assign can_issue  = (iss_q != cnt_q) & ({1'b0, out_q} + {1'b0, rf_cnt} < (WinW + 1)'(Win));
  assign rd_valid_o = (st_q == D_READ) & can_issue;
  assign rd_idx_o   = iss_q;

  // Dump port: records of the FIFO, then one end beat.
  assign dp_valid_o = (st_q == D_READ) & (rf_v | (reads_done & ~end_sent_q));
  assign dp_rec_o   = rf_rec;
  assign dp_end_o   = ~rf_v;
  assign rf_pop     = dp_valid_o & dp_ready_i & rf_v;

  // Messages: this LU's EARLY_FLUSH broadcast first, then the dump's.
  msg_pkg::msg_t m;
  logic [NodeW-1:0] fdst;
  assign fdst    = fcn_q[NodeW-1:0];
  assign fl_send = fl_q & (fcn_q < cfg_num_cn_i) & (fdst != node_id_i);
  // (Built only in a cycle that offers it.)
  always_comb begin
    m     = '0;
    m.src = node_id_i;
    if (!tx_valid_o) begin
      // nothing offered
    end else if (fl_send) begin
      m.opcode = msg_pkg::OP_EARLY_FLUSH;
      m.dst    = fdst;
      m.tag    = ftag_q;
    end else unique case (st_q)
      D_REQ: begin
        m.opcode = msg_pkg::OP_DUMP_REQ;
        m.dst    = cfg_mn_i;
        m.tag    = epoch_q;
      end
      default: begin
        m.opcode = msg_pkg::OP_DUMP_DATA;
        m.dst    = cfg_mn_i;
        m.tag    = chunk_q[msg_pkg::TAG_W-1:0];
        m.flags  = dc_last_i ? msg_pkg::FLAG_LAST : '0;
        m.addr   = LineW'(chunk_q);
        m.mask   = '1;
        m.data   = dc_data_i;
      end
    endcase
  end
  assign tx_msg_o   = m;
  assign tx_valid_o = (fl_send || st_q == D_REQ || ((st_q == D_READ || st_q == D_SEND) && dc_valid_i));
  assign dc_ready_o = ~fl_send & (st_q == D_READ || st_q == D_SEND) & tx_ready_i;

  assign rsp_ready_o = rsp_valid_i & ((st_q == D_GO && !rsp_done_i && rsp_tag_i == epoch_q) ||
                                             (st_q == D_DONE && rsp_done_i && rsp_tag_i == epoch_q));

  // A recovery's end whose epoch was dumped with marked slots still in the buffer asks again.
  logic end_hit, end_again;
  assign end_hit    = (st_q == D_DONE) & rsp_ready_o & rend_q & (epoch_q == rend_ep_q);
  assign end_again  = end_hit & ~clean_q;
  assign end_done_o = end_hit & clean_q; // (lu_mgmt ignores it when a new end is taken with it)
  assign flush_self = hwm_i & ~hwm_q;
  assign self_req   = start_i | flush_self | end_req_i | end_again;
  // tgt_q - epoch_q epochs wait (the window is half the tag space); a flush's epoch is at or after
  // tgt_q (not requested yet) when flush_tag_i - tgt_q is in the lower half.
  logic [TagW-1:0] fl_ahead;
  assign pending    = tgt_q != epoch_q;
  assign fl_ahead   = flush_tag_i - tgt_q;
  assign in_later   = ~fl_ahead[TagW-1];

  always_comb begin
    st_d       = st_q;
    tgt_d      = tgt_q;
    fl_d       = fl_q;
    ftag_d     = ftag_q;
    epoch_d    = epoch_q;
    chunk_d    = chunk_q;
    fcn_d      = fcn_q;
    iss_d      = iss_q;
    got_d      = got_q;
    cnt_d      = cnt_q;
    end_sent_d = end_sent_q;
    out_d      = out_q;
    rend_d     = rend_q & ~end_hit;
    rend_ep_d  = rend_ep_q;
    clean_d    = clean_q;
    log_clear_o = 1'b0;
    ev_o       = '0;
    // Requests: a flush received first, then this LU's own (the next epoch not yet requested).
    // A request of its own while a broadcast is under way restarts it with the later epoch.
    if (flush_in_i && in_later) tgt_d = flush_tag_i + 1'b1;
    ev_o[3] = fl_send & tx_ready_i;
    if (self_req) begin
      ftag_d = tgt_d;
      tgt_d  = tgt_d + 1'b1;
      fl_d   = 1'b1;
      fcn_d  = '0;
      if (end_req_i || end_again) begin
        rend_d    = 1'b1;
        rend_ep_d = ftag_d;
      end
    end else if (fl_q) begin
      if (fcn_q >= cfg_num_cn_i) fl_d = 1'b0;
      else if (fdst == node_id_i || tx_ready_i) fcn_d = fcn_q + 1'b1;
    end
    if (rd_valid_o && rd_ready_i) begin
      iss_d = iss_q + 32'd1;
      out_d = out_d + 1'b1;
    end
    if (rd_rsp_valid_i && st_q == D_READ) begin
      got_d = got_q + 32'd1;
      out_d = out_d - 1'b1;
    end
    ev_o[1] = rf_pop;
    if (dc_valid_i && dc_ready_o) begin
      chunk_d = chunk_q + 1'b1;
      ev_o[2] = 1'b1;
    end
    unique case (st_q)
      D_IDLE: if (pending && allow_i && (!hold_start_i || log_full_i)) st_d = D_REQ;
      D_REQ: if (tx_ready_i && !fl_send) st_d = D_GO;
      D_GO: if (rsp_ready_o) st_d = D_HOLD;
      D_HOLD: if (lw_idle_i && search_idle_i) begin
        st_d       = D_READ;
        iss_d      = '0;
        got_d      = '0;
        out_d      = '0;
        cnt_d      = log_count_i;
        chunk_d    = '0;
        end_sent_d = 1'b0;
        clean_d    = ~hold_start_i; // (the drain holds from D_HOLD on: no mark leaves meanwhile)
      end
      D_READ: begin
        if (dp_valid_o && dp_ready_i && !rf_v) begin
          end_sent_d = 1'b1;
          st_d       = D_SEND;
        end
        if (dc_valid_i && dc_ready_o && dc_last_i) st_d = D_DONE;
      end
      D_SEND: if (dc_valid_i && dc_ready_o && dc_last_i) st_d = D_DONE;
      D_DONE: if (rsp_ready_o) begin
        log_clear_o = 1'b1;
        epoch_d     = epoch_q + 1'b1;
        ev_o[0]     = 1'b1;
        st_d        = D_IDLE;
      end
      default: st_d = D_IDLE;
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      st_q    <= D_IDLE;
      tgt_q   <= '0;
      fl_q    <= 1'b0;
      ftag_q  <= '0;
      hwm_q   <= 1'b0;
      epoch_q <= '0;
      chunk_q <= '0;
      fcn_q   <= '0;
      iss_q   <= '0;
      got_q   <= '0;
      cnt_q   <= '0;
      out_q   <= '0;
      end_sent_q <= 1'b0;
      rend_q     <= 1'b0;
      rend_ep_q  <= '0;
      clean_q    <= 1'b0;
    end else begin
      st_q    <= st_d;
      tgt_q   <= tgt_d;
      fl_q    <= fl_d;
      ftag_q  <= ftag_d;
      hwm_q <= hwm_i;
      epoch_q <= epoch_d;
      chunk_q <= chunk_d;
      fcn_q   <= fcn_d;
      iss_q   <= iss_d;
      got_q   <= got_d;
      cnt_q   <= cnt_d;
      out_q   <= out_d;
      end_sent_q <= end_sent_d;
      rend_q     <= rend_d;
      rend_ep_q  <= rend_ep_d;
      clean_q    <= clean_d;
    end
  end

  assign active_o  = (st_q == D_HOLD) | (st_q == D_READ) | (st_q == D_SEND) | (st_q == D_DONE);
  assign reading_o = (st_q == D_READ) | (st_q == D_SEND) | (st_q == D_DONE);
  assign idle_o   = (st_q == D_IDLE) & ~pending & ~fl_q & rf_empty & (hwm_q == hwm_i);

  `ASSERT(rf_room, !rf_push || rf_in_ready)
  `ASSERT(chunk_only_in_dump, !dc_valid_i || st_q == D_READ || st_q == D_SEND)

endmodule
`default_nettype wire
