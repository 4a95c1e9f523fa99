// Activity counters: running totals of the fabric's events since reset or `clear`, the quantities the analytical
// model predicts (multiplications, additions, DN and RN switch traversals, MN forwards) plus cycles, fires and
// results. Each input is the number of events in the current cycle; totals wrap at COUNTER_W bits.
module activity_counters #(
    parameter int COUNTER_W = 64,
    parameter int IN_W      = 16
) (
    input  logic                 clk,
    input  logic                 rst,
    input  logic                 clear,
    input  logic                 fire,
    input  logic [     IN_W-1:0] multiplications,
    input  logic [     IN_W-1:0] additions,
    input  logic [     IN_W-1:0] dn_traversals,
    input  logic [     IN_W-1:0] rn_traversals,
    input  logic [     IN_W-1:0] mn_forwards,
    input  logic [     IN_W-1:0] results,
    output logic [COUNTER_W-1:0] count_cycles,
    output logic [COUNTER_W-1:0] count_fires,
    output logic [COUNTER_W-1:0] count_multiplications,
    output logic [COUNTER_W-1:0] count_additions,
    output logic [COUNTER_W-1:0] count_dn_traversals,
    output logic [COUNTER_W-1:0] count_rn_traversals,
    output logic [COUNTER_W-1:0] count_mn_forwards,
    output logic [COUNTER_W-1:0] count_results
);
  always_ff @(posedge clk) begin
    if (rst || clear) begin
      count_cycles          <= '0;
      count_fires           <= '0;
      count_multiplications <= '0;
      count_additions       <= '0;
      count_dn_traversals   <= '0;
      count_rn_traversals   <= '0;
      count_mn_forwards     <= '0;
      count_results         <= '0;
    end else begin
      count_cycles          <= count_cycles + 1'b1;
      count_fires           <= count_fires + COUNTER_W'(fire);
      count_multiplications <= count_multiplications + COUNTER_W'(multiplications);
      count_additions       <= count_additions + COUNTER_W'(additions);
      count_dn_traversals   <= count_dn_traversals + COUNTER_W'(dn_traversals);
      count_rn_traversals   <= count_rn_traversals + COUNTER_W'(rn_traversals);
      count_mn_forwards     <= count_mn_forwards + COUNTER_W'(mn_forwards);
      count_results         <= count_results + COUNTER_W'(results);
    end
  end
endmodule
