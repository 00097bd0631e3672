`default_nettype none
// Queue manager of one switch port's input buffer (docs/architecture.md section 11a): Depth
// entries shared by NumQ queues (in the switch one per (output port, message class)), each queue a
// singly linked list through a next-pointer memory, with a FIFO of free entry numbers. The words
// are the caller's: it keeps them in a memory of Depth words, writes a word at enq_entry_o when it
// enqueues and reads the word of a dequeued entry at deq_entry_o (the switch keeps every port's
// words in sw_words). Every array of pointers is a ram_1r1w, so synthesis black-boxes it and reports
// its bits; the one-bit state per queue and per entry is flops. Per operation the block touches
// O(1) entries and never loops over the queues, so many instances stay cheap to simulate.
//
// Timing (no output but enq_entry_o, q_set_o and q_clr_o is combinational from enq_valid_i,
// enq_q_i or deq_valid_i):
//   - q_nonempty_o, free_o, enq_ready_o and idle_o are functions of the state only (registered).
//   - enq_entry_o is the entry an enqueue takes this cycle (meaningful while enq_ready_o is high).
//   - q_set_o and q_clr_o announce this cycle's change of q_nonempty_o (bit enq_q_i set, bit
//     deq_q_i cleared, from the next cycle), so that a reader keeping its own copy of the bits in
//     another layout (the switch keeps them per output) follows them without scanning them.
//   - deq_entry_o is combinational from deq_q_i alone: the entry holding the head word of queue
//     deq_q_i at the start of the cycle, meaningful while q_nonempty_o[deq_q_i] is high, whether or
//     not the queue is popped. Path: deq_q_i -> head tables.
//   - An entry a dequeue frees in cycle c is handed out again in cycle c + 1 at the earliest, so the
//     caller's word in it stays through cycle c + 1 (an enqueue in c + 1 writes it at the end of that
//     cycle): a caller may register deq_entry_o when it dequeues and read the word the next cycle,
//     as the switch does (allocation, then traversal). A word enqueued into an empty queue is
//     visible (q_nonempty_o, deq_entry_o) the next cycle; there is no enqueue-to-dequeue bypass.
//   - enq_valid_i and deq_valid_i are commands, not offers: the caller enqueues only while
//     enq_ready_o is high (the switch's credits guarantee it) and dequeues only a queue whose
//     q_nonempty_o bit is high. Both are asserted; an illegal command is ignored. A full buffer does
//     not take an enqueue in a cycle it dequeues (enq_ready_o does not look at deq_valid_i).
//   - One enqueue and one dequeue per cycle, on any queues, also the same queue, also when the
//     dequeue takes that queue's only word: the enqueued word becomes the queue's head.
//
// Pointer tables. A cycle can change the head of two queues: a dequeue advances the head of its
// queue while an enqueue into another, empty queue sets that queue's head. A ram_1r1w has one write
// port, so the head table is two of them: bank 0 written by dequeues, bank 1 by enqueues into empty
// queues, and one bit per queue (hsel_q) says which bank holds the queue's head. The tail table is
// read and written at enq_q_i only. Whether an entry has a successor (last entry of its queue or
// not) is one flop per entry (succ_q), so a dequeue needs no tail read.
//
// Free list. Entries never used since reset are handed out in order by a counter (fresh_q), so
// reset takes one cycle whatever Depth is; freed entries go through a circular FIFO of entry numbers
// (a ram_1r1w of Depth x log2(Depth) bits): one read and one write port, O(1) per operation.
//
// Occupancy: free_o counts the whole buffer. Per-class occupancy is what the switch's per-class
// credit counters already track from the same enqueue and dequeue commands, so it is not kept here.
module voq_buf #(
  /// Buffer capacity in entries, shared by all queues (>= 2; any value, not only powers of two).
  parameter int Depth = 64,
  /// Number of queues (>= 1); in the switch one per (output port, message class).
  parameter int NumQ = 352,
  /// Width in bits of a queue number (derived; do not override).
  localparam int QW = (NumQ > 1) ? $clog2(NumQ) : 1,
  /// Width in bits of an entry number (derived; do not override).
  localparam int AddrW = $clog2(Depth),
  /// Width in bits of free_o (derived; do not override).
  localparam int CntW = $clog2(Depth + 1)
) (
  /// Clock.
  input  wire logic             clk_i,
  /// Synchronous active-low reset: empties every queue.
  input  wire logic             rst_ni,
  /// Enqueue an entry at the tail of queue enq_q_i this cycle (only while enq_ready_o is high).
  input  wire logic             enq_valid_i,
  /// Queue number of the enqueue (< NumQ).
  input  wire logic [QW-1:0]    enq_q_i,
  /// The entry an enqueue takes this cycle (the caller writes its word there).
  output logic      [AddrW-1:0] enq_entry_o,
  /// A free entry exists: an enqueue is allowed this cycle (free_o != 0; registered).
  output logic                  enq_ready_o,
  /// Dequeue the head entry of queue deq_q_i this cycle (only while q_nonempty_o[deq_q_i] is high).
  input  wire logic             deq_valid_i,
  /// Queue number to dequeue or to look at (< NumQ); selects deq_entry_o even without deq_valid_i.
  input  wire logic [QW-1:0]    deq_q_i,
  /// Entry at the head of queue deq_q_i, combinationally from deq_q_i; meaningful while
  /// q_nonempty_o[deq_q_i] is high.
  output logic      [AddrW-1:0] deq_entry_o,
  /// Bit q: queue q holds at least one word (registered).
  output logic      [NumQ-1:0]  q_nonempty_o,
  /// This cycle enqueues: q_nonempty_o[enq_q_i] is set from the next cycle (combinational).
  output logic                  q_set_o,
  /// This cycle's dequeue empties its queue: q_nonempty_o[deq_q_i] is clear from the next cycle
  /// (combinational).
  output logic                  q_clr_o,
  /// Free entries, 0 ..= Depth (registered).
  output logic      [CntW-1:0]  free_o,
  /// Every queue is empty (free_o == Depth; registered): nothing changes until enq_valid_i rises.
  output logic                  idle_o
);
`include "assert.svh"

  if (Depth < 2) begin : g_bad_depth
    $error("voq_buf: Depth must be >= 2");
  end
  if (NumQ < 1) begin : g_bad_numq
    $error("voq_buf: NumQ must be >= 1");
  end

  // The switch instantiates one buffer per port: one C++ class for all of them.
  /* verilator no_inline_module */

  // Unsigned constants one bit wider than what they are compared with, so that no comparison is
  // constant when Depth or NumQ is a power of two.
  localparam logic [CntW:0] DepthC = (CntW + 1)'(Depth);
  localparam logic [QW:0]   NumQC  = (QW + 1)'(NumQ);

  // Control state.
  logic [NumQ-1:0]  nonempty_q;             // queue holds a word
  logic [NumQ-1:0]  hsel_q;                 // queue's head is in head bank 1 (else bank 0)
  logic [Depth-1:0] succ_q;                 // entry has a successor in its queue
  logic [CntW-1:0]  free_q, free_d;         // free entries
  logic [CntW-1:0]  fresh_q, fresh_d;       // entries handed out at least once since reset
  logic [AddrW-1:0] fl_rd_q, fl_rd_d;       // free FIFO read pointer
  logic [AddrW-1:0] fl_wr_q, fl_wr_d;       // free FIFO write pointer

  // Memory read data and write controls.
  logic [AddrW-1:0] head0_rdata, head1_rdata, tail_rdata, next_rdata, fl_rdata;
  logic             head0_we, next_we;
  logic [AddrW-1:0] head0_wdata;

  logic             enq, deq, enq_in_range, deq_in_range, from_fresh, same_q, deq_last;
  logic             enq_into_empty, deq_empties;
  logic [AddrW-1:0] alloc, head;

  assign enq_ready_o  = free_q != '0;
  assign enq_entry_o  = alloc;
  assign q_nonempty_o = nonempty_q;
  assign q_set_o      = enq;
  assign q_clr_o      = deq_empties;
  assign free_o       = free_q;
  assign idle_o       = free_q == CntW'(Depth);

  assign enq_in_range = {1'b0, enq_q_i} < NumQC;
  assign deq_in_range = {1'b0, deq_q_i} < NumQC;
  // Illegal commands are ignored (and asserted below).
  assign enq = enq_valid_i && enq_ready_o && enq_in_range;
  assign deq = deq_valid_i && deq_in_range && nonempty_q[deq_q_i];

  // The entry an enqueue takes: a never-used one while any is left, else the free FIFO's oldest.
  assign from_fresh = fresh_q != CntW'(Depth);
  assign alloc      = from_fresh ? AddrW'(fresh_q) : fl_rdata;

  // Head entry of queue deq_q_i; whether it is its queue's last; whether the enqueue is into the
  // same queue (then the queue is nonempty, so the enqueue appends).
  assign head     = hsel_q[deq_q_i] ? head1_rdata : head0_rdata;
  assign deq_entry_o = head;
  assign deq_last = !succ_q[head];
  assign same_q   = enq_q_i == deq_q_i;

  // What the cycle does, as single-bit decisions, and the counters' next values; nothing when the
  // cycle neither enqueues nor dequeues (in simulation an idle buffer costs a test).
  always_comb begin
    enq_into_empty = 1'b0;
    next_we        = 1'b0;
    head0_we       = 1'b0;
    head0_wdata    = '0;
    deq_empties    = 1'b0;
    free_d         = free_q;
    fresh_d        = fresh_q;
    fl_rd_d        = fl_rd_q;
    fl_wr_d        = fl_wr_q;
    if (enq || deq) begin
      enq_into_empty = enq && !nonempty_q[enq_q_i];
      // Append behind the tail; not when the same cycle dequeues the queue's only word (then the
      // new entry becomes the head instead, through head bank 0).
      next_we        = enq && nonempty_q[enq_q_i] && !(deq && same_q && deq_last);
      head0_we       = deq && (!deq_last || (enq && same_q));
      head0_wdata    = deq_last ? alloc : next_rdata;
      deq_empties    = deq && deq_last && !(enq && same_q);
      if (enq && !deq) free_d = free_q - CntW'(1);
      if (deq && !enq) free_d = free_q + CntW'(1);
      if (enq && from_fresh)  fresh_d = fresh_q + CntW'(1);
      if (enq && !from_fresh) fl_rd_d = (fl_rd_q == AddrW'(Depth - 1)) ? '0 : fl_rd_q + AddrW'(1);
      if (deq)                fl_wr_d = (fl_wr_q == AddrW'(Depth - 1)) ? '0 : fl_wr_q + AddrW'(1);
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      free_q     <= CntW'(Depth);
      fresh_q    <= '0;
      fl_rd_q    <= '0;
      fl_wr_q    <= '0;
    end else begin
      free_q     <= free_d;
      fresh_q    <= fresh_d;
      fl_rd_q    <= fl_rd_d;
      fl_wr_q    <= fl_wr_d;
    end
  end

  // The per-queue and per-entry bits change at most two at a time, at indexed positions. As in
  // ram_1r1w, the indexed writes stay in the clocked block: Verilator then sets or clears single
  // bits, where next-state vectors would copy and mask NumQ bits in every evaluation.
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      nonempty_q <= '0;
    end else begin
      if (enq)         nonempty_q[enq_q_i] <= 1'b1;
      if (deq_empties) nonempty_q[deq_q_i] <= 1'b0;
    end
  end

  // hsel_q and succ_q are not reset: each bit is written before it is read (hsel when its queue
  // becomes nonempty, succ when its entry is taken).
  always_ff @(posedge clk_i) begin
    if (enq_into_empty) hsel_q[enq_q_i]    <= 1'b1;
    if (head0_we)       hsel_q[deq_q_i]    <= 1'b0;
    if (next_we)        succ_q[tail_rdata] <= 1'b1;
    if (enq)            succ_q[alloc]      <= 1'b0;
  end

  // Successor of each entry in its queue (valid where succ_q is set).
  ram_1r1w #(.Depth(Depth), .Width(AddrW)) u_next (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (next_we),
    .waddr_i (tail_rdata),
    .wdata_i (alloc),
    .raddr_i (head),
    .rdata_o (next_rdata)
  );

  // Free entry numbers, oldest first (entries not handed out since reset are not in it).
  ram_1r1w #(.Depth(Depth), .Width(AddrW)) u_free (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (deq),
    .waddr_i (fl_wr_q),
    .wdata_i (head),
    .raddr_i (fl_rd_q),
    .rdata_o (fl_rdata)
  );

  // Head entry of each queue, bank 0: written by dequeues.
  ram_1r1w #(.Depth(NumQ), .Width(AddrW)) u_head0 (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (head0_we),
    .waddr_i (deq_q_i),
    .wdata_i (head0_wdata),
    .raddr_i (deq_q_i),
    .rdata_o (head0_rdata)
  );

  // Head entry of each queue, bank 1: written by enqueues into empty queues.
  ram_1r1w #(.Depth(NumQ), .Width(AddrW)) u_head1 (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (enq_into_empty),
    .waddr_i (enq_q_i),
    .wdata_i (alloc),
    .raddr_i (deq_q_i),
    .rdata_o (head1_rdata)
  );

  // Tail entry of each queue (valid while the queue is nonempty).
  ram_1r1w #(.Depth(NumQ), .Width(AddrW)) u_tail (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (enq),
    .waddr_i (enq_q_i),
    .wdata_i (alloc),
    .raddr_i (enq_q_i),
    .rdata_o (tail_rdata)
  );

  `ASSERT(enq_not_full, !enq_valid_i || enq_ready_o)
  `ASSERT(deq_not_empty, !deq_valid_i || !deq_in_range || nonempty_q[deq_q_i])
  `ASSERT(enq_q_in_range, !enq_valid_i || enq_in_range)
  `ASSERT(deq_q_in_range, !deq_valid_i || deq_in_range)
  // Free entries = entries never handed out + entries in the free FIFO, whose pointers are that
  // many apart modulo Depth; the buffer is empty exactly when no queue holds a word.
  if ((1 << CntW) - 1 > Depth) begin : g_free_range
    // (Vacuous, and a lint warning, when Depth is the largest value CntW bits hold.)
    `ASSERT(free_in_range, free_q <= CntW'(Depth) && fresh_q <= CntW'(Depth))
  end
  `ASSERT(free_covers_fresh, {1'b0, free_q} + {1'b0, fresh_q} >= DepthC)
  `ASSERT(free_matches_fifo,
          (CntW + AddrW + 1)'(fl_wr_q) ==
          ((CntW + AddrW + 1)'(fl_rd_q) + (CntW + AddrW + 1)'(free_q) + (CntW + AddrW + 1)'(fresh_q)
           - (CntW + AddrW + 1)'(Depth)) % (CntW + AddrW + 1)'(Depth))
  `ASSERT(idle_iff_all_empty, idle_o == (nonempty_q == '0))

endmodule
`default_nettype wire
