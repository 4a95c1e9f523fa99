// Activity counters: one running total per counter of maeri_config_pkg::activity_counter_e, since reset or
// `clear`. `events[c]` is the number of events of counter c in the current cycle; totals wrap at COUNTER_W bits.
// The module does not know what it counts: maeri_top wires each event source to its index, so the list of
// counters has one home (the package enum).
module activity_counters
  import maeri_config_pkg::*;
#(
    parameter int COUNTER_W = 64,
    parameter int IN_W      = 16
) (
    input  logic                                             clk,
    input  logic                                             rst,
    input  logic                                             clear,
    input  logic [NUM_ACTIVITY_COUNTERS-1:0][     IN_W-1:0] events,
    output logic [NUM_ACTIVITY_COUNTERS-1:0][COUNTER_W-1:0] counts
);
  always_ff @(posedge clk) begin
    if (rst || clear) counts <= '0;
    else
      for (int c = 0; c < NUM_ACTIVITY_COUNTERS; c++) counts[c] <= counts[c] + COUNTER_W'(events[c]);
  end
endmodule
