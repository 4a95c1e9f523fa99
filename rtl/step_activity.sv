// Step activity: the multiplier and reduction networks' activity per step, which depends only on the configuration
// (which switches are active, forward, add, send or receive over a link), decoded once after each configuration
// write instead of gate by gate on every clock. The activity counters then add, in each cycle, the counts of the
// network levels a step occupies (maeri_top.sv). Counts are those defined in docs/rtl.md:
//  - MN: `active_count` multiplications per fire, `forward_count` of them on forwarding steps (take_forward);
//  - RN, per level l (heap levels, 0 = root): `level_traversals[l]` values entering the level's adders (the valid
//    children, static from the children's configuration, plus a received link token) and `level_additions[l]`
//    two-input additions (a combining adder adds all its operands, n − 1 additions; otherwise only a received
//    link token is added).
// The registers follow the configuration one cycle late (recomputed in the cycle after a write). A fire accepted
// with the new configuration reaches the multiplier switches at the earliest LEVELS cycles later, and its values the
// reduction levels later still, so every step is counted with its own configuration; a write while a step is in
// flight is an error (maeri_top's error_config) whatever is counted.
module step_activity
  import maeri_config_pkg::*;
#(
    parameter int NUM_MS = 16,
    parameter int LEVELS = $clog2(NUM_MS),
    parameter int MS_W   = $clog2(NUM_MS + 1),
    parameter int ADD_W  = $clog2(2 * NUM_MS + 1),
    parameter int TRAV_W = $clog2(3 * NUM_MS + 1)
) (
    input  logic                                   clk,
    input  logic                                   rst,
    input  logic                                   config_written,  // a configuration word was written last cycle
    input  mult_switch_config_t  [NUM_MS-1:0]      mult_config,
    input  adder_switch_config_t [NUM_MS-2:0]      adder_config,
    output logic [  MS_W-1:0]                      active_count,
    output logic [  MS_W-1:0]                      forward_count,
    output logic [ ADD_W-1:0]                      level_additions [LEVELS],
    output logic [TRAV_W-1:0]                      level_traversals[LEVELS]
);
  // Heap index of adder j of level l.
  function automatic int adder_index(input int level, input int j);
    return (1 << level) - 1 + j;
  endfunction

  // The valid children of adder j of level l: multiplier switches that are active at the leaf level, else child
  // adders that send up.
  function automatic logic [1:0] adder_children(input int level, input int j);
    if (level == LEVELS - 1) return 2'(mult_config[2*j].active) + 2'(mult_config[2*j+1].active);
    return 2'(adder_config[adder_index(level + 1, 2 * j)].up) + 2'(adder_config[adder_index(level + 1, 2 * j + 1)].up);
  endfunction

  // Adder j of level l adds a token over its link: it receives, and its partner (a neighbour with a different
  // parent: an odd adder's right neighbour, an even adder's left one) sends.
  function automatic logic adder_receives(input int level, input int j);
    int partner;
    partner = (j % 2 != 0) ? j + 1 : j - 1;
    if (partner < 0 || partner >= (1 << level)) return 1'b0;
    return adder_config[adder_index(level, j)].link_receive && adder_config[adder_index(level, partner)].link_send;
  endfunction

  always_ff @(posedge clk) begin
    if (rst) begin
      active_count  <= '0;
      forward_count <= '0;
      for (int l = 0; l < LEVELS; l++) begin
        level_additions[l]  <= '0;
        level_traversals[l] <= '0;
      end
    end else if (config_written) begin
      logic [MS_W-1:0]   active, forward;
      logic [1:0]        operands;
      logic              receive;
      logic [ADD_W-1:0]  additions;
      logic [TRAV_W-1:0] traversals;
      active  = '0;
      forward = '0;
      for (int i = 0; i < NUM_MS; i++) begin
        active  = active + MS_W'(mult_config[i].active);
        forward = forward + MS_W'(mult_config[i].active && mult_config[i].take_forward);
      end
      active_count  <= active;
      forward_count <= forward;
      for (int l = 0; l < LEVELS; l++) begin
        additions  = '0;
        traversals = '0;
        for (int j = 0; j < (1 << l); j++) begin
          receive    = adder_receives(l, j);
          operands   = adder_children(l, j) + 2'(receive);
          traversals = traversals + TRAV_W'(operands);
          if (!adder_config[adder_index(l, j)].combine) additions = additions + ADD_W'(receive);
          else if (operands > 2'd1) additions = additions + ADD_W'(operands) - ADD_W'(1);
        end
        level_additions[l]  <= additions;
        level_traversals[l] <= traversals;
      end
    end
  end
endmodule
