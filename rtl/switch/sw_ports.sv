`default_nettype none
`include "assert.svh"
`include "groups.svh"

// The CXL switch's ports in simulation: every input port (sw_ingress: the virtual output queues of
// its shared buffer, the class round-robin, the drain of a fenced node, the credits it returns) and
// every output port (sw_egress: the credits its partner granted, the credit turns, the class
// allocated, the traversal stage's control), with the holders of every (output, class) kept from
// the inputs' queue changes, in one module of procedural blocks.
//
// Why a second form. cxl_switch is built of a module per input and per output port, so that
// hierarchical synthesis maps each once for all ports (constraints/cxl_switch.flow). Verilated, the
// same structure costs every port its calls, the copies of its ports' vectors and all of its logic
// at every evaluation, busy or not: about 30 000 host instructions per fabric cycle at 16 + 16, most
// of a lightly loaded switch's cost. Here each cycle's work is done by loops that skip the ports
// with nothing to do (no message arriving, none matched, no credit moving, no holder): an idle port
// costs a test per loop, of one bit of a vector of the ports with work due, worked out before the
// loop (a loop that tested two conditions of a port at computed offsets cost the Verilated model
// about 24 host instructions a port, a port's default values in the same loop more), and a group of
// 8 idle ports one test (pg_any: the light 16 + 16 bench row 4 % fewer host instructions). The two forms
// are the same machine: cxl_switch uses this one in simulation (SYNTHESIS not defined, Voq = 1) and
// the per-port modules otherwise, and the fabric_top_c4m2_synth model (Verilated with SYNTHESIS
// defined) and tb/test_fabric.c check that the switch behaves the same cycle for cycle either way,
// performance counters included. What each part does, and why, is documented with the per-port
// module it mirrors (sw_ingress, voq_buf, crd_ret, rr_arb, sw_egress, sw_turns); this file says
// only how it is computed.
//
// A cycle: the requests (from the holders, the credits and the turns, per output with a holder;
// before the allocator), the matched ports' decisions (after the allocator's match: classes,
// dequeues, drains, turns), the arrivals (class decode, route, enqueue, the queue tables' writes),
// then the clocked blocks, which work out the next state of the ports that have something to do.
// Only the arrivals' combinational logic reads the link inputs (the messages; the credits back are
// read by the outputs' clocked blocks): Verilator evaluates logic that reads a top input again
// after every change of one, before the edge, and again after it, so what does not need them (the
// decisions, the next states) is kept out of that logic and is evaluated once a cycle. Hence
// next-state logic in the clocked blocks here, against the house habit of `q <= d` only: the
// combinational form evaluated every next state twice a cycle and copied every port's state
// through next-state arrays at each evaluation. And the state that only this module's
// combinational blocks or its own process read (the queue tables, the free list, the class masks,
// the drain pointers, the holders, the turns' pointers, the occupancies, the credits owed, the
// output credit counts, and the copies of the occupancy and credit flags that the processes which
// write those flags read: read from the vectors they write, the vectors were copied into shadows
// and back at every edge) is written with blocking assignments, against the habit of non-blocking
// ones: Verilator 5.006 gives each non-blocking write to an array element a flag that
// it clears and tests at every edge (as a process per port, about 3 700 host instructions a cycle
// at 16 + 16, busy or idle) and takes no non-blocking write to an array in a loop it
// does not unroll. Written blocking, a process is one loop over the ports with work due and has no
// flag. It is the same machine because of three rules: (1) each iteration reads its port's old
// values before it writes them and writes only what is its port's (its elements; of the holders'
// columns, its own bit in each); (2) no other clocked block reads that state itself, only through
// this module's combinational blocks, which Verilator evaluates again after the writes and after
// the clocked blocks that read their outputs; (3) for synthesis a blocking write in a clocked
// block is the same flip-flop as a non-blocking one when nothing in the block reads it after the
// write. Rule (2) is why what the rest of the switch reads directly (the credits returned, the
// stalls, the entry read, the crossbar's select and class, the output credits) and what the
// assertions read keep non-blocking writes: written blocking, the class a performance counter read
// (through a port, which Verilator substitutes by the variable) was the next message's. Those are
// vectors (a field per port), not arrays, so that the same loops over the ports with work due write
// them too, and the rest of the switch reads them without a port-by-port gathering.
// fabric_top_c4m2_synth (tb/test_fabric.c) checks the result cycle by cycle, every counter
// included, against the per-port modules, which keep the house form.
module sw_ports #(
  /// number of ports (inputs and outputs)
  parameter int unsigned NumPorts     = 6,
  /// credits (buffer entries) per message class per input port
  parameter int unsigned CrdPerCls    = 4,
  /// largest number of credits per class a link partner may grant an output port
  parameter int unsigned MaxTxCredits = 64,
  localparam int unsigned NumCls      = msg_pkg::NUM_CLASSES,
  localparam int unsigned ClsW        = $clog2(NumCls),
  localparam int unsigned PortW       = (NumPorts > 1) ? $clog2(NumPorts) : 1,
  localparam int unsigned NumQ        = NumPorts * NumCls,
  localparam int unsigned QW          = $clog2(NumQ),
  localparam int unsigned Depth       = CrdPerCls * NumCls,
  localparam int unsigned EntryW      = $clog2(Depth),
  localparam int unsigned AdvW        = $clog2(CrdPerCls + 1),
  localparam int unsigned FlitW       = msg_pkg::FLIT_W,
  localparam int unsigned NodeW       = msg_pkg::NODE_ID_W
) (
  /// switch clock
  input  wire logic                          clk_i,
  /// synchronous reset, active low
  input  wire logic                          rst_ni,
  // ---- inputs ----
  /// per port: a message arrives from the link
  input  wire logic [NumPorts-1:0]           rx_valid_i,
  /// per port: the arriving message (its opcode and destination are read)
  input  wire logic [NumPorts*FlitW-1:0]     rx_msg_i,
  /// the routing table: per node, a route exists
  input  wire logic [(1<<NodeW)-1:0]         route_v_i,
  /// the routing table: per node, its output port
  input  wire logic [(1<<NodeW)*PortW-1:0]   route_o_i,
  /// per port: (re)start its credit advertisement
  input  wire logic [NumPorts-1:0]           restart_i,
  /// credits per class each input advertises
  input  wire logic [AdvW-1:0]               adv_i,
  /// per port: its node is fenced
  input  wire logic [NumPorts-1:0]           fenced_i,
  /// per port: one credit returned to the link partner per set bit (bit p*NumCls + c)
  output logic      [NumPorts*NumCls-1:0]    rx_crd_o,
  /// per port: a message without a route was sunk this cycle
  output logic      [NumPorts-1:0]           rx_sunk_o,
  /// per port (bits 2p, 2p+1): a message from the fenced node dropped arriving, drained
  output logic      [2*NumPorts-1:0]         drop_o,
  /// per port and class: a message of the class waits in the input's buffer and none left
  output logic      [NumPorts*NumCls-1:0]    stall_o,
  /// per port: the arriving message goes into the input's buffer ...
  output logic      [NumPorts-1:0]           enq_o,
  /// ... in this entry (bits p*EntryW +: EntryW)
  output logic      [NumPorts*EntryW-1:0]    enq_entry_o,
  /// per port: the entry whose word the traversal stage reads (matched in the previous cycle)
  output logic      [NumPorts*EntryW-1:0]    rd_entry_o,
  /// per port: nothing in the input will change until an input changes
  output logic      [NumPorts-1:0]           in_idle_o,
  // ---- allocation ----
  /// the allocator's requests, column-major (bit o*NumPorts + i)
  output logic      [NumPorts*NumPorts-1:0]  req_o,
  /// per input: the allocator matched it
  input  wire logic [NumPorts-1:0]           in_match_valid_i,
  /// per input: its output
  input  wire logic [NumPorts*PortW-1:0]     in_match_idx_i,
  /// per output: the allocator matched it
  input  wire logic [NumPorts-1:0]           out_match_valid_i,
  /// per output: its input
  input  wire logic [NumPorts*PortW-1:0]     out_match_idx_i,
  /// per output: an MSI takes it this cycle (it is not matched)
  input  wire logic [NumPorts-1:0]           msi_i,
  // ---- outputs ----
  /// per port and class: a credit returned by the link partner
  input  wire logic [NumPorts*NumCls-1:0]    tx_crd_i,
  /// per output: some class's credit came back this cycle (tx_crd_i's bits of the output not all 0;
  /// the switch works it out once for this module and the failure detector)
  input  wire logic [NumPorts-1:0]           tx_crd_any_i,
  /// per port and class: the output holds a credit of the class
  output logic      [NumPorts*NumCls-1:0]    crd_avail_o,
  /// per port and class: held, and the output can take none of the class (credit starvation)
  output logic      [NumPorts*NumCls-1:0]    starve_o,
  /// per port: some class is held and the output holds no credit of it (sw_viral's wait, fences
  /// aside)
  output logic      [NumPorts-1:0]           wait_o,
  /// per output: the input matched in the previous cycle (the crossbar's select)
  output logic      [NumPorts*PortW-1:0]     xbar_sel_o,
  /// per output: a message enters the output register this cycle
  output logic      [NumPorts-1:0]           send_o,
  /// per output: its class
  output logic      [NumPorts*ClsW-1:0]      send_cls_o,
  /// per output: a message matched here is sunk (the node was or is fenced)
  output logic      [NumPorts-1:0]           sunk_o,
  /// per output: an MSI is in the traversal stage
  output logic      [NumPorts-1:0]           msi_busy_o,
  /// per output: the MSI in the traversal stage enters the output register
  output logic      [NumPorts-1:0]           msi_sent_o,
  /// per output: a message leaves toward the link
  output logic      [NumPorts-1:0]           tx_valid_o,
  /// per output: a message is in the traversal stage or the output register
  output logic      [NumPorts-1:0]           busy_o
);
  localparam int unsigned N      = NumPorts;
  localparam int unsigned CntW   = $clog2(Depth + 1);
  localparam int unsigned OccW   = $clog2(CrdPerCls + 1);
  localparam int unsigned OweW   = $clog2(CrdPerCls + 2);
  localparam int unsigned TxCrdW = $clog2(MaxTxCredits + 1);

  if (NumPorts < 2 || NumPorts > 64) begin : g_bad_ports
    $error("sw_ports: NumPorts must be in 2..64");
  end
  if (CrdPerCls < 1) begin : g_bad_crd
    $error("sw_ports: CrdPerCls must be at least 1");
  end

  // Bit b*W + i is bit b of index i (W one-hot bits to an index, one reduction per index bit).
  function automatic logic [PortW*N-1:0] port_bits();
    port_bits = '0;
    for (int b = 0; b < PortW; b++)
      for (int i = 0; i < N; i++) port_bits[b*N + i] = 1'((i >> b) & 1);
  endfunction
  function automatic logic [ClsW*NumCls-1:0] cls_bits();
    cls_bits = '0;
    for (int b = 0; b < ClsW; b++)
      for (int c = 0; c < NumCls; c++) cls_bits[b*NumCls + c] = 1'((c >> b) & 1);
  endfunction
  localparam logic [PortW*N-1:0]      PortBits = port_bits();
  localparam logic [ClsW*NumCls-1:0]  ClsBits  = cls_bits();

  // The input whose credit turn it is among holders h (not 0), from pointer ptr: the first at or
  // after it, wrapping around (sw_turns).
  function automatic logic [PortW-1:0] turn_of(logic [N-1:0] h, logic [PortW-1:0] ptr);
    logic [N-1:0] at_or_after, first;
    at_or_after = h & ~((N'(1) << ptr) - N'(1));
    if (at_or_after == '0) at_or_after = h;
    first = at_or_after & (~at_or_after + N'(1));
    for (int b = 0; b < PortW; b++) turn_of[b] = |(first & PortBits[b*N +: N]);
  endfunction

  // The loops over the ports with work due visit them in groups of 8 and skip a group none of whose
  // bits is set (groups.svh): at 5 % load most groups of a 16 + 16 switch have nothing to do in
  // most cycles.
  `SIM_GROUPS(pg_any, PG, NPG, N)

  // ---- state ----
  // Input i's queue tables (voq_buf, with one head table: a queue's head is written by an enqueue
  // into it while empty, or by a dequeue): queue q of input i is element i*NumQ + q, entry e of
  // input i element i*Depth + e. Every entry is written before it is read. Which queues hold a word
  // is kept per (input, output), a bit per class (element i*N + o): a matched input's classes for
  // its output are one word. A flag is otherwise an element of its own, not a bit of a per-port
  // vector: the Verilated model reads a bit at a computed index of a vector wider than 64 bits
  // through a copy of the whole vector (succ_q as [N] vectors of Depth bits cost about 3 200 host
  // instructions per cycle of the busy 16 + 16 bench row).
  logic [NumCls-1:0] ne_q    [N*N];          // per class: the queue holds a word
  logic [EntryW-1:0] head_q  [N*NumQ];       // its head entry
  logic [EntryW-1:0] tail_q  [N*NumQ];       // its tail entry
  logic [EntryW-1:0] next_q  [N*Depth];      // an entry's successor in its queue, ...
  logic              succ_q  [N*Depth];      // ... valid where this bit is set
  logic [EntryW-1:0] flq_q   [N*Depth];      // free entry numbers, oldest first

  // Per input: the free list's pointers and counts, the class round-robin's thermometer mask
  // (rr_arb), the drain pointer, per class the occupancy (messages in the buffer) and the
  // credits owed to the link partner (crd_ret), and what the ports show of these. (Narrow
  // arrays, not a struct: the Verilated model reads a field of a wide struct bit by bit.)
  logic [EntryW-1:0]      fl_rd_q [N];
  logic [EntryW-1:0]      fl_wr_q [N];
  logic [CntW-1:0]        fresh_q [N];
  logic [CntW-1:0]        free_q  [N];
  logic [NumCls-1:0]      cmask_q [N];
  logic [PortW-1:0]       dout_q  [N];         // the drain's output ...
  logic [ClsW-1:0]        dcls_q  [N];         // ... and class
  logic [NumCls*OccW-1:0] occ_q   [N];
  logic [NumCls*OweW-1:0] owe_q   [N];
  logic [NumCls-1:0]      owe_nz_s [N];        // per input, the classes owe_q owes credits of
  logic [N*NumCls-1:0]    held_q;             // per input and class: occupancy nonzero
  logic [NumCls-1:0]      held_s  [N];         // held_q's copy this module's processes read (below)
  logic [N*NumCls-1:0]    rxcrd_q;            // per input: credits returned this cycle (rx_crd_o)
  logic [N*EntryW-1:0]    sent_q;             // per input: the entry the traversal reads (a
                                              // vector: rd_entry_o itself, not gathered a port
                                              // at a time at every evaluation)
  // Per input, a bit each (vectors, like the rest of what other blocks or every port's logic read
  // at every evaluation: the Verilated model reads a vector as it is, where it gathered an array's
  // elements into one a port at a time, about 1 000 host instructions a fabric cycle at 16 + 16):
  logic [N-1:0]           stored_q;           // the input's buffer holds a message
  logic [N-1:0]           open_q;             // the credits' advertisement is under way or done
  logic [N-1:0]           owing_q;            // credits are owed to the link partner
  logic [N-1:0]           rxcrd_any_q;        // rxcrd_q's bits of the input not all 0
  logic [N-1:0]           started_q;

  // Per output: the partner's credits per class and their flags (one or more, two or more), the
  // credit turns' pointers, the holders kept from the inputs' changes, and the traversal stage.
  logic [NumCls*TxCrdW-1:0] tcrd_q [N];
  logic [N*NumCls-1:0]      avail_q;          // per output and class: one credit or more ...
  logic [N-1:0]             nz_any_q;         // ... of some class
  logic [N*NumCls-1:0]      many_q;           // per output and class: two credits or more
  logic [NumCls-1:0]        nz_s   [N];       // avail_q's and many_q's copies the process that
  logic [NumCls-1:0]        many_s [N];       // writes them reads (below)
  logic [NumCls*PortW-1:0]  ptr_q  [N];       // bits c*PortW +: PortW: class c's pointer
  logic [N-1:0]             col_q  [N*NumCls]; // element o*NumCls + c, bit i: input i holds a
                                              // message of class c for output o
  logic [NumCls-1:0]        ocls_q [N];       // per class: the column holds a bit (fences aside)
  logic [N-1:0]             col_any_q;        // outputs with a holder: ocls_q not 0
  logic [N-1:0]             s2_valid_q, s2_msi_q, s2_sink_q, tx_valid_q;
  logic [N*PortW-1:0]       s2_in_q;          // per output: the crossbar's select (xbar_sel_o)
  logic [N*ClsW-1:0]        s2_cls_q;         // per output: the class sent (send_cls_o)
  // Output o has a holder of some class.
  function automatic logic col_held(int o);
    col_held = 1'b0;
    for (int c = 0; c < NumCls; c++) col_held = col_held | (col_q[o*NumCls + c] != '0);
  endfunction

  // ---- the ports' vectors (Verilator unrolls most loops below, so that their fields are read and
  // written at constant offsets; where it does not, as in the matched ports' decisions, a field is
  // read at an offset worked out at every iteration) ----
  logic [N-1:0]        req_a    [N];          // the output's requests
  logic [N*NumCls-1:0] leave;                 // per input and class: a message left the buffer
  logic [EntryW-1:0]   alloc    [N];          // the entry the input's enqueue takes
  logic [N-1:0]        enq, sunk, drain;
  // The allocator's match of input i (its output) and of output o (its input).
  function automatic logic [PortW-1:0] in_out(int i);
    in_out = in_match_idx_i[i*PortW +: PortW];
  endfunction
  function automatic logic [PortW-1:0] out_in(int o);
    out_in = out_match_idx_i[o*PortW +: PortW];
  endfunction
  for (genvar p = 0; p < N; p++) begin : g_view
    assign req_o[p*N +: N] = req_a[p];
  end
  // (Whole vectors: per port, an array gathered into them cost the Verilated model about 550 host
  // instructions a cycle at 16 + 16, with those of the matches.)
  assign stall_o = held_q & ~leave;
  assign crd_avail_o = avail_q;
  assign rx_crd_o    = rxcrd_q;
  assign xbar_sel_o  = s2_in_q;
  assign send_cls_o  = s2_cls_q;

  // Both kinds of drop need a fenced port (a drain only runs on one): the port-by-port work is
  // skipped while none is fenced, which is nearly always.
  always_comb begin
    drop_o = '0;
    if (fenced_i != '0)
      for (int p = 0; p < N; p++) begin
        drop_o[2*p]   = rx_valid_i[p] & fenced_i[p];
        drop_o[2*p+1] = drain[p];
      end
  end

  // ---- requests, per output with a holder (before the allocator) ----
  // A class's holders may send it when the output holds a credit of it and either two or more or
  // it is the holder's turn (with two or more, every holder may: the turn is not looked for).
  always_comb begin
    logic [N-1:0]      h, ok;
    logic [NumCls-1:0] avail, plenty, held;
    h = '0; ok = '0; avail = '0; plenty = '0; held = '0;
    wait_o   = '0;
    starve_o = '0;
    for (int o = 0; o < N; o++) begin
      req_a[o]    = '0;
    end
    for (int pg = 0; pg < NPG; pg++) if (pg_any(col_any_q, pg))
    for (int o = pg * PG; o < pg * PG + PG && o < N; o++) begin
      // An output whose column is empty has no holder to look at (a bit test, not a test of its
      // NumCls words: most outputs, most cycles).
      if (col_any_q[o]) begin
        avail  = avail_q[o*NumCls +: NumCls] | {NumCls{fenced_i[o]}};
        plenty = many_q[o*NumCls +: NumCls] | {NumCls{fenced_i[o]}};
        held   = '0;
        for (int c = 0; c < NumCls; c++) begin
          h = '0;
          if (ocls_q[o][c]) h = col_q[o*NumCls + c] & ~fenced_i;
          if (h != '0) begin
            held[c]        = 1'b1;
            starve_o[o*NumCls + c] = ~avail[c];
            // (Written as statements: a function call in an expression is evaluated whatever the
            // condition around it.)
            if (avail[c]) begin
              if (plenty[c]) ok = '1;
              else           ok = N'(1) << turn_of(h, ptr_q[o][c*PortW +: PortW]);
              req_a[o] = req_a[o] | (h & ok);
            end
          end
        end
        wait_o[o] = (held & ~avail_q[o*NumCls +: NumCls]) != '0;
      end
    end
  end

  // ---- the matched ports' decisions (after the allocator; state only) ----
  // Per matched input: the classes its output takes (sw_egress match_elig), the class it sends
  // (round-robin from its mask over them) and the dequeue; per fenced input not matched, the drain
  // of its buffer, one queue after the other (sw_ingress, voq_buf); per output that takes a message
  // or an MSI, the class, whether the input owned the class's turn, and the credit it takes.
  logic [N-1:0]      deq, leave_any, tk, tt;
  logic [QW-1:0]     deq_q   [N];            // the queue dequeued (or looked at by the drain)
  logic [PortW-1:0]  deq_o_  [N];
  logic [ClsW-1:0]   deq_c   [N];
  logic [EntryW-1:0] head    [N];            // its head: what a matched input's traversal reads
  logic [ClsW-1:0]   pick    [N];            // the class picked by a matched input
  logic [NumCls-1:0] elig    [N];            // per input: the classes its matched output takes
  logic [ClsW-1:0]   cls_o   [N];            // per output: the class taken (MGREQ for an MSI)

  always_comb begin
    logic [PortW-1:0]  m;
    logic [N-1:0]      h;
    logic [NumCls-1:0] e, cand, g;
    logic [QW-1:0]     dq;
    logic [N-1:0]      due;
    m = '0; h = '0; e = '0; cand = '0; g = '0; dq = '0;
    deq = '0; drain = '0; leave_any = '0; tk = '0; tt = '0; leave = '0;
    for (int i = 0; i < N; i++) begin
      deq_q[i] = '0; deq_o_[i] = '0; deq_c[i] = '0; head[i] = '0; pick[i] = '0; elig[i] = '0;
      cls_o[i] = '0;
    end
    // (A fenced input is eligible for no class; a matched input's classes for the output are its
    // queues' flags, the same bits as its bit in the output's holder columns.)
    if (out_match_valid_i != '0) begin
      for (int pg = 0; pg < NPG; pg++) if (pg_any(out_match_valid_i, pg))
      for (int o = pg * PG; o < pg * PG + PG && o < N; o++) begin
        // (The match read under the test: a function call in an expression is evaluated whatever
        // the condition around it, and this loop is not unrolled.)
        if (out_match_valid_i[o]) m = out_in(o);
        if (out_match_valid_i[o] && !fenced_i[m]) begin
          cand = ne_q[32'(m)*N + o] & (avail_q[o*NumCls +: NumCls] | {NumCls{fenced_i[o]}});
          if (cand != '0)
            for (int c = 0; c < NumCls; c++) begin
              if (cand[c]) begin
                if (many_q[o*NumCls + c] || fenced_i[o]) begin
                  elig[m][c] = 1'b1;
                end else begin
                  h          = col_q[o*NumCls + c] & ~fenced_i;
                  elig[m][c] = turn_of(h, ptr_q[o][c*PortW +: PortW]) == m;
                end
              end
            end
        end
      end
    end
    due = in_match_valid_i | fenced_i;
    for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
    for (int i = pg * PG; i < pg * PG + PG && i < N; i++) begin
      if (due[i]) begin
        if (in_match_valid_i[i]) begin
          e         = elig[i];
          cand      = ((e & cmask_q[i]) != '0) ? (e & cmask_q[i]) : e;
          g         = cand & (~cand + NumCls'(1));
          for (int b = 0; b < ClsW; b++) pick[i][b] = |(g & ClsBits[b*NumCls +: NumCls]);
          deq[i]    = e != '0;
          deq_o_[i] = in_out(i);
          deq_c[i]  = pick[i];
          deq_q[i]  = QW'(in_out(i)) * QW'(NumCls) + QW'(pick[i]);
          if (e != '0) begin
            leave[i*NumCls +: NumCls] = g;
            leave_any[i] = 1'b1;
          end
          head[i] = head_q[i*NumQ + 32'(deq_q[i])];
        end else begin
          // fenced, not matched: the drain
          dq        = QW'(dout_q[i]) * QW'(NumCls) + QW'(dcls_q[i]);
          drain[i]  = ne_q[i*N + 32'(dout_q[i])][dcls_q[i]];
          deq[i]    = drain[i];
          deq_q[i]  = dq;
          deq_o_[i] = dout_q[i];
          deq_c[i]  = dcls_q[i];
          head[i]   = head_q[i*NumQ + 32'(dq)];
        end
      end
    end
    due = out_match_valid_i | msi_i;
    for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
    for (int o = pg * PG; o < pg * PG + PG && o < N; o++) begin
      if (due[o]) begin
        if (out_match_valid_i[o]) begin
          m        = out_in(o);
          cls_o[o] = pick[m];
          h        = col_q[o*NumCls + 32'(cls_o[o])] & ~fenced_i;
          if (h != '0) tt[o] = turn_of(h, ptr_q[o][32'(cls_o[o])*PortW +: PortW]) == m;
        end
        if (msi_i[o]) cls_o[o] = ClsW'(msg_pkg::CLS_MGREQ);
        tk[o] = ~fenced_i[o];
      end
    end
  end

  // ---- arrivals (the only logic that reads the links' messages) and the queue tables' writes ----
  // Per input with an arrival or a dequeue: the arrival's class and route, its enqueue (into queue
  // enq_q of output enq_o_ and class enq_c, entry alloc), and the table writes the enqueue and the
  // dequeue make. An arrival with a route counts in its class's occupancy (arrive); it is enqueued
  // when the buffer has a free entry, which a credit-respecting sender always finds (asserted).
  logic [N-1:0]      arrive, op_bad, head_enq_we, head_deq_we, next_we, ne_clr;
  logic [QW-1:0]     enq_q   [N];
  logic [PortW-1:0]  enq_o_  [N];
  logic [ClsW-1:0]   enq_c   [N];
  logic [EntryW-1:0] head_nx [N];            // the dequeued queue's new head
  logic [EntryW-1:0] tail    [N];            // the enqueued queue's tail before the enqueue

  always_comb begin
    logic [PortW-1:0]           r_out;
    logic [NodeW-1:0]           dst;
    msg_pkg::opcode_t           op;
    logic                       last, same;
    logic [N-1:0]               due;
    r_out = '0; dst = '0; op = '0; last = 1'b0; same = 1'b0;
    arrive = '0; enq = '0; sunk = '0; op_bad = '0;
    head_enq_we = '0; head_deq_we = '0; next_we = '0; ne_clr = '0;
    // (enq_entry_o, the entries for sw_words, written where they are worked out: gathered from
    // alloc a port at a time, it was assembled again at every evaluation.)
    enq_entry_o = '0;
    for (int i = 0; i < N; i++) begin
      enq_q[i] = '0; enq_o_[i] = '0; enq_c[i] = '0; alloc[i] = '0; head_nx[i] = '0; tail[i] = '0;
    end
    due = rx_valid_i | deq;
    for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
    for (int i = pg * PG; i < pg * PG + PG && i < N; i++) begin
      if (due[i]) begin
        if (rx_valid_i[i]) begin
          dst        = rx_msg_i[i*FlitW + msg_pkg::FIELD_DST_LSB +: NodeW];
          op         = rx_msg_i[i*FlitW + msg_pkg::FIELD_OPCODE_LSB +: msg_pkg::FIELD_OPCODE_W];
          r_out      = route_o_i[32'(dst)*PortW +: PortW];
          enq_c[i]   = ClsW'(msg_pkg::msg_class(op));
          op_bad[i]  = ~msg_pkg::msg_op_valid(op);
          arrive[i]  = route_v_i[dst] & ~fenced_i[i];
          enq[i]     = arrive[i] & (free_q[i] != '0);
          enq_q[i]   = QW'(r_out) * QW'(NumCls) + QW'(enq_c[i]);
          enq_o_[i]  = r_out;
          sunk[i]    = ~route_v_i[dst] & ~fenced_i[i];
        end
        if (enq[i] || deq[i]) begin
          alloc[i] = (fresh_q[i] != CntW'(Depth)) ? EntryW'(fresh_q[i])
                                                   : flq_q[i*Depth + 32'(fl_rd_q[i])];
          enq_entry_o[i*EntryW +: EntryW] = alloc[i];
          tail[i]  = tail_q[i*NumQ + 32'(enq_q[i])];
          last     = deq[i] && !succ_q[i*Depth + 32'(head[i])];
          same     = enq[i] && deq[i] && enq_q[i] == deq_q[i];
          // Enqueue: into an empty queue it is the head; else it follows the tail, unless the
          // same cycle dequeues the queue's only word (then it becomes the head instead).
          head_enq_we[i] = enq[i] && !ne_q[i*N + 32'(enq_o_[i])][enq_c[i]];
          next_we[i]     = enq[i] && ne_q[i*N + 32'(enq_o_[i])][enq_c[i]] && !(same && last);
          // Dequeue: the head moves to its successor, or to the entry enqueued into the same queue;
          // a queue left without a word is cleared.
          head_deq_we[i] = deq[i] && (!last || same);
          head_nx[i]     = last ? alloc[i] : next_q[i*Depth + 32'(head[i])];
          ne_clr[i]      = deq[i] && last && !same;
        end
      end
    end
  end

  assign enq_o      = enq;
  assign rd_entry_o = sent_q;
  assign rx_sunk_o  = sunk;
  // ---- traversal: what enters the output register ----
  logic [N-1:0] lost;
  assign lost       = s2_sink_q | fenced_i;
  assign send_o     = (s2_valid_q | s2_msi_q) & ~lost;
  assign sunk_o     = s2_valid_q & lost;
  assign msi_busy_o = s2_msi_q;
  assign msi_sent_o = s2_msi_q & ~lost;
  assign tx_valid_o = tx_valid_q;
  assign busy_o     = s2_valid_q | s2_msi_q | tx_valid_q;

  // ---- clocked: the next state of each port with something to do ----
  // Per input port: its queue tables, written at the indices its enqueue and dequeue computed; the
  // occupancy (an arrival with a route adds one to its class, a message leaving or drained takes
  // one from its class); the free list; the class mask; the drain's pointer; the credits returned
  // (crd_ret: one back per class per cycle while it owes any; a message leaving or sunk earns
  // one; fenced, nothing; a restart owes the advertised credits again). Per output port: the turn
  // (when the matched input owned it, the pointer moves just past it), the partner's credits (a
  // credit back, one taken, or fenced: none) and the traversal stage. What other blocks read,
  // non-blocking writes into vectors; the rest, blocking writes (the file's header says why and
  // what keeps it the same machine); every process a loop over the ports with work due.
  logic [N-1:0] cr_act;
  assign cr_act    = owing_q | rxcrd_any_q | leave_any | sunk | fenced_i | restart_i;
  assign in_idle_o = ~stored_q & ~owing_q & ~rxcrd_any_q;

  // The occupancies and the credits owed (blocking: only this process reads them) and what the
  // switch's other blocks and the assertions see of an input (the occupancy flags behind its stalls,
  // the credits it returns, the advertisement's and the debt's flags: vectors, non-blocking) in one
  // process with two loops over the groups of ports with work due: a process per port cost the
  // Verilated model two tests of each port's bits in each process at every edge, about 600 host
  // instructions a cycle at 16 + 16 with nothing to do.
  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    logic [NumCls*OccW-1:0] occ;
    logic [NumCls-1:0]      held, crd, onz, ocm;
    logic [OccW-1:0]        oc;
    logic [NumCls*OweW-1:0] owe;
    logic [OweW-1:0]        ow;
    logic [N-1:0]           due;
    if (!rst_ni) begin
      for (int i = 0; i < N; i++) begin
        occ_q[i]    = '0;
        owe_q[i]    = '0;
        owe_nz_s[i] = '0;
        held_s[i]   = '0;
      end
      held_q      <= '0;
      rxcrd_q     <= '0;
      rxcrd_any_q <= '0;
      open_q      <= '0;
      owing_q     <= '0;
    end else begin
      // An arrival with a route adds one to its class's occupancy, a message leaving or drained
      // takes one from its class's.
      due = arrive | deq;
      if (due != '0)
        for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
        for (int i = pg * PG; i < pg * PG + PG && i < N; i++) begin
          if (due[i]) begin
            occ  = occ_q[i];
            held = held_s[i];
            if (arrive[i]) begin
              oc                              = occ[32'(enq_c[i])*OccW +: OccW] + OccW'(1);
              occ[32'(enq_c[i])*OccW +: OccW] = oc;
              held[enq_c[i]]                  = 1'b1;
            end
            if (deq[i]) begin
              oc                              = occ[32'(deq_c[i])*OccW +: OccW] - OccW'(1);
              occ[32'(deq_c[i])*OccW +: OccW] = oc;
              held[deq_c[i]]                  = oc != '0;
            end
            occ_q[i]                   = occ;
            held_s[i]                  = held;
            held_q[i*NumCls +: NumCls] <= held;
          end
        end
      // The credits returned: one back per class per cycle while it owes any; a message leaving or
      // sunk earns one; fenced, nothing; a restart owes the advertised credits again.
      due = cr_act;
      if (due != '0)
        for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
        for (int i = pg * PG; i < pg * PG + PG && i < N; i++) begin
          if (due[i]) begin
            crd = '0;
            owe = owe_q[i];
            onz = owe_nz_s[i];
            if (owing_q[i] || leave_any[i] || sunk[i]) begin
              // (Only the classes owed, leaving or sunk: the others return nothing.)
              ocm = onz | leave[i*NumCls +: NumCls] | (sunk[i] ? NumCls'(1) << enq_c[i] : '0);
              for (int c = 0; c < NumCls; c++) begin
                if (ocm[c]) begin
                  ow                  = owe_q[i][c*OweW +: OweW] + OweW'(leave[i*NumCls + c]) +
                                        OweW'(sunk[i] && enq_c[i] == ClsW'(c));
                  crd[c]              = 1'b1;
                  owe[c*OweW +: OweW] = ow - OweW'(1);
                  onz[c]              = ow != OweW'(1);
                end
              end
            end
            if (fenced_i[i]) begin
              crd = '0;
              owe = '0;
              onz = '0;
            end
            if (restart_i[i]) begin
              owe = {NumCls{OweW'(adv_i)}};
              onz = {NumCls{OweW'(adv_i) != '0}};
            end
            owe_q[i]                    = owe;
            owe_nz_s[i]                 = onz;
            rxcrd_q[i*NumCls +: NumCls] <= crd;
            rxcrd_any_q[i]              <= crd != '0;
            open_q[i]                   <= ~restart_i[i] & (open_q[i] | rxcrd_any_q[i]);
            owing_q[i]                  <= onz != '0;
          end
        end
    end
  end

  // verilator lint_on BLKSEQ

  // The rest of the inputs' state, which only this module's combinational blocks read: one loop
  // over the ports with an enqueue, a dequeue (a drain's included) or a drain pointer to move,
  // blocking writes.
  logic [N-1:0] in_due;
  assign in_due = enq | deq | fenced_i;

  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    logic [N-1:0]      due;
    logic [CntW-1:0]   fr, fresh;
    logic [EntryW-1:0] flr, flw;
    logic [ClsW-1:0]   dc;
    logic [PortW-1:0]  dn;
    due = in_due;
    fr = '0; fresh = '0; flr = '0; flw = '0; dc = '0; dn = '0;
    if (!rst_ni) begin
      for (int i = 0; i < N; i++) begin
        for (int o = 0; o < N; o++) ne_q[i*N + o] = '0;
        fl_rd_q[i]  = '0;
        fl_wr_q[i]  = '0;
        fresh_q[i]  = '0;
        free_q[i]   = CntW'(Depth);
        cmask_q[i]  = '1;
        dout_q[i]   = '0;
        dcls_q[i]   = '0;
        stored_q[i] = 1'b0;
      end
    end else begin
      for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
      for (int i = pg * PG; i < pg * PG + PG && i < N; i++) begin
        if (due[i]) begin
          // The port's old values, before any of its writes.
          fr    = free_q[i];
          fresh = fresh_q[i];
          flr   = fl_rd_q[i];
          flw   = fl_wr_q[i];
          dc    = dcls_q[i];
          dn    = dout_q[i];
          if (enq[i]) begin
            ne_q[i*N + 32'(enq_o_[i])][enq_c[i]] = 1'b1;
            succ_q[i*Depth + 32'(alloc[i])] = 1'b0;
            tail_q[i*NumQ + 32'(enq_q[i])] = alloc[i];
          end
          if (ne_clr[i])      ne_q[i*N + 32'(deq_o_[i])][deq_c[i]] = 1'b0;
          if (head_enq_we[i]) head_q[i*NumQ + 32'(enq_q[i])] = alloc[i];
          if (head_deq_we[i]) head_q[i*NumQ + 32'(deq_q[i])] = head_nx[i];
          if (next_we[i]) begin
            next_q[i*Depth + 32'(tail[i])] = alloc[i];
            succ_q[i*Depth + 32'(tail[i])] = 1'b1;
          end
          if (deq[i]) flq_q[i*Depth + 32'(flw)] = head[i];
          if (enq[i] || deq[i]) begin
            if (enq[i] && !deq[i]) fr = fr - CntW'(1);
            if (deq[i] && !enq[i]) fr = fr + CntW'(1);
            free_q[i]   = fr;
            stored_q[i] = fr != CntW'(Depth);
            if (enq[i] && fresh != CntW'(Depth)) fresh_q[i] = fresh + CntW'(1);
            if (enq[i] && fresh == CntW'(Depth))
              fl_rd_q[i] = (flr == EntryW'(Depth - 1)) ? '0 : flr + EntryW'(1);
            if (deq[i])
              fl_wr_q[i] = (flw == EntryW'(Depth - 1)) ? '0 : flw + EntryW'(1);
          end
          if (leave_any[i])
            cmask_q[i] = ~(leave[i*NumCls +: NumCls] | (leave[i*NumCls +: NumCls] - NumCls'(1)));
          if (!in_match_valid_i[i] && fenced_i[i] && !drain[i]) begin
            if (dc != ClsW'(NumCls - 1)) begin
              dcls_q[i] = dc + ClsW'(1);
            end else begin
              dcls_q[i] = '0;
              dout_q[i] = (dn == PortW'(N - 1)) ? '0 : dn + PortW'(1);
            end
          end
        end
      end
    end
  end
  // verilator lint_on BLKSEQ

  // Per output: the turns' pointers and the partner's credits (blocking: only this process and
  // this module's combinational blocks read them), and the credit flags other blocks read (vectors,
  // non-blocking), in one process with loops over the groups of ports with work due, as the
  // inputs' above.
  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    logic [NumCls-1:0]        give, g, nz, many;
    logic [NumCls*TxCrdW-1:0] tc;
    logic [TxCrdW-1:0]        n;
    logic [NumCls*PortW-1:0]  ptr;
    logic [N-1:0]             due;
    if (!rst_ni) begin
      for (int o = 0; o < N; o++) begin
        tcrd_q[o] = '0;
        ptr_q[o]  = '0;
        nz_s[o]   = '0;
        many_s[o] = '0;
      end
      avail_q  <= '0;
      nz_any_q <= '0;
      many_q   <= '0;
    end else begin
      // The turn: when the matched input owned it, the pointer moves just past it.
      if (tt != '0)
        for (int pg = 0; pg < NPG; pg++) if (pg_any(tt, pg))
        for (int o = pg * PG; o < pg * PG + PG && o < N; o++) begin
          if (tt[o]) begin
            ptr = ptr_q[o];
            ptr[32'(pick[out_in(o)])*PortW +: PortW] = (out_in(o) == PortW'(N - 1)) ? '0 : out_in(o) + PortW'(1);
            ptr_q[o] = ptr;
          end
        end
      // The credits change when the link partner gives one back, the output takes one, or its
      // node is fenced (then it holds none).
      due = tx_crd_any_i | tk | (fenced_i & nz_any_q);
      if (due != '0)
        for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
        for (int o = pg * PG; o < pg * PG + PG && o < N; o++) begin
          if (due[o]) begin
            give = tx_crd_i[o*NumCls +: NumCls];
            tc   = '0;
            nz   = '0;
            many = '0;
            if (!fenced_i[o]) begin
              g = give;
              if (tk[o]) g[cls_o[o]] = 1'b1;
              tc   = tcrd_q[o];
              nz   = nz_s[o];
              many = many_s[o];
              for (int c = 0; c < NumCls; c++) begin
                if (g[c]) begin
                  n                      = tc[c*TxCrdW +: TxCrdW] + TxCrdW'(give[c]) -
                                           TxCrdW'(tk[o] && cls_o[o] == ClsW'(c));
                  tc[c*TxCrdW +: TxCrdW] = n;
                  nz[c]                  = n != '0;
                  many[c]                = n > TxCrdW'(1);
                end
              end
            end
            tcrd_q[o]                   = tc;
            nz_s[o]                     = nz;
            many_s[o]                   = many;
            avail_q[o*NumCls +: NumCls] <= nz;
            nz_any_q[o]                 <= nz != '0;
            many_q[o*NumCls +: NumCls]  <= many;
          end
        end
    end
  end

  // verilator lint_on BLKSEQ

  // The traversal's entries, inputs and classes of the matched ports (not reset: each written
  // before it is read), in one loop over the groups of ports with a match: a test of each port's
  // match in each port's process cost the Verilated model about 500 host instructions a cycle at
  // 16 + 16.
  always_ff @(posedge clk_i) begin
    logic [N-1:0] due;
    due = in_match_valid_i;
    if (due != '0)
      for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
      for (int i = pg * PG; i < pg * PG + PG && i < N; i++)
        if (due[i]) sent_q[i*EntryW +: EntryW] <= head[i];
    due = out_match_valid_i | msi_i;
    if (due != '0)
      for (int pg = 0; pg < NPG; pg++) if (pg_any(due, pg))
      for (int o = pg * PG; o < pg * PG + PG && o < N; o++)
        if (due[o]) begin
          s2_in_q[o*PortW +: PortW] <= out_in(o);
          s2_cls_q[o*ClsW +: ClsW]  <= cls_o[o];
        end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      started_q  <= '0;
      s2_valid_q <= '0;
      s2_msi_q   <= '0;
      tx_valid_q <= '0;
    end else begin
      started_q  <= started_q | restart_i;
      s2_valid_q <= out_match_valid_i;
      s2_msi_q   <= msi_i;
      tx_valid_q <= send_o;
    end
    s2_sink_q <= fenced_i;
  end

  // The holders (each input's changes, a set before a clear), and with them, per output, the classes
  // whose column holds a bit and whether any does: a column is looked at only when a bit of it is
  // cleared. One process, blocking writes as the inputs' tables (the header says why).
  // verilator lint_off BLKSEQ
  always_ff @(posedge clk_i) begin
    logic [N-1:0]  chg;
    logic [QW-1:0] k;
    chg = enq | ne_clr;
    k   = 0;
    if (!rst_ni) begin
      for (int oc = 0; oc < N * NumCls; oc++) col_q[oc] = '0;
      for (int o = 0; o < N; o++) ocls_q[o] = '0;
      col_any_q = '0;
    end else if (chg != '0) begin
      for (int pg = 0; pg < NPG; pg++) if (pg_any(chg, pg))
      for (int i = pg * PG; i < pg * PG + PG && i < N; i++) begin
        if (chg[i]) begin
          if (enq[i]) begin
            col_q[32'(enq_o_[i])*NumCls + 32'(enq_c[i])][i] = 1'b1;
            ocls_q[enq_o_[i]][enq_c[i]]                     = 1'b1;
            col_any_q[enq_o_[i]]                            = 1'b1;
          end
          if (ne_clr[i]) begin
            k                = QW'(deq_o_[i]) * QW'(NumCls) + QW'(deq_c[i]);
            col_q[32'(k)][i] = 1'b0;
            if (col_q[32'(k)] == '0) begin
              ocls_q[deq_o_[i]][deq_c[i]] = 1'b0;
              col_any_q[deq_o_[i]]        = ocls_q[deq_o_[i]] != '0;
            end
          end
        end
      end
    end
  end
  // verilator lint_on BLKSEQ

  // The sender's side of the contract (sw_ingress asserts the same per port): a message only on a
  // credit (the buffer has room), after the credits were advertised, and of a defined opcode.
  `ASSERT(rx_respects_credits, (arrive & ~enq) == '0)
  `ASSERT(rx_after_credit_advert, (rx_valid_i & ~fenced_i & ~(started_q & (open_q | rxcrd_any_q))) == '0)
  `ASSERT(rx_opcode_defined, (rx_valid_i & ~fenced_i & op_bad) == '0)
  // ocls_q and col_any_q are exactly the columns' (read through a combinational block: the header's
  // rule (2)).
  logic [N-1:0] col_exact;
  always_comb
    for (int o = 0; o < N; o++) begin
      col_exact[o] = col_any_q[o] == col_held(o);
      for (int c = 0; c < NumCls; c++) col_exact[o] = col_exact[o] & (ocls_q[o][c] == (col_q[o*NumCls + c] != '0));
    end
  `ASSERT(col_classes_exact, col_exact == '1)

endmodule
`default_nettype wire
