// Adder switch of the augmented reduction tree (ART). It receives the up-values of its two children and, over
// its forwarding link, a token from the neighbouring adder that has a different parent (an odd adder's partner
// is its right neighbour, an even adder's its left). The configuration word says how these form the adder's
// left and right tokens, which token crosses the link, which tokens are finished VN results (emitted) and
// whether the parity token goes up. Semantics: docs/config-bits.md. The emitted values are delayed by
// EMIT_DELAY cycles (the adder's level) so that results from every level leave the tree in the same cycle: in a
// ring of EMIT_DELAY registers written and read at `emit_pointer` (which the reduction network advances every
// cycle, modulo EMIT_DELAY), so each clock moves one value per side instead of shifting a whole delay line.
// Its activity (operands received, additions) depends only on the configuration and is counted per level by
// step_activity.sv, not gate by gate here.
module adder_switch
  import maeri_config_pkg::*;
#(
    parameter int   ACC_W      = 32,
    parameter int   IS_ODD     = 0,  // 1: right child of its parent
    parameter int   EMIT_DELAY = 0,
    parameter int   POINTER_W  = EMIT_DELAY > 1 ? $clog2(EMIT_DELAY) : 1
) (
    input  logic                 clk,
    input  logic                 rst,
    // Ring position of this cycle, 0 … EMIT_DELAY−1 (unused when EMIT_DELAY ≤ 1).
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [POINTER_W-1:0] emit_pointer,
    /* verilator lint_on UNUSEDSIGNAL */
    input  adder_switch_config_t config_word,
    input  logic [ACC_W-1:0]     left_value,
    input  logic [ACC_W-1:0]     right_value,
    input  logic [ACC_W-1:0]     link_in_value,
    input  logic                 link_in_valid,  // the partner's link_send
    output logic [ACC_W-1:0]     link_out_value,
    output logic [ACC_W-1:0]     up_value,       // registered; 0 unless configured to go up
    output logic [ACC_W-1:0]     emit_left_value,
    output logic [ACC_W-1:0]     emit_right_value
);
  logic              receive;
  logic [ACC_W-1:0]  link_term, left_token, right_token, combined;

  assign receive   = config_word.link_receive && link_in_valid;
  assign link_term = receive ? link_in_value : '0;
  assign combined  = left_value + right_value + link_term;

  always_comb begin
    if (config_word.combine) begin
      left_token  = combined;
      right_token = combined;
    end else begin
      left_token  = left_value + (IS_ODD != 0 ? '0 : link_term);
      right_token = right_value + (IS_ODD != 0 ? link_term : '0);
    end
  end

  // The sender never receives, so the link value depends only on the children: no combinational loop.
  always_comb begin
    if (!config_word.link_send) link_out_value = '0;
    else if (config_word.combine) link_out_value = left_value + right_value;
    else link_out_value = IS_ODD != 0 ? right_value : left_value;
  end

  logic [ACC_W-1:0] emit_left_q, emit_right_q;
  always_ff @(posedge clk) begin
    if (rst) begin
      up_value     <= '0;
      emit_left_q  <= '0;
      emit_right_q <= '0;
    end else begin
      up_value     <= config_word.up ? (IS_ODD != 0 ? left_token : right_token) : '0;
      // Slots of adders that emit nothing read 0, which keeps traces readable.
      emit_left_q  <= config_word.emit_left ? left_token : '0;
      emit_right_q <= config_word.emit_right ? right_token : '0;
    end
  end

  if (EMIT_DELAY == 0) begin : g_no_delay
    assign emit_left_value  = emit_left_q;
    assign emit_right_value = emit_right_q;
  end else if (EMIT_DELAY == 1) begin : g_one_delay
    always_ff @(posedge clk) begin
      emit_left_value  <= emit_left_q;
      emit_right_value <= emit_right_q;
    end
  end else begin : g_delay
    // The entry at the pointer was written EMIT_DELAY clocks ago; this clock overwrites it with the new value.
    logic [ACC_W-1:0] left_ring[EMIT_DELAY], right_ring[EMIT_DELAY];
    always_ff @(posedge clk) begin
      left_ring[emit_pointer]  <= emit_left_q;
      right_ring[emit_pointer] <= emit_right_q;
    end
    assign emit_left_value  = left_ring[emit_pointer];
    assign emit_right_value = right_ring[emit_pointer];
  end
endmodule
