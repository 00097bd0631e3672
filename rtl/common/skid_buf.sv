`default_nettype none
// Skid buffer (register slice): one pipeline stage on a valid/ready stream that registers every
// output, in_ready_o included, so it cuts the forward (valid, data) and the backward (ready)
// combinational paths, and still moves one beat per cycle. The price is a second (skid) register:
// in_ready_o is decided a cycle early, so when the sink stalls, the beat the source sends in that
// cycle is caught in the skid register. Latency is one cycle.
module skid_buf #(
  /// Word width in bits (>= 1).
  parameter int Width = 8
) (
  /// Clock.
  input  wire logic             clk_i,
  /// Synchronous active-low reset: drops any held beat.
  input  wire logic             rst_ni,
  /// Input beat valid.
  input  wire logic             in_valid_i,
  /// Buffer can take a beat (registered: the skid register is empty).
  output logic                  in_ready_o,
  /// Input beat (Width bits).
  input  wire logic [Width-1:0] in_data_i,
  /// Output beat valid (registered).
  output logic                  out_valid_o,
  /// Sink takes the output beat this cycle.
  input  wire logic             out_ready_i,
  /// Output beat (Width bits, registered); meaningful only while out_valid_o is high.
  output logic      [Width-1:0] out_data_o
);
`include "assert.svh"

  if (Width < 1) begin : g_bad_width
    $error("skid_buf: Width must be >= 1");
  end

  // in_ready_q doubles as "skid register empty", so in_ready_o is a flop output with no
  // redundant state beside it.
  logic             in_ready_q, in_ready_d;
  logic             out_valid_q, out_valid_d;
  logic [Width-1:0] out_data_q, out_data_d;
  logic [Width-1:0] skid_data_q, skid_data_d;

  always_comb begin
    in_ready_d  = in_ready_q;
    out_valid_d = out_valid_q;
    out_data_d  = out_data_q;
    skid_data_d = skid_data_q;
    if (in_ready_q) begin
      if (!out_valid_q || out_ready_i) begin
        // Output register free (or emptied this cycle): the input goes straight into it.
        out_valid_d = in_valid_i;
        if (in_valid_i) out_data_d = in_data_i;
      end else if (in_valid_i) begin
        // Output stalled: park the beat accepted this cycle and stop accepting.
        skid_data_d = in_data_i;
        in_ready_d  = 1'b0;
      end
    end else if (out_ready_i) begin
      // Skid register full (so the output is valid): move it forward and accept again.
      out_data_d = skid_data_q;
      in_ready_d = 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      in_ready_q  <= 1'b1;
      out_valid_q <= 1'b0;
    end else begin
      in_ready_q  <= in_ready_d;
      out_valid_q <= out_valid_d;
    end
  end

  // Wide data is not reset: its valid bits say whether it means anything.
  always_ff @(posedge clk_i) begin
    out_data_q  <= out_data_d;
    skid_data_q <= skid_data_d;
  end

  assign in_ready_o  = in_ready_q;
  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;

  `ASSERT(skid_full_implies_out_valid, in_ready_q || out_valid_q)

endmodule
`default_nettype wire
